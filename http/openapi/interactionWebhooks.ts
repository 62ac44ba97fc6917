// The webhook routes of an interaction's token (http/routes/interactionWebhooks.ts): its response message and its
// follow-ups. The follow-up, POST /webhooks/{id}/{token}, shares its path with webhook execution and is documented
// there (webhooks.ts).
import { messageParams } from '../routes/interactionWebhooks.js';
import { editSchema } from '../routes/messages.js';
import { ref } from './components.js';
import type { RouteDoc } from './entry.js';

const base = {
  path: '/webhooks/:applicationId/:token/messages/:message',
  tag: 'Interactions',
  auth: 'webhook-token',
  params: messageParams,
  description: 'With the application’s id and the interaction’s token, for 15 minutes: `@original` names the response, an id a follow-up. A webhook’s own messages are not reachable here.',
} as const;
const errors = ['UNKNOWN_MESSAGE', 'UNKNOWN_WEBHOOK', 'INVALID_WEBHOOK_TOKEN'] as const;
const message = { description: 'The message.', schema: ref('Message') };

export const interactionWebhookDocs: RouteDoc[] = [
  { ...base, method: 'GET', summary: 'Get an interaction’s response or follow-up', responses: { 200: message }, errors },
  { ...base, method: 'PATCH', summary: 'Edit an interaction’s response or follow-up', body: editSchema, multipart: true, responses: { 200: message }, errors: [...errors, 'CANNOT_SEND_EMPTY_MESSAGE'] },
  { ...base, method: 'DELETE', summary: 'Delete an interaction’s response or follow-up', responses: { 204: { description: 'Deleted.' } }, errors },
];
