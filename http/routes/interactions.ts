// Interactions from the client side and the bot's answer: a logged-in person clicks a button or submits a select menu
// on a message (POST /interactions/click), or invokes an application's command (POST /interactions); each is checked
// and recorded (204), then delivered asynchronously (to a webhook's interaction_url, or to the bot's gateway sessions
// as INTERACTION_CREATE). The bot answers with the interaction's token (POST /interactions/:id/:token/callback).
import type { Context, Next } from 'koa';
import { invokeCommand } from '../../commands/commandInteractions.js';
import { type ResponseInput, checkCallbackToken, respondToInteraction } from '../../commands/interactionResponses.js';
import { clickComponent } from '../../commands/interactions.js';
import type { MessageInput } from '../../commands/messages/input.js';
import { InteractionCallbackType } from '../../domain/commandInteraction.js';
import { DomainError, invalidForm } from '../../domain/errors.js';
import { applicationIdFor } from '../../projections/applications.queries.js';
import { interactionCallbackObject } from '../../presenters/interactions.js';
import { actorMeta } from '../actor.js';
import { requireSession } from '../auth.js';
import { noContent, requestMeta } from '../context.js';
import { readMessageBody } from '../multipart.js';
import { ref } from '../openapi/components.js';
import type { LimitSpec } from '../rateLimit.js';
import { route } from '../route.js';
import { parseBody, snowflakeSchema } from '../validation.js';
import { parseEdit, sendSchema } from './messages.js';

export const clickSchema = {
  type: 'object',
  properties: {
    channel_id: snowflakeSchema,
    message_id: snowflakeSchema,
    custom_id: { type: 'string', minLength: 1, maxLength: 100 },
    values: { type: 'array', maxItems: 25, items: { type: 'string', minLength: 1, maxLength: 100 } },
  },
  required: ['channel_id', 'message_id', 'custom_id'],
  additionalProperties: false,
} as const;

/** An option as the widely used API's clients send it; a subcommand group holds subcommands, which hold options. */
const optionFields = {
  name: { type: 'string', minLength: 1, maxLength: 32 },
  type: { type: 'integer', minimum: 1, maximum: 11 },
  value: { type: ['string', 'number', 'boolean'] },
  focused: { type: 'boolean' },
} as const;
/** An option holding `items` under it: a subcommand its options, a group its subcommands. */
const holding = <const Items>(items: Items) =>
  ({
    type: 'object',
    properties: { ...optionFields, options: { type: 'array', maxItems: 25, items } },
    required: ['name'],
    additionalProperties: false,
  }) as const;
const valueOption = { type: 'object', properties: optionFields, required: ['name'], additionalProperties: false } as const;
const groupOption = holding(holding(valueOption));

/**
 * The widely used API's invocation of an application command (type 2). Its clients also send the command's version
 * and attachments in `data`, and a nonce and session id beside it: accepted and not used.
 */
export const invokeSchema = {
  type: 'object',
  properties: {
    type: { type: 'integer', enum: [2] },
    application_id: snowflakeSchema,
    guild_id: snowflakeSchema,
    channel_id: snowflakeSchema,
    data: {
      type: 'object',
      properties: {
        id: snowflakeSchema,
        name: { type: 'string', minLength: 1, maxLength: 32 },
        type: { type: 'integer', enum: [1, 2, 3] },
        options: { type: 'array', maxItems: 25, items: groupOption },
        target_id: snowflakeSchema,
      },
      required: ['id', 'name'],
    },
    nonce: { type: ['string', 'integer'], maxLength: 25 },
    session_id: { type: 'string', maxLength: 128 },
  },
  required: ['type', 'application_id', 'channel_id', 'data'],
  additionalProperties: false,
} as const;

export const callbackParams = {
  type: 'object',
  properties: { interactionId: snowflakeSchema, token: { type: 'string', minLength: 1, maxLength: 200 } },
  required: ['interactionId', 'token'],
} as const;
/** The responses this service takes: 4 a message, 5 a deferred one, 6 a deferred update, 7 an update (no modals, no autocomplete). */
export const callbackSchema = {
  type: 'object',
  properties: { type: { type: 'integer', enum: Object.values(InteractionCallbackType) }, data: { type: ['object', 'null'] } },
  required: ['type'],
} as const;
export const callbackQuery = { type: 'object', properties: { with_response: { type: 'boolean', default: false } } } as const;

const { nonce: _nonce, message_reference: _reference, ...messageFields } = sendSchema.properties;
/** A response's message: a send's fields, replies and nonces aside. */
const responseMessageSchema = { type: 'object', properties: messageFields } as const;
const deferSchema = { type: 'object', properties: { flags: messageFields.flags } } as const;

/** Checks `data` with `parse`, reporting its problems under data. */
function parseData<T>(parse: (data: unknown) => T, data: unknown): T {
  try {
    return parse(data ?? {});
  } catch (error) {
    if (error instanceof DomainError && error.errors) throw invalidForm(error.errors.map((e) => ({ ...e, path: `data.${e.path}` })));
    throw error;
  }
}

