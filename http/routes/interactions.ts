// Interactions from the client side and the bot's answer: a logged-in person clicks a button or submits a select menu
// on a message (POST /interactions/click), or invokes an application's command, asks for its autocomplete choices or
// submits a modal (POST /interactions); each is checked and recorded (204), then delivered asynchronously (to a
// webhook's interaction_url, or to the bot's gateway sessions as INTERACTION_CREATE). The bot answers with the
// interaction's token (POST /interactions/:id/:token/callback); a modal or choices go to the user's sessions.
import { InteractionCallback } from '../../contracts/commands.js';
import type { Context, Next } from 'koa';
import { type CreatedInteraction, invokeCommand, submitModal } from '../../commands/commandInteractions.js';
import { type EndpointDelivery, deliverToEndpoint } from '../../commands/interactionEndpoint.js';
import { type ResponseInput, checkCallbackToken, respondToInteraction } from '../../commands/interactionResponses.js';
import { clickComponent } from '../../commands/interactions.js';
import { MAX_CHOICES } from '../../domain/applicationCommand.js';
import { InteractionCallbackType, TEXT_INPUT_MAX_LENGTH, type TextInput } from '../../domain/commandInteraction.js';
import { DomainError, invalidForm } from '../../domain/errors.js';
import { applicationIdFor } from '../../projections/applications.queries.js';
import { interactionCallbackObject } from '../../presenters/interactions.js';
import { actorMeta } from '../actor.js';
import { requireSession } from '../auth.js';
import { type HttpDeps, noContent, requestMeta } from '../context.js';
import { messageBodyOf, readMessageBody } from '../multipart.js';
import type { LimitSpec } from '../rateLimit.js';
import { passOn, route } from '../route.js';
import { choiceSchema } from '../shared/applicationCommands.js';
import { parseEdit, postedMessageFields } from '../shared/messages.js';
import { parseBody, snowflakeSchema } from '../validation.js';

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

/** Where a user's interaction happens, and the nonce and session id its client sends beside it. */
const placeProperties = {
  application_id: snowflakeSchema,
  guild_id: snowflakeSchema,
  channel_id: snowflakeSchema,
  nonce: { type: ['string', 'integer'], maxLength: 25 },
  session_id: { type: 'string', maxLength: 128 },
} as const;
const invocationData = {
  type: 'object',
  properties: {
    id: snowflakeSchema,
    name: { type: 'string', minLength: 1, maxLength: 32 },
    type: { type: 'integer', enum: [1, 2, 3] },
    options: { type: 'array', maxItems: 25, items: groupOption },
    target_id: snowflakeSchema,
  },
  required: ['id', 'name'],
} as const;
/** An invocation (type 2), or an autocomplete (type 4), whose options are partial with one focused. */
const invocationOf = <const T extends number>(type: T) =>
  ({
    type: 'object',
    properties: { type: { type: 'integer', enum: [type] }, ...placeProperties, data: invocationData },
    required: ['type', 'application_id', 'channel_id', 'data'],
    additionalProperties: false,
  }) as const;

/**
 * The widely used API's invocation of an application command (type 2). Its clients also send the command's version
 * and attachments in `data`, and a nonce and session id beside it: accepted, the nonce given back with a modal or choices.
 */
export const invokeSchema = invocationOf(2);
export const autocompleteSchema = invocationOf(4);

/** A modal submitted (type 5): `data.id` names the interaction that showed it, the rows hold each text input's value. */
export const modalSubmitSchema = {
  type: 'object',
  properties: {
    type: { type: 'integer', enum: [5] },
    ...placeProperties,
    data: {
      type: 'object',
      properties: {
        id: snowflakeSchema,
        custom_id: { type: 'string', minLength: 1, maxLength: 100 },
        components: {
          type: 'array',
          maxItems: 5,
          items: {
            type: 'object',
            properties: {
              type: { type: 'integer', enum: [1] },
              components: {
                type: 'array',
                maxItems: 1,
                items: {
                  type: 'object',
                  properties: {
                    type: { type: 'integer', enum: [4] },
                    custom_id: { type: 'string', minLength: 1, maxLength: 100 },
                    value: { type: 'string', maxLength: TEXT_INPUT_MAX_LENGTH },
                  },
                  required: ['custom_id', 'value'],
                  additionalProperties: false,
                },
              },
            },
            required: ['components'],
            additionalProperties: false,
          },
        },
      },
      required: ['id', 'custom_id', 'components'],
      additionalProperties: false,
    },
  },
  required: ['type', 'application_id', 'channel_id', 'data'],
  additionalProperties: false,
} as const;

