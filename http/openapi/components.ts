// The named objects of the reference that have no contract yet (contracts/ declares the others, from which the
// reference, the routes' handler types and the conformance test all read), written here by hand with the fields
// clients read; the objects may carry more (clients of the widely used API ignore what they do not know). Request
// bodies are never described here: their schemas are the routes' own.
import { MAX_SNOWFLAKE } from '../../domain/snowflake.js';
import type { ContractName } from '../../contracts/index.js';
import { Member } from '../../contracts/members.js';
import { Message } from '../../contracts/messages.js';
import { snowflakeSchema } from '../../contracts/schema.js';
import { PartialUser } from '../../contracts/users.js';
import type { Schema } from './entry.js';

const string = { type: 'string' } as const;
const integer = { type: 'integer' } as const;
const boolean = { type: 'boolean' } as const;
const id = snowflakeSchema;
/** Timestamps as the widely used API writes them: 2026-01-01T00:00:00.000000+00:00. */
const timestamp = { type: 'string', format: 'date-time' } as const;
const nullable = (schema: Schema): Schema => ({ ...schema, type: [schema.type as string, 'null'] });
const ids = { type: 'array', items: id } as const;
const list = (items: Schema) => ({ type: 'array', items }) as const;

/** An object whose `required` fields are always there and `optional` ones only sometimes. */
function object(description: string, required: Record<string, Schema>, optional: Record<string, Schema> = {}): Schema {
  return { type: 'object', description, properties: { ...required, ...optional }, required: Object.keys(required) };
}

