// Read model of webhooks: one document per live webhook, token sealed as in the log. Webhooks leave with their
// channel or guild, as in the widely used API.
import type { ChannelDeleted } from '../domain/channel.js';
import type { GuildDeleted } from '../domain/guild.js';
import type { WebhookData, WebhookEvent } from '../domain/webhook.js';
import type { RecordedEvent } from '../ports/eventStore.js';
import type { WriteOp } from '../ports/readStore.js';
import { changeSet } from './changes.js';
import { WEBHOOKS } from './collections.js';
import { type Projection, is } from './projection.js';

export interface WebhookDoc extends Omit<WebhookData, 'id'> {
  _id: string;
  sealed_token: string;
  token_hash: string;
  [key: string]: unknown;
}

type Event = WebhookEvent | ChannelDeleted | GuildDeleted;

function projectWebhook(e: RecordedEvent): WriteOp[] {
  if (is<Event, 'WebhookCreated'>(e, 'WebhookCreated')) {
    const { id, ...webhook } = e.data.webhook;
    const doc: WebhookDoc = { _id: id, ...webhook, sealed_token: e.data.sealedToken, token_hash: e.data.tokenHash };
    return [{ replaceOne: { collection: WEBHOOKS, filter: { _id: id }, replacement: doc, upsert: true } }];
  }
  if (is<Event, 'WebhookUpdated'>(e, 'WebhookUpdated')) {
    return [{ updateOne: { collection: WEBHOOKS, filter: { _id: e.data.webhookId }, update: { $set: changeSet(e.data.changes) } } }];
  }
  if (is<Event, 'WebhookDeleted'>(e, 'WebhookDeleted')) return [{ deleteOne: { collection: WEBHOOKS, filter: { _id: e.data.webhook.id } } }];
  if (is<Event, 'ChannelDeleted'>(e, 'ChannelDeleted')) return [{ deleteMany: { collection: WEBHOOKS, filter: { channel_id: e.data.channel.id } } }];
  if (is<Event, 'GuildDeleted'>(e, 'GuildDeleted')) return [{ deleteMany: { collection: WEBHOOKS, filter: { guild_id: e.data.guildId } } }];
  return [];
}

export const webhooksProjection: Projection = {
  name: 'webhooks',
  collections: [WEBHOOKS],
  indexes: [
    { collection: WEBHOOKS, keys: { channel_id: 1 } },
    { collection: WEBHOOKS, keys: { guild_id: 1 } },
  ],
  project: projectWebhook,
};