export const callbackParams = {
  type: 'object',
  properties: { interactionId: snowflakeSchema, token: { type: 'string', minLength: 1, maxLength: 200 } },
  required: ['interactionId', 'token'],
} as const;
/** The responses this service takes: 4 a message, 5 a deferred one, 6 a deferred update, 7 an update, 8 choices, 9 a modal. */
export const callbackSchema = {
  type: 'object',
  properties: { type: { type: 'integer', enum: Object.values(InteractionCallbackType) }, data: { type: ['object', 'null'] } },
  required: ['type'],
} as const;
export const callbackQuery = { type: 'object', properties: { with_response: { type: 'boolean', default: false } } } as const;

/** A response's message: a send's fields, replies and nonces aside. */
const responseMessageSchema = { type: 'object', properties: postedMessageFields } as const;
const deferSchema = { type: 'object', properties: { flags: postedMessageFields.flags } } as const;

/** A modal's text input (type 4), with the widely used API's bounds. */
const textInputSchema = {
  type: 'object',
  properties: {
    type: { type: 'integer', enum: [4] },
    id: { type: 'integer', minimum: 0 },
    custom_id: { type: 'string', minLength: 1, maxLength: 100 },
    style: { type: 'integer', enum: [1, 2] },
    label: { type: 'string', minLength: 1, maxLength: 45 },
    min_length: { type: 'integer', minimum: 0, maximum: TEXT_INPUT_MAX_LENGTH },
    max_length: { type: 'integer', minimum: 1, maximum: TEXT_INPUT_MAX_LENGTH },
    required: { type: 'boolean' },
    value: { type: 'string', maxLength: TEXT_INPUT_MAX_LENGTH },
    placeholder: { type: 'string', maxLength: 100 },
  },
  required: ['type', 'custom_id', 'style', 'label'],
  additionalProperties: false,
} as const;
/** A modal (response 9): 1 to 5 action rows of one text input each. */
export const modalSchema = {
  type: 'object',
  properties: {
    custom_id: { type: 'string', minLength: 1, maxLength: 100 },
    title: { type: 'string', minLength: 1, maxLength: 45 },
    components: {
      type: 'array',
      minItems: 1,
      maxItems: 5,
      items: {
        type: 'object',
        properties: {
          type: { type: 'integer', enum: [1] },
          id: { type: 'integer', minimum: 0 },
          components: { type: 'array', minItems: 1, maxItems: 1, items: textInputSchema },
        },
        required: ['type', 'components'],
        additionalProperties: false,
      },
    },
  },
  required: ['custom_id', 'title', 'components'],
  additionalProperties: false,
} as const;
/** Autocomplete choices (response 8): at most 25, each as a command option's choice. */
const choicesSchema = {
  type: 'object',
  properties: { choices: { type: 'array', maxItems: MAX_CHOICES, items: choiceSchema } },
  required: ['choices'],
  additionalProperties: false,
} as const;

/** Checks `data` with `parse`, reporting its problems under data. */
function parseData<T>(parse: (data: unknown) => T, data: unknown): T {
  try {
    return parse(data ?? {});
  } catch (error) {
    if (error instanceof DomainError && error.errors) throw invalidForm(error.errors.map((e) => ({ ...e, path: `data.${e.path}` })));
    throw error;
  }
}

/** Drops the component ids a modal may carry (the widely used API's optional `id`): nothing reads them. */
const withoutIds = <T extends { id?: number }>({ id: _id, ...rest }: T): Omit<T, 'id'> => rest;

/**
 * The response's data as the use case takes it: a message for 4, its flags for 5, an edit for 7, nothing for 6, the
 * modal for 9, the choices for 8. Exported for whatever else receives a bot's response (an interactions endpoint's
 * answer), so that it is read as the callback reads it and handed to the same respondToInteraction.
 */
