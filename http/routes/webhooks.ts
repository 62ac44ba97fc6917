// Webhook routes of the spec: management with MANAGE_WEBHOOKS (create and list per channel, list per guild, fetch,
// change, delete), the token routes that need no Authorization header (fetch, change, delete, execute), the code-host
// and chat-service adapters, and the deliveries of a webhook's interactions for its managers to read.
import { Message } from '../../contracts/messages.js';
import { InteractionRecord, Webhook } from '../../contracts/webhooks.js';
import { list } from '../../contracts/schema.js';
import type { Context } from 'koa';
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
  readWebhookInteractions,
  readWebhooks,
  updateWebhook,
  webhookByToken,
} from '../../commands/webhooks.js';
import { renderCodehostEvent } from '../../domain/codehost.js';
import { slackMessage } from '../../domain/slack.js';
import { unknownWebhook } from '../../domain/webhook.js';
import type { WebhookDoc } from '../../projections/webhooks.js';
import { webhookById } from '../../projections/webhooks.queries.js';
import { actorMeta, usersById } from '../actor.js';
import { requireAuth } from '../auth.js';
import { type HttpDeps, noContent, requestMeta } from '../context.js';
import { messageObject } from '../../presenters/messages.js';
import { NonJsonBody, parseJsonText } from '../body.js';
import { unsupportedMediaType } from '../errors.js';
import { readMessageBody } from '../multipart.js';
import { channelParams, guildParams } from '../params.js';
import { interactionObject } from '../../presenters/interactions.js';
import { webhookObject } from '../../presenters/webhooks.js';
import { nameSchema, pageLimit, parseBody, parseQuery, snowflakeSchema } from '../validation.js';
import { route } from '../route.js';
import { postedMessageFields } from '../shared/messages.js';
import { appliedTagsSchema, threadFields } from '../shared/threads.js';
import { executeWebhookOperation, postErrors, postedAnswers } from '../shared/webhooks.js';

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
export const tokenUpdateSchema = {
  type: 'object',
  properties: { name: webhookName, avatar, interaction_url: interactionUrl },
  additionalProperties: false,
} as const;

