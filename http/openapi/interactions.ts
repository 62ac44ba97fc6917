// The interaction routes (http/routes/interactions.ts): a person's clicks and command invocations, and the bot's
// response.
import { callbackParams, callbackQuery, callbackSchema, clickSchema, invokeSchema } from '../routes/interactions.js';
import { ref } from './components.js';
import type { RouteDoc } from './entry.js';

const recorded = { 204: { description: 'Checked and recorded; delivered asynchronously.' } };

export const interactionDocs: RouteDoc[] = [
  {
    method: 'POST',
    path: '/interactions/click',
    summary: 'Click a button or submit a select menu',
    description:
      'On a message the caller can see. Delivered signed to the webhook’s `interaction_url` (retried), or to the bot’s gateway sessions as INTERACTION_CREATE. 60 per user per minute.',
    tag: 'Interactions',
    auth: 'session',
    body: clickSchema,
    responses: recorded,
    errors: ['UNKNOWN_CHANNEL', 'UNKNOWN_MESSAGE', 'UNKNOWN_COMPONENT', 'COMPONENT_DISABLED', 'COMPONENT_NOT_INTERACTIVE', 'MISSING_PERMISSIONS', 'RATE_LIMITED'],
  },
  {
    method: 'POST',
    path: '/interactions',
    summary: 'Invoke an application command',
    description:
      'A slash command of an application whose bot is in the channel’s guild (or DM), checked against the command’s scope, USE_APPLICATION_COMMANDS, `default_member_permissions` and its options; delivered to the bot’s gateway sessions as INTERACTION_CREATE. 60 per user per minute.',
    tag: 'Interactions',
    auth: 'session',
    body: invokeSchema,
    responses: recorded,
    errors: ['UNKNOWN_CHANNEL', 'UNKNOWN_APPLICATION_COMMAND', 'UNSUPPORTED_COMMAND_TYPE', 'MISSING_ACCESS', 'MISSING_PERMISSIONS', 'RATE_LIMITED'],
  },
  {
    method: 'POST',
    path: '/interactions/:interactionId/:token/callback',
    summary: 'Respond to an interaction',
    description:
      'Once, within 15 minutes: 4 a message, 5 a deferred message, 6 a deferred update and 7 an update of the component’s message (no modals, no autocomplete). `data` is the message (a send’s fields, replies and nonces aside), JSON or multipart.',
    tag: 'Interactions',
    auth: 'webhook-token',
    params: callbackParams,
    query: callbackQuery,
    body: callbackSchema,
    multipart: true,
    responses: { 200: { description: 'With ?with_response=true: the callback and its message.', schema: ref('InteractionCallback') }, 204: { description: 'Responded.' } },
    errors: ['UNKNOWN_INTERACTION', 'INVALID_WEBHOOK_TOKEN', 'INTERACTION_ALREADY_ACKNOWLEDGED', 'CANNOT_SEND_EMPTY_MESSAGE'],
  },
];
