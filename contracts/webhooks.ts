// Webhooks (presenters/webhooks.ts) and the component clicks on their messages. developers/resources/webhook.mdx,
// "Webhook Structure".
import { answeredTimestamp, anyObject, integer, list, nullable, object, snowflakeSchema, string, nullableId } from './schema.js';
import { User } from './users.js';

export const Webhook = object(
  'A webhook with its token and execute URL (only managers and token holders see them); `user` is its creator, `interaction_url` where the clicks on its messages’ components go.',
  { id: snowflakeSchema, type: integer, channel_id: nullableId, name: nullable(string), avatar: nullable(string), application_id: nullableId },
  {
    guild_id: nullableId,
    user: User,
    token: string,
    source_guild: anyObject,
    source_channel: anyObject,
    url: string,
    interaction_url: nullable(string),
  },
);

export const InteractionRecord = object('A component click on a webhook’s message, with its delivery attempts.', {
  id: snowflakeSchema,
  webhook_id: nullableId,
  channel_id: snowflakeSchema,
  message_id: snowflakeSchema,
  user_id: snowflakeSchema,
  custom_id: string,
  component_type: integer,
  values: nullable(list(string)),
  clicked_at: answeredTimestamp,
  status: { type: 'string', enum: ['undelivered', 'queued', 'in_flight', 'delivered', 'dropped', 'failed'] },
  next_attempt_at: nullable(answeredTimestamp),
  attempts: list(anyObject),
  reason: nullable(string),
});