/** The response's data as the use case takes it: a message for 4, its flags for 5, an edit for 7, nothing for 6. */
function responseData(type: InteractionCallbackType, data: unknown): MessageInput | undefined {
  switch (type) {
    case InteractionCallbackType.CHANNEL_MESSAGE_WITH_SOURCE:
      return parseData((d) => {
        const { content, ...message } = parseBody(responseMessageSchema, d);
        return { ...message, content: content ?? undefined };
      }, data);
    case InteractionCallbackType.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE:
      return parseData((d) => parseBody(deferSchema, d), data);
    case InteractionCallbackType.UPDATE_MESSAGE:
      return parseData(parseEdit, data);
    default:
      return undefined;
  }
}

const perUser = (bucket: string): LimitSpec => ({
  bucket,
  points: 60,
  durationSeconds: 60,
  key: (ctx) => `${bucket}::${ctx.state.auth?.userId ?? `ip:${ctx.ip}`}`,
});
/** The session is checked before the limit, so that the bucket is the user's. */
const session = () => (ctx: Context, next: Next) => (requireSession(ctx), next());
const recorded = { 204: { description: 'Checked and recorded; delivered asynchronously.' } };

// The spec: 60 clicks per user per minute, bucket interaction:click::user_id; invocations get a bucket of their own.
export const clickRoute = route({
  method: 'POST',
  path: '/interactions/click',
  summary: 'Click a button or submit a select menu',
  description:
    'On a message the caller can see. Delivered signed to the webhook’s `interaction_url` (retried), or to the bot’s gateway sessions as INTERACTION_CREATE. 60 per user per minute.',
  tag: 'Interactions',
  auth: 'session',
  guards: [session],
  body: clickSchema,
  limits: [perUser('interaction:click')],
  responses: recorded,
  errors: ['UNKNOWN_CHANNEL', 'UNKNOWN_MESSAGE', 'UNKNOWN_COMPONENT', 'COMPONENT_DISABLED', 'COMPONENT_NOT_INTERACTIVE', 'MISSING_PERMISSIONS'],
  handle: (ctx, { body }, deps) => clickComponent(deps, actorMeta(ctx), body),
});

export const invokeRoute = route({
  method: 'POST',
  path: '/interactions',
  summary: 'Invoke an application command',
  description:
    'A slash command, or a user or message command with `data.target_id` (a member of the guild or participant of the DM; a message of the channel the caller can read), of an application whose bot is in the channel’s guild (or DM), checked against the command’s scope and `contexts`, USE_APPLICATION_COMMANDS, `default_member_permissions` and its options; delivered to the bot’s gateway sessions as INTERACTION_CREATE with `data.resolved`. 60 per user per minute.',
  tag: 'Interactions',
  auth: 'session',
  guards: [session],
  body: invokeSchema,
  limits: [perUser('interaction:invoke')],
  responses: recorded,
  errors: ['UNKNOWN_CHANNEL', 'UNKNOWN_APPLICATION_COMMAND', 'UNKNOWN_USER', 'UNKNOWN_MESSAGE', 'MISSING_ACCESS', 'MISSING_PERMISSIONS'],
  handle: async (ctx, { body: { application_id, guild_id, channel_id, data } }, deps) =>
    invokeCommand(deps, actorMeta(ctx), { application_id: await applicationIdFor(deps.readStore, application_id), guild_id, channel_id, data }),
});

// The token is the credential: no Authorization header is needed. 204, or 200 with the callback and its message.
export const callbackRoute = route({
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
  // JSON or multipart, read once the token is known to be the interaction's.
  readsItself: ['body'],
  responses: {
    200: { description: 'With ?with_response=true: the callback and its message.', schema: ref('InteractionCallback') },
    204: { description: 'Responded.' },
  },
  errors: ['UNKNOWN_INTERACTION', 'INVALID_WEBHOOK_TOKEN', 'INTERACTION_ALREADY_ACKNOWLEDGED', 'CANNOT_SEND_EMPTY_MESSAGE'],
  async handle(ctx, { params: { interactionId, token }, query: { with_response } }, deps) {
    await checkCallbackToken(deps, interactionId, token);
    const { payload, files } = await readMessageBody(ctx, deps.config.jsonBodyLimit, deps.images);
    const body = parseBody(callbackSchema, payload);
    const type = body.type as InteractionCallbackType;
    const input: ResponseInput = { type, data: responseData(type, body.data) };
    const responded = await respondToInteraction(deps, requestMeta(ctx), interactionId, token, input, files);
    if (!with_response) return noContent(ctx);
    return interactionCallbackObject(responded.interaction, responded.responseType, responded.message, deps.config.publicBaseUrl);
  },
});

export const interactionRoutes = [clickRoute, invokeRoute, callbackRoute];