export const COMPONENTS = {
  // The routes' ids, bitfields and timestamps point at these instead of repeating the exact patterns ajv checks, which
  // are too long to read (an id's spells out 0..2^64-1 digit by digit in some 400 characters): see document.ts.
  Snowflake: {
    type: 'string',
    pattern: '^[0-9]{1,20}$',
    description: `An id (a snowflake), or a permission bitfield: a 64-bit unsigned integer as a decimal string, 0 to ${MAX_SNOWFLAKE}. The pattern shown is the short form: a value above ${MAX_SNOWFLAKE} is refused too.`,
    examples: ['1234567890123456789'],
  },
  Timestamp: {
    type: 'string',
    format: 'date-time',
    description:
      'An RFC 3339 timestamp with seconds and an offset (`Z`, or `+hh:mm`): `2026-01-01T00:00:00.000000+00:00`. A leap second (`23:59:60`) or an offset of hours alone is refused.',
  },
  Error: object(
    'The spec’s error body. `errors` comes with INVALID_FORM_BODY, one entry per problem at its path in dot/index notation (`_root` for the body itself). Under `/api/v9` and `/api/v10`, `code` is the widely used API’s number instead (10008 for UNKNOWN_MESSAGE; 0, its general error, where it has none) and `errors` is nested by path.',
    { code: string, message: string },
    { errors: list(object('One problem with the request.', { path: string, message: string })) },
  ),
  RateLimitError: object('A 429’s body: how long to wait, in seconds. There is no global limit.', {
    code: { type: 'string', enum: ['RATE_LIMITED', 'IMAGE_QUEUE_FULL', 'SLOWMODE_RATE_LIMITED'] },
    message: string,
    retry_after: { type: 'number' },
    global: { const: false },
  }),
  Session: object('A session token for the `Bearer` scheme.', { token: string, user_id: id }),
  Application: object(
    'An application in the widely used API’s shape; `verify_key` is empty (deliveries are signed with the webhook token’s HMAC).',
    {
      id,
      name: string,
      icon: nullable(string),
      description: string,
      owner_id: id,
      client_id: id,
      verify_key: string,
      flags: integer,
      approximate_guild_count: integer,
      bot_public: boolean,
    },
    { bot: PartialUser, owner: PartialUser },
  ),
  ApplicationWithSecret: object('A new application, with its client secret (shown once).', { id, name: string, client_secret: string }),
  BotUser: object('The application’s new bot user with its token (shown once).', {
    id,
    username: string,
    discriminator: string,
    bot: { const: true },
    token: string,
  }),
  OAuth2Token: object('OAuth2 tokens (RFC 6749 §5.1).', {
    access_token: string,
    token_type: { const: 'Bearer' },
    expires_in: integer,
    refresh_token: string,
    scope: string,
  }),
  OAuth2Error: object('A refusal of the token endpoints (RFC 6749 §5.2), which OAuth2 libraries read.', {
    error: { type: 'string', enum: ['invalid_request', 'invalid_client', 'invalid_grant', 'invalid_scope', 'unsupported_grant_type'] },
    error_description: string,
  }),
  ClientSecret: object('The application’s new OAuth2 client secret (shown once).', { client_secret: string }),
  BotToken: object('The bot’s new token (the old one stops working).', { token: string }),
  Gateway: object('Where to open the WebSocket gateway.', { url: string }),
  GatewayBot: object('The gateway for a bot, with how many sessions it may still start.', {
    url: string,
    shards: integer,
    session_start_limit: object('Session starts left in the window.', { total: integer, remaining: integer, reset_after: integer, max_concurrency: integer }),
  }),
  AutoModerationRule: object('An auto-moderation rule (presenters/autoModeration.ts); trigger_metadata holds its trigger type’s fields.', {
    id,
    guild_id: id,
    name: string,
    creator_id: id,
    event_type: integer,
    trigger_type: integer,
    trigger_metadata: { type: 'object' },
    actions: list(object('An action and its metadata.', { type: integer, metadata: { type: 'object' } })),
    enabled: boolean,
    exempt_roles: ids,
    exempt_channels: ids,
  }),
  Thread: object(
    'A thread channel (presenters/threads.ts): public (11), private (12) or announcement (10), under its parent.',
    {
      id,
      type: integer,
      guild_id: id,
      parent_id: id,
      owner_id: id,
      name: string,
      rate_limit_per_user: integer,
      message_count: integer,
      member_count: integer,
      total_message_sent: integer,
      thread_metadata: object('A thread’s state.', {
        archived: boolean,
        auto_archive_duration: integer,
        archive_timestamp: timestamp,
        locked: boolean,
        create_timestamp: timestamp,
      }),
      flags: integer,
    },
    { last_message_id: nullable(id) },
  ),
  ThreadList: object(
    'Threads, with the caller’s memberships of them; `has_more` in the archived lists.',
    { threads: list({ $ref: '#/components/schemas/Thread' }), members: list({ $ref: '#/components/schemas/ThreadMember' }) },
    { has_more: boolean },
  ),
  ThreadMember: object('A member of a thread.', { id, user_id: id, join_timestamp: timestamp, flags: integer }, { member: Member }),
  PruneCount: object('How many members a prune removes (null when its count was not asked for).', { pruned: nullable(integer) }),
  BulkBanResult: object('The users a bulk ban banned, and those it could not.', { banned_users: ids, failed_users: ids }),
  Invite: object(
    'An invite (presenters/invites.ts); a vanity code has no inviter and no creation time.',
    {
      code: string,
      type: integer,
      guild_id: id,
      guild: { type: 'object' },
      channel_id: nullable(id),
      channel: { type: ['object', 'null'] },
      pack_id: nullable(id),
      inviter_id: nullable(id),
      uses: integer,
      max_uses: integer,
      max_age: integer,
      temporary: boolean,
      expires_at: nullable(timestamp),
      approximate_member_count: integer,
    },
    { inviter: PartialUser, created_at: timestamp },
  ),
  InviteAccepted: object('What accepting did: joined, already a member, or added the sticker pack.', { message: string, guild_id: id }),
  VanityUrl: object('A guild’s vanity code and its uses.', { code: nullable(string), uses: integer, guild_id: id }),
  AuditLog: object('A page of the guild’s audit log, newest first, with the users and webhooks it names.', {
    entries: list(
      object(
        'An audit log entry.',
        { id, action_type: integer, target_id: nullable(string), user_id: nullable(id), timestamp },
        { changes: list({ type: 'object' }), options: { type: 'object' }, reason: string },
      ),
    ),
    audit_log_entries: { description: 'The same entries, under the widely used API’s name.', type: 'array', items: { type: 'object' } },
    users: list(PartialUser),
    webhooks: list({ type: 'object' }),
  }),
  Webhook: object(
    'A webhook with its token and execute URL (only managers and token holders see it); `user` is its creator.',
    {
      id,
      type: { const: 1 },
      guild_id: id,
      channel_id: id,
      name: string,
      avatar: nullable(string),
      token: string,
      application_id: { type: 'null' },
      interaction_url: nullable(string),
      url: string,
    },
    { user: PartialUser },
  ),
  InteractionRecord: object('A component click on a webhook’s message, with its delivery attempts.', {
    id,
    webhook_id: nullable(id),
    channel_id: id,
    message_id: id,
    user_id: id,
    custom_id: string,
    component_type: integer,
    values: { type: ['array', 'null'], items: string },
    clicked_at: timestamp,
    status: { type: 'string', enum: ['undelivered', 'queued', 'in_flight', 'delivered', 'dropped', 'failed'] },
    next_attempt_at: nullable(timestamp),
    attempts: list({ type: 'object' }),
    reason: nullable(string),
  }),
  ApplicationCommand: object('An application command; guild_id is null for a global one.', {
    id,
    application_id: id,
    guild_id: nullable(id),
    name: string,
    description: string,
    type: integer,
    version: id,
  }),
  ApplicationCommandIndex: object('A member’s command index of a guild: the applications and the commands the member may use.', {
    applications: list(
      object('An application whose bot is a member.', { id, name: string, description: string, icon: nullable(string), bot_id: nullable(id) }),
    ),
    application_commands: list({ $ref: '#/components/schemas/ApplicationCommand' }),
    version: string,
  }),
  InteractionCallback: object(
    'The answer of a response made with ?with_response=true: the callback and the message it made or updated (none for a modal or choices).',
    {
      interaction: object(
        'The interaction answered.',
        { id, type: integer },
        { response_message_id: id, response_message_loading: boolean, response_message_ephemeral: boolean },
      ),
      resource: object('What the response made.', { type: integer }, { message: Message }),
    },
  ),
} satisfies Record<string, Schema>;

export type ComponentName = keyof typeof COMPONENTS;

/** A named object of the reference (a contract's too, until every route answers it by its schema). */
export const ref = (name: ComponentName | ContractName): Schema => ({ $ref: `#/components/schemas/${name}` });
/** A list of named objects. */
export const listOf = (name: ComponentName): Schema => ({ type: 'array', items: ref(name) });
