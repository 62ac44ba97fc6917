// The webhook routes of an interaction's token, under its application's id as the widely used API has them: follow-ups
// (POST /webhooks/:application_id/:token, ?wait=true for the message) and the response messages (GET, PATCH and DELETE
// .../messages/@original or /:message_id). Declared before the webhook routes, whose paths these share: a token that is
// no interaction's passes a follow-up on to webhook execution, unchanged.
import { Message } from '../../contracts/messages.js';
import {
  type OpenedInteraction,
  deleteResponseMessage,
  editResponseMessage,
  getResponseMessage,
  interactionByToken,
  sendFollowUp,
} from '../../commands/interactionResponses.js';
import { webhookByToken } from '../../commands/webhooks.js';
import { invalidForm, notFound } from '../../domain/errors.js';
import type { MessageDoc } from '../../projections/messages.js';
import { messageObject } from '../../presenters/messages.js';
import { type HttpDeps, noContent, requestMeta } from '../context.js';
import { readMessageBody } from '../multipart.js';
import { passOn, route } from '../route.js';
import { editSchema, parseEdit, postedMessageFields } from '../shared/messages.js';
import { executeWebhookOperation } from '../shared/webhooks.js';
import { type FromSchema, parseBody, parseQuery, snowflakeSchema } from '../validation.js';

const token = { type: 'string', minLength: 1, maxLength: 200 } as const;
/** A follow-up's path is webhook execution's: its first parameter keeps that route's name, webhookId (here an application's id). */
export const tokenParams = { type: 'object', properties: { webhookId: snowflakeSchema, token }, required: ['webhookId', 'token'] } as const;
export const messageParams = {
  type: 'object',
  properties: { applicationId: snowflakeSchema, token, message: { type: 'string', pattern: '^(@original|[0-9]{1,20})$' } },
  required: ['applicationId', 'token', 'message'],
} as const;
export const followUpQuery = { type: 'object', properties: { wait: { type: 'boolean', default: false }, thread_id: snowflakeSchema } } as const;

/** A follow-up: a send's fields (username, avatar_url and thread names, which interactions do not take, are ignored). */
export const followUpSchema = { type: 'object', properties: postedMessageFields } as const;

const present = (deps: HttpDeps, doc: MessageDoc) => messageObject(doc, { origin: deps.config.publicBaseUrl });

/**
 * The interaction and the message the path names. A token that is no interaction's answers as the webhook routes
 * would (401 or 404 for a bad one); a webhook's own messages are not read or changed through these routes.
 */
async function openedMessage(deps: HttpDeps, params: FromSchema<typeof messageParams>): Promise<{ interaction: OpenedInteraction; message: string }> {
  const interaction = await interactionByToken(deps, params.applicationId, params.token);
  if (interaction) return { interaction, message: params.message };
  await webhookByToken(deps, params.applicationId, params.token);
  throw notFound('UNKNOWN_MESSAGE', "Unknown Message: a webhook's messages are read and changed through interaction tokens only");
}

/** A follow-up, documented by webhook execution, whose path it shares: a token that is no interaction's goes on there. */
export const followUpRoute = route({
  ...executeWebhookOperation,
  documentedBy: executeWebhookOperation,
  tag: 'Webhooks',
  auth: 'webhook-token',
  params: tokenParams,
  query: followUpQuery,
  body: followUpSchema,
  // Read only once the token is known to be an interaction's: webhook execution reads them its own way.
  readsItself: ['query', 'body'],
  multipart: true,
  async handle(ctx, { params }, deps) {
    const interaction = await interactionByToken(deps, params.webhookId, params.token);
    if (!interaction) return passOn;
    const { wait, thread_id } = parseQuery(followUpQuery, ctx.query);
    if (thread_id) throw invalidForm([{ path: 'thread_id', message: 'Threads are not supported' }]);
    const { payload, files } = await readMessageBody(ctx, deps.config.jsonBodyLimit, deps.images);
    const { content, ...body } = parseBody(followUpSchema, payload);
    const doc = await sendFollowUp(deps, requestMeta(ctx), interaction, { ...body, content: content ?? undefined }, files);
    if (!wait) return noContent(ctx);
    ctx.body = present(deps, doc);
  },
});

const base = {
  path: '/webhooks/:applicationId/:token/messages/:message',
  tag: 'Interactions',
  auth: 'webhook-token',
  params: messageParams,
  description:
    'With the application’s id and the interaction’s token, for 15 minutes: `@original` names the response, an id a follow-up. A webhook’s own messages are not reachable here.',
} as const;
const errors = ['UNKNOWN_MESSAGE', 'UNKNOWN_WEBHOOK', 'INVALID_WEBHOOK_TOKEN'] as const;
const message = { description: 'The message.', schema: Message };

export const getResponseMessageRoute = route({
  ...base,
  method: 'GET',
  summary: 'Get an interaction’s response or follow-up',
  responses: { 200: message },
  errors,
  async handle(_ctx, { params }, deps) {
    const { interaction, message } = await openedMessage(deps, params);
    return present(deps, await getResponseMessage(deps, interaction, message));
  },
});

export const editResponseMessageRoute = route({
  ...base,
  method: 'PATCH',
  summary: 'Edit an interaction’s response or follow-up',
  body: editSchema,
  // JSON or multipart, read once the token is known.
  readsItself: ['body'],
  multipart: true,
  responses: { 200: message },
  errors: [...errors, 'CANNOT_SEND_EMPTY_MESSAGE'],
  async handle(ctx, { params }, deps) {
    const { interaction, message } = await openedMessage(deps, params);
    const { payload, files } = await readMessageBody(ctx, deps.config.jsonBodyLimit, deps.images);
    return present(deps, await editResponseMessage(deps, requestMeta(ctx), interaction, message, parseEdit(payload), files));
  },
});

export const deleteResponseMessageRoute = route({
  ...base,
  method: 'DELETE',
  summary: 'Delete an interaction’s response or follow-up',
  responses: { 204: { description: 'Deleted.' } },
  errors,
  async handle(ctx, { params }, deps) {
    const { interaction, message } = await openedMessage(deps, params);
    await deleteResponseMessage(deps, requestMeta(ctx), interaction, message);
  },
});

export const interactionWebhookRoutes = [followUpRoute, getResponseMessageRoute, editResponseMessageRoute, deleteResponseMessageRoute];