export function responseInput(type: InteractionCallbackType, data: unknown): ResponseInput {
  switch (type) {
    case InteractionCallbackType.CHANNEL_MESSAGE_WITH_SOURCE:
      return {
        type,
        data: parseData((d) => {
          const { content, ...message } = parseBody(responseMessageSchema, d);
          return { ...message, content: content ?? undefined };
        }, data),
      };
    case InteractionCallbackType.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE:
      return { type, data: parseData((d) => parseBody(deferSchema, d), data) };
    case InteractionCallbackType.UPDATE_MESSAGE:
      return { type, data: parseData(parseEdit, data) };
    case InteractionCallbackType.MODAL: {
      const modal = parseData((d) => parseBody(modalSchema, d), data);
      const rows = modal.components.map((row) => ({ type: 1 as const, components: [withoutIds(row.components[0])] as [TextInput] }));
      return { type, modal: { custom_id: modal.custom_id, title: modal.title, components: rows } };
    }
    case InteractionCallbackType.APPLICATION_COMMAND_AUTOCOMPLETE_RESULT:
      return { type, choices: parseData((d) => parseBody(choicesSchema, d), data).choices };
    default:
      return { type };
  }
}

/** A callback's body (JSON, or payload_json), checked, as the use case takes it: the callback route's and an endpoint's answer's. */
export function callbackInput(payload: unknown): ResponseInput {
  const body = parseBody(callbackSchema, payload);
  return responseInput(body.type as InteractionCallbackType, body.data);
}

/** Delivery to an endpoint as this edge does it: its answer is read as a callback's body is (JSON or multipart). */
const endpointDelivery = (deps: HttpDeps): EndpointDelivery => ({
  allowPrivate: deps.config.interactionsAllowPrivate,
  checkUrl: deps.checkOutboundUrl,
  post: deps.postForAnswer,
  origin: deps.config.publicBaseUrl,
  maxBytes: deps.config.jsonBodyLimit,
  async readAnswer(answer) {
    const { payload, files } = await messageBodyOf(answer.contentType, answer.data, deps.config.jsonBodyLimit, deps.images);
    return { input: callbackInput(payload), files };
  },
  metrics: deps.metrics,
});

/** The interaction delivered to its application's endpoint, if it has one, before the invoker is answered. */
const deliver = (ctx: Context, deps: HttpDeps, created: CreatedInteraction) => deliverToEndpoint(deps, endpointDelivery(deps), requestMeta(ctx), created);

const perUser = (bucket: string): LimitSpec => ({
  bucket,
  points: 60,
  durationSeconds: 60,
  key: (ctx) => `${bucket}::${ctx.state.auth?.userId ?? `ip:${ctx.ip}`}`,
});
/** The session is checked before the limit, so that the bucket is the user's. */
const session = () => (ctx: Context, next: Next) => (requireSession(ctx), next());
const recorded = {
  204: {
    description:
      'Checked and recorded; delivered asynchronously on the gateway, or, to an application with an interactions endpoint, delivered and answered before this answer.',
  },
};

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
  errors: [
    'UNKNOWN_CHANNEL',
    'UNKNOWN_MESSAGE',
    'UNKNOWN_COMPONENT',
    'COMPONENT_DISABLED',
    'COMPONENT_NOT_INTERACTIVE',
    'MISSING_PERMISSIONS',
    'MISSING_ACCESS',
    'INTERACTION_FAILED',
  ],
  handle: async (ctx, { body }, deps) => deliver(ctx, deps, await clickComponent(deps, actorMeta(ctx), body)),
});

/** A user's interaction body, read by type: the route names its schema for the reference, the handler parses by it. */
const interactionSchema = { oneOf: [invokeSchema, modalSubmitSchema] } as const;
const bodyType = (ctx: Context) => (ctx.request.body as { type?: unknown } | undefined)?.type;

