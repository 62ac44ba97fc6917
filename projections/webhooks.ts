// Read model of webhooks: one document per live webhook, token sealed as in the log. Webhooks leave with their
// channel or guild, as in the widely used API.
import type { WebhookData } from '../domain/webhook.js';
import { changeSet } from './changes.js';
import { WEBHOOKS } from './collections.js';
import { projection } from './projection.js';

export interface WebhookDoc extends Omit<WebhookData, 'id'> {
  _id: string;
  sealed_token: string;
  token_hash: string;
  [key: string]: unknown;
}

export const webhooksProjection = projection({
  name: 'webhooks',
  handles: ['WebhookCreated', 'WebhookUpdated', 'WebhookDeleted', 'ChannelDeleted', 'GuildDeleted'],
  collections: [WEBHOOKS],
  indexes: [
    { collection: WEBHOOKS, keys: { channel_id: 1 } },
    { collection: WEBHOOKS, keys: { guild_id: 1 } },
  ],
  project(e) {
    switch (e.type) {
      case 'WebhookCreated': {
        const { id, ...webhook } = e.data.webhook;
        const doc: WebhookDoc = { _id: id, ...webhook, sealed_token: e.data.sealedToken, token_hash: e.data.tokenHash };
        return [{ replaceOne: { collection: WEBHOOKS, filter: { _id: id }, replacement: doc, upsert: true } }];
      }
      case 'WebhookUpdated':
        return [{ updateOne: { collection: WEBHOOKS, filter: { _id: e.data.webhookId }, update: { $set: changeSet(e.data.changes) } } }];
      case 'WebhookDeleted':
        return [{ deleteOne: { collection: WEBHOOKS, filter: { _id: e.data.webhook.id } } }];
      case 'ChannelDeleted':
        return [{ deleteMany: { collection: WEBHOOKS, filter: { channel_id: e.data.channel.id } } }];
      case 'GuildDeleted':
        return [{ deleteMany: { collection: WEBHOOKS, filter: { guild_id: e.data.guildId } } }];
    }
  },
});
