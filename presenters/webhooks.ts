// The webhook object: what its managers and the holders of its token are answered about a webhook.
import type { WebhookDoc } from '../projections/webhooks.js';
import type { UserDoc } from '../projections/users.js';
import type { ParleyWebhook } from './differences.js';
import { partialUser } from './users.js';

/** An incoming webhook, its token and execute URL included (only its managers and its token's holders see them). */
export function webhookObject(doc: WebhookDoc, token: string, origin: string, creator: UserDoc | undefined): ParleyWebhook {
  return {
    id: doc._id,
    type: 1,
    guild_id: doc.guild_id,
    channel_id: doc.channel_id,
    ...(creator ? { user: partialUser(creator) } : {}),
    name: doc.name,
    avatar: doc.avatar,
    token,
    application_id: null,
    interaction_url: doc.interaction_url,
    url: `${origin}/api/v1/webhooks/${doc._id}/${token}`,
  };
}
