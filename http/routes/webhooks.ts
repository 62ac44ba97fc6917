// Webhook routes of the spec: management with MANAGE_WEBHOOKS (create and list per channel, list per guild, fetch,
// change, delete), the token routes that need no Authorization header (fetch, change, delete, execute), the code-host
// and chat-service adapters, and the deliveries of a webhook's interactions for its managers to read.
import Router from '@koa/router';
import type { Context } from 'koa';
import { channelAccess, guildAccess } from '../../commands/access.js';
import {
  type ExecuteInput,
  type ExecuteOptions,
  type OutboundPolicy,
  type WebhookInput,
  createWebhook,
  deleteWebhook,
  executeWebhook,
  managedWebhook,
  openToken,
  updateWebhook,
  webhookByToken,
} from '../../commands/webhooks.js';
import { renderCodehostEvent } from '../../domain/codehost.js';
import { invalidForm } from '../../domain/errors.js';
import { Permission, requirePermission } from '../../domain/permissions.js';
import { slackMessage } from '../../domain/slack.js';
import { unknownWebhook } from '../../domain/webhook.js';
import type { WebhookDoc } from '../../projections/webhooks.js';
import { interactionsOfWebhook } from '../../projections/interactions.queries.js';
import { type WebhookScope, webhookById, webhooksOf } from '../../projections/webhooks.queries.js';
import { actorMeta, usersById } from '../actor.js';
import { requireAuth } from '../auth.js';
import { type HttpDeps, noContent, requestMeta } from '../context.js';
import { messageObject } from '../../presenters/messages.js';
import { NonJsonBody, parseJsonText } from '../body.js';
import { unsupportedMediaType } from '../errors.js';
import { readMessageBody } from '../multipart.js';
import { channelParams, guildParams } from '../params.js';
import { interactionObject } from '../../presenters/interactions.js';
import { partialUser } from '../../presenters/users.js';
import { nameSchema, pageLimit, parseBody, parseQuery, snowflakeSchema } from '../validation.js';
import { sendSchema } from './messages.js';

const webhookName = nameSchema(1, 80);
const avatar = { type: ['string', 'null'] } as const;
const interactionUrl = { type: ['string', 'null'], maxLength: 2048, pattern: '^https://' } as const;

export const createSchema = {
  type: 'object',
  properties: { name: webhookName, avatar, interaction_url: interactionUrl },
  required: ['name'],
  additionalProperties: false,
} as const;
export const updateSchema = {
  type: 'object',
  properties: { name: webhookName, avatar, channel_id: snowflakeSchema, interaction_url: interactionUrl },
  additionalProperties: false,
} as const;
/** The token routes cannot move a webhook. */
export const tokenUpdateSchema = { type: 'object', properties: { name: webhookName, avatar, interaction_url: interactionUrl }, additionalProperties: false } as const;

const { nonce: _nonce, message_reference: _reference, ...sendFields } = sendSchema.properties;
/** A send's fields (replies and nonces aside, as in the widely used API) plus the webhook's name and avatar overrides. */
export const executeSchema = {
  type: 'object',
  properties: { ...sendFields, username: nameSchema(1, 80), avatar_url: { type: 'string', maxLength: 2048, pattern: '^https?://' } },
} as const;
export const executeQuery = { type: 'object', properties: { wait: { type: 'boolean', default: false }, thread_id: snowflakeSchema } } as const;
export const codehostHeaders = {
  type: 'object',
  properties: { 'x-codehost-event': { type: 'string', minLength: 1, maxLength: 64 }, 'x-codehost-delivery': { type: 'string', minLength: 1, maxLength: 128 } },
  required: ['x-codehost-event'],
} as const;
export const interactionsQuery = { type: 'object', properties: { limit: pageLimit(100, 50), before: snowflakeSchema } } as const;

export const webhookParams = { type: 'object', properties: { webhookId: snowflakeSchema }, required: ['webhookId'] } as const;
export const tokenParams = {
  type: 'object',
  properties: { webhookId: snowflakeSchema, token: { type: 'string', minLength: 1, maxLength: 200 } },
  required: ['webhookId', 'token'],
} as const;

/** Threads are not part of this service: a webhook posts in its own channel. */
const invalidThread = () => invalidForm([{ path: 'thread_id', message: 'Threads are not supported' }]);

/** An adapter's body: JSON, or (as code hosts and chat services may also send) a form whose `payload` field holds it. */
function adapterBody(ctx: Context): unknown {
  const body = ctx.request.body;
  if (!(body instanceof NonJsonBody)) return body;
  if (typeof body.fields.payload !== 'string') throw unsupportedMediaType(body.type);
  return parseJsonText(body.fields.payload, 'The payload field');
}