/** A send's fields (replies and nonces aside, as in the widely used API) plus the webhook's name and avatar overrides. */
export const executeSchema = {
  type: 'object',
  properties: {
    ...postedMessageFields,
    username: nameSchema(1, 80),
    avatar_url: { type: 'string', maxLength: 2048, pattern: '^https?://' },
    // A forum's webhook opens a post (commands/webhooks.ts).
    thread_name: threadFields.name,
    applied_tags: appliedTagsSchema,
  },
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

/** An adapter's body: JSON, or (as code hosts and chat services may also send) a form whose `payload` field holds it. */
function adapterBody(ctx: Context): unknown {
  const body = ctx.request.body;
  if (!(body instanceof NonJsonBody)) return body;
  if (typeof body.fields.payload !== 'string') throw unsupportedMediaType(body.type);
  return parseJsonText(body.fields.payload, 'The payload field');
}

const policyOf = (deps: HttpDeps): OutboundPolicy => ({ allowPrivate: deps.config.interactionsAllowPrivate, checkUrl: deps.checkOutboundUrl });

/** Webhook objects of the widely used API, token and execute URL included (only managers and token holders see them). */
async function present(deps: HttpDeps, docs: WebhookDoc[], withCreator: boolean) {
  const creators = withCreator
    ? await usersById(
        deps.readStore,
        docs.map((d) => d.creator_id),
      )
    : new Map();
  return docs.map((doc) => webhookObject(doc, openToken(deps, doc), deps.config.publicBaseUrl, creators.get(doc.creator_id)));
}

/** One webhook as the read model has it after the request's own write. */
async function presentOne(deps: HttpDeps, webhookId: string, withCreator: boolean) {
  const doc = await webhookById(deps.readStore, webhookId);
  if (!doc) throw unknownWebhook();
  return (await present(deps, [doc], withCreator))[0];
}

const avatarOf = async (deps: HttpDeps, value: string | null | undefined) => (value ? deps.images.parseDataUri(value, 'avatar') : (value as null | undefined));
const inputOf = async (
  deps: HttpDeps,
  body: { name?: string; avatar?: string | null; channel_id?: string; interaction_url?: string | null },
): Promise<WebhookInput> => ({
  ...body,
  avatar: await avatarOf(deps, body.avatar),
});

const managed = (ctx: Context, deps: HttpDeps, webhookId: string) => managedWebhook(deps, webhookId, requireAuth(ctx).userId);

/** The webhook the path's token opens; the adapters read the path only once their body is read. */
const byToken = (ctx: Context, deps: HttpDeps) => {
  const { webhookId, token } = parseBody(tokenParams, ctx.params);
  return webhookByToken(deps, webhookId, token);
};
/** Token routes act as the webhook, not as a user: their events name no actor. */
const tokenMeta = (ctx: Context) => ({ ...requestMeta(ctx), actorId: null });

/** Posts the message as the webhook the path's token opened; 204, or 200 with the message when ?wait=true. */
async function execute(
  ctx: Context,
  deps: HttpDeps,
  opened: Awaited<ReturnType<typeof byToken>>,
  input: ExecuteInput,
  files: Parameters<typeof executeWebhook>[4],
  options?: ExecuteOptions,
) {
  const { wait, thread_id } = parseQuery(executeQuery, ctx.query);
  const doc = await executeWebhook(deps, tokenMeta(ctx), opened, input, files, { ...options, threadId: thread_id });
  if (!wait) return noContent(ctx);
  ctx.body = messageObject(doc, { origin: deps.config.publicBaseUrl });
}

const webhook = { description: 'The webhook.', schema: Webhook };
const withToken = { description: 'The webhook, without its creator.', schema: Webhook };
const MANAGE = 'Needs MANAGE_WEBHOOKS in its channel; to others the webhook is unknown.';
/** The adapters' payloads are the sender's own formats, read by domain/codehost.ts and domain/slack.ts, not a schema. */
const adapterPayload = { type: 'object', description: 'The service’s own event payload.' } as const;
const managing = { tag: 'Webhooks', auth: 'any' } as const;
// The token is the credential: it is checked before the body is read, so a stranger's upload is never parsed.
const tokened = { tag: 'Webhooks', auth: 'webhook-token', params: tokenParams } as const;
/** The executions read their path, body and query themselves, in the order that keeps a stranger's body unread. */
const executing = { ...tokened, query: executeQuery, readsItself: ['params', 'query', 'body'] } as const;

export const createWebhookRoute = route({
  ...managing,
  method: 'POST',
  path: '/channels/:channelId/webhooks',
  summary: 'Create a webhook',
  description:
    'Needs MANAGE_WEBHOOKS; text, announcement, forum and media channels only. `avatar` is a data URI; `interaction_url` (https) receives the clicks on its messages’ components.',
  params: channelParams,
  body: createSchema,
  audit: 'WEBHOOK_CREATE',
  responses: { 200: webhook },
  errors: ['UNKNOWN_CHANNEL', 'MISSING_PERMISSIONS', 'MAXIMUM_WEBHOOKS'],
  async handle(ctx, { params: { channelId }, body }, deps) {
    const input = await inputOf(deps, body);
    const webhookId = await createWebhook(deps, actorMeta(ctx), channelId, { ...input, name: input.name! }, policyOf(deps));
    return presentOne(deps, webhookId, true);
  },
});

export const channelWebhooksRoute = route({
  ...managing,
  method: 'GET',
  path: '/channels/:channelId/webhooks',
  summary: 'List a channel’s webhooks',
  description: 'Needs MANAGE_WEBHOOKS.',
  params: channelParams,
  responses: { 200: { description: 'The webhooks.', schema: list(Webhook) } },
  errors: ['UNKNOWN_CHANNEL', 'MISSING_PERMISSIONS'],
  handle: async (ctx, { params: { channelId } }, deps) => present(deps, await readWebhooks(deps, { channel_id: channelId }, requireAuth(ctx).userId), true),
});

export const guildWebhooksRoute = route({
  ...managing,
  method: 'GET',
  path: '/guilds/:guildId/webhooks',
  summary: 'List a guild’s webhooks',
  description: 'Needs MANAGE_WEBHOOKS.',
  params: guildParams,
  responses: { 200: { description: 'The webhooks.', schema: list(Webhook) } },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  handle: async (ctx, { params: { guildId } }, deps) => present(deps, await readWebhooks(deps, { guild_id: guildId }, requireAuth(ctx).userId), true),
});

export const getWebhookRoute = route({
  ...managing,
  method: 'GET',
  path: '/webhooks/:webhookId',
  summary: 'Get a webhook',
  description: MANAGE,
  params: webhookParams,
  responses: { 200: webhook },
  errors: ['UNKNOWN_WEBHOOK', 'MISSING_PERMISSIONS'],
  handle: async (ctx, { params }, deps) => presentOne(deps, (await managed(ctx, deps, params.webhookId)).id, true),
});

export const updateWebhookRoute = route({
  ...managing,
  method: 'PATCH',
  path: '/webhooks/:webhookId',
  summary: 'Change a webhook',
  description: `${MANAGE} \`channel_id\` moves it within its guild.`,
  params: webhookParams,
  body: updateSchema,
  readsItself: ['body'],
  audit: 'WEBHOOK_UPDATE',
  responses: { 200: webhook },
  errors: ['UNKNOWN_WEBHOOK', 'UNKNOWN_CHANNEL', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params }, deps) {
    // Only a manager's body is read: to others the webhook is unknown.
    const webhook = await managed(ctx, deps, params.webhookId);
    await updateWebhook(deps, actorMeta(ctx), webhook, await inputOf(deps, parseBody(updateSchema, ctx.request.body)), policyOf(deps));
    return presentOne(deps, webhook.id, true);
  },
});

