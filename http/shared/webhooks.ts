// POST /webhooks/:webhookId/:token: an interaction's follow-up when the token is an interaction's
// (http/routes/interactionWebhooks.ts, tried first), a webhook's execution otherwise (http/routes/webhooks.ts, which
// documents it for both). What an execution answers and refuses, shared by the webhook's other ways of posting.
import { Message } from '../../contracts/messages.js';
import type { Operation } from '../route.js';

export const postedAnswers = {
  200: { description: 'With ?wait=true: the message posted.', schema: Message },
  204: { description: 'Posted (without ?wait=true).' },
};
export const postErrors = [
  'UNKNOWN_WEBHOOK',
  'INVALID_WEBHOOK_TOKEN',
  'MISSING_PERMISSIONS',
  'CANNOT_SEND_EMPTY_MESSAGE',
  'UNKNOWN_CHANNEL',
  'THREAD_ARCHIVED',
  'WEBHOOK_FORUM_THREAD_REQUIRED',
  'WEBHOOK_SERVICES_NOT_IN_FORUMS',
] as const;

export const executeWebhookOperation = {
  method: 'POST',
  path: '/webhooks/:webhookId/:token',
  summary: 'Execute a webhook, or send an interaction follow-up',
  responses: postedAnswers,
  errors: [...postErrors, 'UNKNOWN_INTERACTION', 'WEBHOOK_FORUM_THREAD_NAME_AND_ID', 'WEBHOOK_THREADS_ONLY_IN_FORUMS'],
} as const satisfies Operation;