export function webhookRoutes(deps: HttpDeps): Router {
  const router = new Router();
  const policy: OutboundPolicy = { allowPrivate: deps.config.interactionsAllowPrivate, checkUrl: deps.checkOutboundUrl };

  /** Webhook objects of the widely used API, token and execute URL included (only managers and token holders see them). */
  async function present(docs: WebhookDoc[], withCreator: boolean) {
    const creators = withCreator ? await usersById(deps.readStore, docs.map((d) => d.creator_id)) : new Map();
    return docs.map((doc) => {
      const token = openToken(deps, doc);
      const creator = creators.get(doc.creator_id);
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
        url: `${deps.config.publicBaseUrl}/api/v1/webhooks/${doc._id}/${token}`,
      };
    });
  }
  /** One webhook as the read model has it after the request's own write. */
  async function presentOne(webhookId: string, withCreator: boolean) {
    const doc = await webhookById(deps.readStore, webhookId);
    if (!doc) throw unknownWebhook();
    return (await present([doc], withCreator))[0];
  }
  const list = async (of: WebhookScope) => present(await webhooksOf(deps.readStore, of), true);

  const avatarOf = async (value: string | null | undefined) => (value ? deps.images.parseDataUri(value, 'avatar') : (value as null | undefined));
  const inputOf = async (body: { name?: string; avatar?: string | null; channel_id?: string; interaction_url?: string | null }): Promise<WebhookInput> => ({
    ...body,
    avatar: await avatarOf(body.avatar),
  });

  router.post('/channels/:channelId/webhooks', async (ctx) => {
    const { channelId } = parseBody(channelParams, ctx.params);
    const body = parseBody(createSchema, ctx.request.body);
    const input = await inputOf(body);
    const webhookId = await createWebhook(deps, actorMeta(ctx), channelId, { ...input, name: input.name! }, policy);
    ctx.body = await presentOne(webhookId, true);
  });

  router.get('/channels/:channelId/webhooks', async (ctx) => {
    const { channelId } = parseBody(channelParams, ctx.params);
    const { permissions } = await channelAccess(deps, channelId, requireAuth(ctx).userId);
    requirePermission(permissions, Permission.MANAGE_WEBHOOKS);
    ctx.body = await list({ channel_id: channelId });
  });

  router.get('/guilds/:guildId/webhooks', async (ctx) => {
    const { guildId } = parseBody(guildParams, ctx.params);
    const { permissions } = await guildAccess(deps, guildId, requireAuth(ctx).userId);
    requirePermission(permissions, Permission.MANAGE_WEBHOOKS);
    ctx.body = await list({ guild_id: guildId });
  });

  const managed = (ctx: Context) => managedWebhook(deps, parseBody(webhookParams, ctx.params).webhookId, requireAuth(ctx).userId);

  router.get('/webhooks/:webhookId', async (ctx) => {
    ctx.body = await presentOne((await managed(ctx)).id, true);
  });

  router.patch('/webhooks/:webhookId', async (ctx) => {
    const webhook = await managed(ctx);
    await updateWebhook(deps, actorMeta(ctx), webhook, await inputOf(parseBody(updateSchema, ctx.request.body)), policy);
    ctx.body = await presentOne(webhook.id, true);
  });

  router.delete('/webhooks/:webhookId', async (ctx) => {
    await deleteWebhook(deps, actorMeta(ctx), await managed(ctx));
    noContent(ctx);
  });

  // Registered before the token routes, whose :token would match "interactions".
  router.get('/webhooks/:webhookId/interactions', async (ctx) => {
    const webhook = await managed(ctx);
    const query = parseQuery(interactionsQuery, ctx.query);
    const docs = await interactionsOfWebhook(deps.readStore, webhook.id, query.before, query.limit);
    ctx.body = docs.map(interactionObject);
  });

  const byToken = (ctx: Context) => {
    const { webhookId, token } = parseBody(tokenParams, ctx.params);
    return webhookByToken(deps, webhookId, token);
  };
  /** Token routes act as the webhook, not as a user: their events name no actor. */
  const tokenMeta = (ctx: Context) => ({ ...requestMeta(ctx), actorId: null });

  router.get('/webhooks/:webhookId/:token', async (ctx) => {
    ctx.body = await presentOne((await byToken(ctx)).webhook.id, false);
  });

  router.patch('/webhooks/:webhookId/:token', async (ctx) => {
    const { webhook } = await byToken(ctx);
    await updateWebhook(deps, tokenMeta(ctx), webhook, await inputOf(parseBody(tokenUpdateSchema, ctx.request.body)), policy);
    ctx.body = await presentOne(webhook.id, false);
  });

  router.delete('/webhooks/:webhookId/:token', async (ctx) => {
    await deleteWebhook(deps, tokenMeta(ctx), (await byToken(ctx)).webhook);
    noContent(ctx);
  });

  /** Posts the message as the webhook the path's token opened; 204, or 200 with the message when ?wait=true. */
  async function execute(ctx: Context, opened: Awaited<ReturnType<typeof byToken>>, input: ExecuteInput, files: Parameters<typeof executeWebhook>[4], options?: ExecuteOptions) {
    const { wait, thread_id } = parseQuery(executeQuery, ctx.query);
    if (thread_id) throw invalidThread();
    const doc = await executeWebhook(deps, tokenMeta(ctx), opened, input, files, options);
    if (!wait) return noContent(ctx);
    ctx.body = messageObject(doc, { origin: deps.config.publicBaseUrl });
  }

  router.post('/webhooks/:webhookId/:token', async (ctx) => {
    // The token is checked before the body is read: a stranger's upload is never parsed.
    const opened = await byToken(ctx);
    const { payload, files } = await readMessageBody(ctx, deps.config.jsonBodyLimit, deps.images);
    await execute(ctx, opened, parseBody(executeSchema, payload), files);
  });

  router.post('/webhooks/:webhookId/:token/github', async (ctx) => {
    const headers = parseBody(codehostHeaders, ctx.headers);
    const message = renderCodehostEvent(headers['x-codehost-event'], adapterBody(ctx));
    const opened = await byToken(ctx);
    // Events that are not rendered (ping, unknown events) are accepted and post nothing, as code hosts expect.
    if (!message) return noContent(ctx);
    await execute(ctx, opened, message, [], { deliveryId: headers['x-codehost-delivery'] });
  });

  router.post('/webhooks/:webhookId/:token/slack', async (ctx) => {
    const message = slackMessage(adapterBody(ctx));
    await execute(ctx, await byToken(ctx), message, []);
    if (ctx.status === 204) {
      // Slack's incoming webhooks answer 200 "ok", which its clients check for.
      ctx.status = 200;
      ctx.type = 'text/plain';
      ctx.body = 'ok';
    }
  });

  return router;
}
