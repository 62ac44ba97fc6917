// The named objects of the reference that have no contract yet (contracts/ declares the others, from which the
// reference, the routes' handler types and the conformance test all read), written here by hand with the fields
// clients read; the objects may carry more (clients of the widely used API ignore what they do not know). Request
// bodies are never described here: their schemas are the routes' own.
import { MAX_SNOWFLAKE } from '../../domain/snowflake.js';
import type { ContractName } from '../../contracts/index.js';
import { Member } from '../../contracts/members.js';
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
} satisfies Record<string, Schema>;

export type ComponentName = keyof typeof COMPONENTS;

/** A named object of the reference (a contract's too, until every route answers it by its schema). */
export const ref = (name: ComponentName | ContractName): Schema => ({ $ref: `#/components/schemas/${name}` });
/** A list of named objects. */
export const listOf = (name: ComponentName): Schema => ({ type: 'array', items: ref(name) });