export const deleteWebhookRoute = route({
  ...managing,
  method: 'DELETE',
  path: '/webhooks/:webhookId',
  summary: 'Delete a webhook',
  description: MANAGE,
  params: webhookParams,
  audit: 'WEBHOOK_DELETE',
  responses: { 204: { description: 'Deleted.' } },
  errors: ['UNKNOWN_WEBHOOK', 'MISSING_PERMISSIONS'],
  handle: async (ctx, { params }, deps) => deleteWebhook(deps, actorMeta(ctx), await managed(ctx, deps, params.webhookId)),
});

// Declared before the token routes, whose :token would match "interactions".
export const webhookInteractionsRoute = route({
  ...managing,
  method: 'GET',
  path: '/webhooks/:webhookId/interactions',
  summary: 'List the clicks on a webhook’s messages',
  description: `${MANAGE} Newest first, each with its delivery attempts.`,
  tag: 'Interactions',
  params: webhookParams,
  query: interactionsQuery,
  readsItself: ['query'],
  responses: { 200: { description: 'The clicks.', schema: list(InteractionRecord) } },
  errors: ['UNKNOWN_WEBHOOK', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params }, deps) {
    // Only a manager's query is read: to others the webhook is unknown.
    const page = () => parseQuery(interactionsQuery, ctx.query);
    return (await readWebhookInteractions(deps, params.webhookId, requireAuth(ctx).userId, page)).map(interactionObject);
  },
});

export const getWebhookWithTokenRoute = route({
  ...tokened,
  method: 'GET',
  path: '/webhooks/:webhookId/:token',
  summary: 'Get a webhook with its token',
  responses: { 200: withToken },
  errors: ['UNKNOWN_WEBHOOK', 'INVALID_WEBHOOK_TOKEN'],
  handle: async (ctx, _input, deps) => presentOne(deps, (await byToken(ctx, deps)).webhook.id, false),
});

export const updateWebhookWithTokenRoute = route({
  ...tokened,
  method: 'PATCH',
  path: '/webhooks/:webhookId/:token',
  summary: 'Change a webhook with its token',
  description: 'The token cannot move the webhook to another channel.',
  body: tokenUpdateSchema,
  readsItself: ['body'],
  audit: 'WEBHOOK_UPDATE',
  responses: { 200: withToken },
  errors: ['UNKNOWN_WEBHOOK', 'INVALID_WEBHOOK_TOKEN'],
  async handle(ctx, _input, deps) {
    const { webhook } = await byToken(ctx, deps);
    await updateWebhook(deps, tokenMeta(ctx), webhook, await inputOf(deps, parseBody(tokenUpdateSchema, ctx.request.body)), policyOf(deps));
    return presentOne(deps, webhook.id, false);
  },
});