export const invokeRoute = route({
  method: 'POST',
  path: '/interactions',
  summary: 'Invoke an application command, submit a modal, or ask for autocomplete choices',
  description:
    'Type 2: a slash command, or a user or message command with `data.target_id` (a member of the guild or participant of the DM; a message of the channel the caller can read), of an application whose bot is in the channel’s guild (or DM), checked against the command’s scope and `contexts`, USE_APPLICATION_COMMANDS, `default_member_permissions` and its options. Type 5: a modal the bot showed the caller (`data.id` its interaction), checked against it, once, within its interaction’s 15 minutes. Both delivered to the bot’s gateway sessions as INTERACTION_CREATE with `data.resolved` (or POSTed to its interactions endpoint); 60 per user per minute. Type 4 (autocomplete): the options typed so far with one `focused`, not limited; the bot’s choices reach the caller’s sessions as APPLICATION_COMMAND_AUTOCOMPLETE_RESPONSE.',
  tag: 'Interactions',
  auth: 'session',
  guards: [session],
  body: interactionSchema,
  // One schema per type, so a bad body's paths are those of its own type.
  readsItself: ['body'],
  limits: [perUser('interaction:invoke')],
  responses: recorded,
  errors: [
    'UNKNOWN_CHANNEL',
    'UNKNOWN_APPLICATION_COMMAND',
    'UNKNOWN_INTERACTION',
    'INTERACTION_ALREADY_ACKNOWLEDGED',
    'UNKNOWN_USER',
    'UNKNOWN_MESSAGE',
    'MISSING_ACCESS',
    'MISSING_PERMISSIONS',
    'INTERACTION_FAILED',
  ],
  async handle(ctx, _input, deps) {
    if (bodyType(ctx) === 5) {
      const { application_id, guild_id, channel_id, data, nonce } = parseBody(modalSubmitSchema, ctx.request.body);
      const submit = { application_id: await applicationIdFor(deps.readStore, application_id), guild_id, channel_id, data, nonce };
      return deliver(ctx, deps, await submitModal(deps, actorMeta(ctx), submit));
    }
    const { application_id, guild_id, channel_id, data, nonce } = parseBody(invokeSchema, ctx.request.body);
    const invocation = { application_id: await applicationIdFor(deps.readStore, application_id), guild_id, channel_id, data, nonce };
    return deliver(ctx, deps, await invokeCommand(deps, actorMeta(ctx), invocation));
  },
});

/**
 * Autocomplete (type 4), documented by the invocation whose path it shares: declared first and without its bucket, as
 * a user typing asks for choices far more often than they invoke; any other type goes on to the invocation.
 */
export const autocompleteRoute = route({
  method: 'POST',
  path: '/interactions',
  documentedBy: invokeRoute,
  summary: invokeRoute.summary,
  tag: 'Interactions',
  auth: 'session',
  guards: [session],
  body: autocompleteSchema,
  readsItself: ['body'],
  responses: recorded,
  errors: invokeRoute.errors,
  async handle(ctx, _input, deps) {
    if (bodyType(ctx) !== 4) return passOn;
    const { application_id, guild_id, channel_id, data, nonce } = parseBody(autocompleteSchema, ctx.request.body);
    const input = { application_id: await applicationIdFor(deps.readStore, application_id), guild_id, channel_id, data, nonce };
    return deliver(ctx, deps, await invokeCommand(deps, actorMeta(ctx), input, 'autocomplete'));
  },
});

// The token is the credential: no Authorization header is needed. 204, or 200 with the callback and its message.
export const callbackRoute = route({
  method: 'POST',
  path: '/interactions/:interactionId/:token/callback',
  summary: 'Respond to an interaction',
  description:
    'Once, within 15 minutes: 4 a message, 5 a deferred message, 6 a deferred update and 7 an update of the component’s message, `data` the message (a send’s fields, replies and nonces aside), JSON or multipart; 9 a modal (to a command or a component, not to a modal submit), 8 autocomplete choices (the only answer an autocomplete takes), both sent to the invoking user’s gateway sessions.',
  tag: 'Interactions',
  auth: 'webhook-token',
  params: callbackParams,
  query: callbackQuery,
  body: callbackSchema,
  multipart: true,
  // JSON or multipart, read once the token is known to be the interaction's.
  readsItself: ['body'],
  responses: {
    200: { description: 'With ?with_response=true: the callback and its message.', schema: InteractionCallback },
    204: { description: 'Responded.' },
  },
  errors: ['UNKNOWN_INTERACTION', 'INVALID_WEBHOOK_TOKEN', 'INTERACTION_ALREADY_ACKNOWLEDGED', 'CANNOT_SEND_EMPTY_MESSAGE'],
  async handle(ctx, { params: { interactionId, token }, query: { with_response } }, deps) {
    await checkCallbackToken(deps, interactionId, token);
    const { payload, files } = await readMessageBody(ctx, deps.config.jsonBodyLimit, deps.images);
    const input = callbackInput(payload);
    const responded = await respondToInteraction(deps, requestMeta(ctx), interactionId, token, input, files);
    if (!with_response) return noContent(ctx);
    return interactionCallbackObject(responded.interaction, responded.responseType, responded.message, deps.config.publicBaseUrl);
  },
});

export const interactionRoutes = [clickRoute, autocompleteRoute, invokeRoute, callbackRoute];
