// The webhook routes of an interaction's token, under its application's id as the widely used API has them: follow-ups
// (POST /webhooks/:application_id/:token, ?wait=true for the message) and the response messages (GET, PATCH and DELETE
// .../messages/@original or /:message_id). Mounted before the webhook routes, whose paths these share: a token that is
// no interaction's passes a follow-up on to webhook execution, unchanged.
import Router from '@koa/router';
import type { Context, Next } from 'koa';
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
import { parseBody, parseQuery, snowflakeSchema } from '../validation.js';
import { parseEdit, sendSchema } from './messages.js';

const token = { type: 'string', minLength: 1, maxLength: 200 } as const;
/** A follow-up's path is webhook execution's: its first parameter keeps that route's name, webhookId (here an application's id). */
export const tokenParams = { type: 'object', properties: { webhookId: snowflakeSchema, token }, required: ['webhookId', 'token'] } as const;
export const messageParams = {
  type: 'object',
  properties: { applicationId: snowflakeSchema, token, message: { type: 'string', pattern: '^(@original|[0-9]{1,20})$' } },
  required: ['applicationId', 'token', 'message'],
} as const;
export const followUpQuery = { type: 'object', properties: { wait: { type: 'boolean', default: false }, thread_id: snowflakeSchema } } as const;

const { nonce: _nonce, message_reference: _reference, ...messageFields } = sendSchema.properties;
/** A follow-up: a send's fields (username, avatar_url and thread names, which interactions do not take, are ignored). */
export const followUpSchema = { type: 'object', properties: messageFields } as const;

export function interactionWebhookRoutes(deps: HttpDeps): Router {
  const router = new Router();
  const present = (doc: MessageDoc) => messageObject(doc, { origin: deps.config.publicBaseUrl });

  /** The interaction the path's token opens; null when the token is no interaction's. */
  const opened = (ctx: Context) => {
    const params = parseBody(tokenParams, ctx.params);
    return interactionByToken(deps, params.webhookId, params.token);
  };

  /**
   * The interaction and the message the path names. A token that is no interaction's answers as the webhook routes
   * would (401 or 404 for a bad one); a webhook's own messages are not read or changed through these routes.
   */
  async function openedMessage(ctx: Context): Promise<{ interaction: OpenedInteraction; message: string }> {
    const params = parseBody(messageParams, ctx.params);
    const interaction = await interactionByToken(deps, params.applicationId, params.token);
    if (interaction) return { interaction, message: params.message };
    await webhookByToken(deps, params.applicationId, params.token);
    throw notFound('UNKNOWN_MESSAGE', "Unknown Message: a webhook's messages are read and changed through interaction tokens only");
  }

  router.post('/webhooks/:webhookId/:token', async (ctx: Context, next: Next) => {
    const interaction = await opened(ctx);
    if (!interaction) return next();
    const { wait, thread_id } = parseQuery(followUpQuery, ctx.query);
    if (thread_id) throw invalidForm([{ path: 'thread_id', message: 'Threads are not supported' }]);
    const { payload, files } = await readMessageBody(ctx, deps.config.jsonBodyLimit, deps.images);
    const { content, ...body } = parseBody(followUpSchema, payload);
    const doc = await sendFollowUp(deps, requestMeta(ctx), interaction, { ...body, content: content ?? undefined }, files);
    if (!wait) return noContent(ctx);
    ctx.body = present(doc);
  });

  const messagePath = '/webhooks/:applicationId/:token/messages/:message';

  router.get(messagePath, async (ctx) => {
    const { interaction, message } = await openedMessage(ctx);
    ctx.body = present(await getResponseMessage(deps, interaction, message));
  });

  router.patch(messagePath, async (ctx) => {
    const { interaction, message } = await openedMessage(ctx);
    const { payload, files } = await readMessageBody(ctx, deps.config.jsonBodyLimit, deps.images);
    ctx.body = present(await editResponseMessage(deps, requestMeta(ctx), interaction, message, parseEdit(payload), files));
  });

  router.delete(messagePath, async (ctx) => {
    const { interaction, message } = await openedMessage(ctx);
    await deleteResponseMessage(deps, requestMeta(ctx), interaction, message);
    noContent(ctx);
  });

  return router;
}