export const deleteWebhookWithTokenRoute = route({
  ...tokened,
  method: 'DELETE',
  path: '/webhooks/:webhookId/:token',
  summary: 'Delete a webhook with its token',
  audit: 'WEBHOOK_DELETE',
  responses: { 204: { description: 'Deleted.' } },
  errors: ['UNKNOWN_WEBHOOK', 'INVALID_WEBHOOK_TOKEN'],
  handle: async (ctx, _input, deps) => deleteWebhook(deps, tokenMeta(ctx), (await byToken(ctx, deps)).webhook),
});

/**
 * POST /webhooks/{id}/{token} is also where an interaction's follow-ups go (http/routes/interactionWebhooks.ts answers
 * it first when the token is an interaction's): one path, one entry.
 */
export const executeWebhookRoute = route({
  ...executing,
  ...executeWebhookOperation,
  description:
    'Posts a message as the webhook (`username` and `avatar_url` override its name and avatar for this message). With an application’s id and an interaction’s token in the path instead, it sends a follow-up to that interaction (`username` and `avatar_url` are ignored there). `thread_id` posts in a thread of the webhook’s channel (unarchiving it, unless it is locked). A forum’s or media channel’s webhook posts with `thread_id` in one of its posts, or opens a post with `thread_name` (and `applied_tags`, none moderated), its message the first; the post is the webhook’s (`owner_id`), which joins no one.',
  body: executeSchema,
  multipart: true,
  async handle(ctx, _input, deps) {
    const opened = await byToken(ctx, deps);
    const { payload, files } = await readMessageBody(ctx, deps.config.jsonBodyLimit, deps.images);
    await execute(ctx, deps, opened, parseBody(executeSchema, payload), files);
  },
});

export const codehostRoute = route({
  ...executing,
  method: 'POST',
  path: '/webhooks/:webhookId/:token/github',
  summary: 'Post a code-host event',
  description:
    'Renders the event named by `X-Codehost-Event` (push, pull request, issues…) as a message; events it does not render (ping, unknown ones) are accepted and post nothing. A repeated `X-Codehost-Delivery` is ignored. The body is JSON, or a form whose `payload` holds it.',
  headers: codehostHeaders,
  body: adapterPayload,
  form: true,
  responses: postedAnswers,
  errors: postErrors,
  async handle(ctx, _input, deps) {
    const headers = parseBody(codehostHeaders, ctx.headers);
    const message = renderCodehostEvent(headers['x-codehost-event'], adapterBody(ctx));
    const opened = await byToken(ctx, deps);
    // Events that are not rendered (ping, unknown events) are accepted and post nothing, as code hosts expect.
    if (!message) return noContent(ctx);
    await execute(ctx, deps, opened, message, [], { deliveryId: headers['x-codehost-delivery'], service: true });
  },
});

export const slackRoute = route({
  ...executing,
  method: 'POST',
  path: '/webhooks/:webhookId/:token/slack',
  summary: 'Post a chat-service message',
  description:
    'Takes the chat service’s incoming-webhook message (`text`, `attachments`, `username`, `icon_url`…) as JSON, or a form whose `payload` holds it.',
  body: adapterPayload,
  form: true,
  responses: {
    200: {
      description: '`ok` as plain text (what the chat service answers), or with ?wait=true the message posted.',
      content: { 'text/plain': { const: 'ok' }, 'application/json': Message },
    },
  },
  errors: postErrors,
  async handle(ctx, _input, deps) {
    const message = slackMessage(adapterBody(ctx));
    await execute(ctx, deps, await byToken(ctx, deps), message, [], { service: true });
    if (ctx.status === 204) {
      // Slack's incoming webhooks answer 200 "ok", which its clients check for.
      ctx.status = 200;
      ctx.type = 'text/plain';
      ctx.body = 'ok';
    }
  },
});

export const webhookRoutes = [
  createWebhookRoute,
  channelWebhooksRoute,
  guildWebhooksRoute,
  getWebhookRoute,
  updateWebhookRoute,
  deleteWebhookRoute,
  webhookInteractionsRoute,
  getWebhookWithTokenRoute,
  updateWebhookWithTokenRoute,
  deleteWebhookWithTokenRoute,
  executeWebhookRoute,
  codehostRoute,
  slackRoute,
];
