// The object shapes of the widely used API, field by field, as its clients parse them: each object is fetched over
// the real API (and taken from the gateway dispatch that carries it) and checked against the contract of its answers
// (contracts/), the schemas the reference shows and the routes' handlers are typed by. The contracts are checked at
// compile time against the type the presenter returns (discord-api-types' type of the object, or Parley's declared
// difference from it, presenters/differences.ts), or against discord-api-types' type where no presenter builds the
// whole object: every required field listed, none the type lacks, optional and nullable as the type has them. What
// types cannot say is checked here at run time, on the JSON, by ajv: required fields are present (a field a read model
// left undefined vanishes from it), snowflakes are decimal strings, and timestamps have the form that API sends and
// discord.py's datetime.fromisoformat reads on every Python it supports: microseconds and +00:00. Fields beyond the
// contracts are allowed: its clients ignore what they do not know. The objects that have no contract yet, and the
// dispatches' own fields, are declared here with the contracts' builders.
import { Ajv, type ErrorObject } from 'ajv';
import formatsPlugin from 'ajv-formats';
import type { APIAttachment, APIEmbed, APIEmoji, APIOverwrite, APIReaction } from 'discord-api-types/v10';
import type { JSONSchema } from 'json-schema-to-ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL_OF_TYPE, Overwrite } from '../../contracts/channels.js';
import { Emoji, ReactionEmoji, Sticker } from '../../contracts/expressions.js';
import { Guild } from '../../contracts/guilds.js';
import { Invite, MadeInvite } from '../../contracts/invites.js';
import { Member } from '../../contracts/members.js';
import { Attachment, Embed, Message, PinnedMessages, Reaction } from '../../contracts/messages.js';
import { Role } from '../../contracts/roles.js';
import {
  type Contract,
  UINT64_PATTERN,
  answeredTimestamp,
  anyArray,
  anyObject,
  boolean,
  extend,
  integer,
  list,
  nullable,
  object,
  snowflakeSchema,
  snowflakes,
  string,
} from '../../contracts/schema.js';
import { User } from '../../contracts/users.js';
import { Webhook } from '../../contracts/webhooks.js';
import { ALL_INTENTS, type DispatchData } from '../../gateway/protocol.js';
import type { ParleyReady } from '../../presenters/differences.js';
import type { guildObject } from '../../presenters/guilds.js';
import type { inviteObject } from '../../presenters/invites.js';
import type { memberObject } from '../../presenters/members.js';
import type { messageObject } from '../../presenters/messages.js';
import type { roleObject } from '../../presenters/roles.js';
import type { stickerObject } from '../../presenters/stickers.js';
import type { userObject } from '../../presenters/users.js';
import type { webhookObject } from '../../presenters/webhooks.js';
import { type GatewayClient, connectGateway } from '../support/gateway.js';
import { type TestServer, type TestUser, createBot, registerUser, startTestServer } from '../support/server.js';
import { type TestGuild, createGuild, join } from './guildSupport.js';

/** The keys of T that may be absent. */
type OptionalKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? K : never }[keyof T];
type Optional<T, K extends keyof T> = K extends OptionalKeys<T> ? true : false;
type Nullable<T, K extends keyof T> = null extends T[K] ? true : false;
/**
 * Where a schema and a type disagree: a field listed that the type lacks, a required field of the type not listed, a
 * field optional or nullable in one of them only. Never when they agree.
 */
type Disagreements<T, S extends JSONSchema, C = Contract<S>> =
  | Exclude<keyof C, keyof T>
  | Exclude<Exclude<keyof T, OptionalKeys<T>>, keyof C>
  | {
      [K in keyof C & keyof T]: [Optional<C, K>, Nullable<C, K>] extends [Optional<T, K>, Nullable<T, K>]
        ? [Optional<T, K>, Nullable<T, K>] extends [Optional<C, K>, Nullable<C, K>]
          ? never
          : K
        : K;
    }[keyof C & keyof T];
/** Compiles only when `schema` agrees with T; otherwise the fields that disagree are the argument it asks for. */
function agrees<T>() {
  return <S extends JSONSchema>(schema: S, ..._disagreements: [Disagreements<T, S>] extends [never] ? [] : [Disagreements<T, S>]) => schema;
}
/** What a presenter answers. */
type Presented<F extends (...args: never[]) => unknown> = ReturnType<F>;

agrees<Presented<typeof userObject>>()(User);
agrees<Presented<typeof memberObject>>()(Member);
agrees<Presented<typeof roleObject>>()(Role);
agrees<APIEmoji>()(ReactionEmoji);
agrees<Presented<typeof stickerObject>>()(Sticker);
agrees<Presented<typeof guildObject>>()(Guild);
agrees<APIOverwrite>()(Overwrite);
agrees<APIReaction>()(Reaction);
agrees<APIAttachment>()(Attachment);
agrees<APIEmbed>()(Embed);
agrees<Presented<typeof messageObject>>()(Message);
agrees<Presented<typeof inviteObject>>()(Invite);
agrees<Presented<typeof webhookObject>>()(Webhook);

/** The smallest PNG: one transparent pixel. */
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

const TIMESTAMP = new RegExp(answeredTimestamp.pattern);

const addFormats = formatsPlugin as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }));

/** What a pattern means, for a problem's line. */
const PATTERNS: Record<string, string> = { [UINT64_PATTERN]: 'is not snowflake', [answeredTimestamp.pattern]: 'is not timestamp' };

function problemOf(error: ErrorObject, value: unknown): string {
  const at = `$${error.instancePath.replaceAll('/', '.')}`;
  if (error.keyword === 'required') return `${at}.${error.params.missingProperty as string}: missing`;
  const said = (error.keyword === 'pattern' && PATTERNS[error.params.pattern as string]) || error.message;
  const found = error.instancePath
    .split('/')
    .slice(1)
    .reduce<unknown>((inner, key) => (inner as Record<string, unknown>)[key], value);
  return `${at}: ${JSON.stringify(found)} ${said}`;
}

/** What is wrong with `value` as `schema` describes it; a nullable field's two alternatives make one problem. */
function shapeProblems(value: unknown, schema: JSONSchema): string[] {
  const validate = ajv.compile(schema as object);
  if (validate(value)) return [];
  return validate.errors!.filter((error) => !error.schemaPath.includes('/anyOf/')).map((error) => problemOf(error, value));
}

const expectShape = (value: unknown, schema: JSONSchema) => expect(shapeProblems(value, schema)).toEqual([]);

// developers/resources/guild.mdx, "Guild Member Structure"; developers/events/gateway-events.mdx, "Guild Member Update
// Event Fields".
const MEMBER_UPDATE = agrees<DispatchData['GUILD_MEMBER_UPDATE']>()(
  object(
    'GUILD_MEMBER_UPDATE',
    { guild_id: snowflakeSchema, roles: snowflakes, user: User, avatar: nullable(string), banner: nullable(string), joined_at: nullable(answeredTimestamp) },
    {
      nick: nullable(string),
      premium_since: nullable(answeredTimestamp),
      deaf: boolean,
      mute: boolean,
      pending: boolean,
      communication_disabled_until: nullable(answeredTimestamp),
      avatar_decoration_data: nullable(anyObject),
      collectibles: nullable(anyObject),
    },
  ),
);

const expectChannel = (channel: { type: number }) => expectShape(channel, CHANNEL_OF_TYPE[channel.type as keyof typeof CHANNEL_OF_TYPE]);

// developers/events/gateway-events.mdx, "Message Create Extra Fields" (MESSAGE_UPDATE carries a full message too).
const MESSAGE_EVENT = extend(Message, 'MESSAGE_CREATE', { mentions: list(User) }, { guild_id: snowflakeSchema, member: anyObject, channel_type: integer });

// developers/events/gateway-events.mdx, "Invite Create Event Fields".
const INVITE_CREATE = agrees<DispatchData['INVITE_CREATE']>()(
  object(
    'INVITE_CREATE',
    {
      channel_id: snowflakeSchema,
      code: string,
      created_at: answeredTimestamp,
      inviter: User,
      max_age: integer,
      max_uses: integer,
      temporary: boolean,
      uses: integer,
      expires_at: nullable(answeredTimestamp),
    },
    { guild_id: snowflakeSchema, target_type: integer, target_user: User, role_ids: snowflakes },
  ),
);

let server: TestServer;
let guild: TestGuild;
let bot: TestUser;
/** The owner's session: every intent, connected before anything below happens. */
let owner: GatewayClient;
beforeAll(async () => {
  server = await startTestServer();
  guild = await createGuild(server, undefined, 'Conformance');
  bot = await join(server, guild, await createBot(server), 'Bot');
  owner = await connectGateway(server);
  await owner.identify(guild.owner.token, ALL_INTENTS);
  await owner.next((p) => p.t === 'GUILD_CREATE' && p.d.id === guild.id);
});
afterAll(async () => {
  owner.close();
  await server.close();
});

const api = (user: TestUser, method: string, path: string, body?: unknown) => {
  const scheme = user === bot ? 'Bot' : 'Bearer';
  return server.api(method, path, { token: user.token, scheme, body });
};
async function ok(user: TestUser, method: string, path: string, body?: unknown) {
  const response = await api(user, method, path, body);
  expect(response.status, `${method} ${path}: ${response.text}`).toBeLessThan(300);
  return response.body;
}

describe('the shape checker', () => {
  it('refuses what the contracts rule out', () => {
    const schema = object('A test object.', { id: snowflakeSchema, at: answeredTimestamp, user: User }, { maybe: nullable(integer) });
    const problems = shapeProblems({ id: 1, at: '2026-01-01T00:00:00.000Z', maybe: 'x', user: { id: '1', username: 'a', discriminator: '0' } }, schema);
    expect(problems.sort()).toEqual([
      '$.at: "2026-01-01T00:00:00.000Z" is not timestamp',
      '$.id: 1 must be string',
      '$.maybe: "x" must match a schema in anyOf',
      '$.user.avatar: missing',
      '$.user.global_name: missing',
    ]);
    const user = { id: '1', username: 'a', discriminator: '0', global_name: null, avatar: null };
    expect(shapeProblems({ id: '1', at: '2026-01-01T00:00:00.000000+00:00', user }, schema)).toEqual([]);
    expect(shapeProblems({ id: '1', at: '2026-01-01T00:00:00.000000+00:00', user, maybe: null }, schema)).toEqual([]);
  });
});

describe('object shapes of the widely used API', () => {
  it('User: the account itself, another user, a bot, and READY', async () => {
    expectShape(await ok(guild.owner, 'GET', '/users/@me'), User);
    expectShape(await ok(bot, 'GET', '/users/@me'), User);
    expectShape(await ok(bot, 'GET', `/users/${guild.owner.id}`), User);
    const ready = owner.received.find((p) => p.t === 'READY')!.d;
    // developers/events/gateway-events.mdx, "Ready Event Fields"; guilds are Unavailable Guild objects (guild.mdx).
    expectShape(
      ready,
      agrees<ParleyReady>()(
        object(
          'READY',
          {
            v: integer,
            user: User,
            guilds: list(object('An unavailable guild.', { id: snowflakeSchema, unavailable: boolean })),
            session_id: string,
            resume_gateway_url: string,
            private_channels: anyArray,
            relationships: anyArray,
            user_settings: anyObject,
            presences: anyArray,
            _trace: anyArray,
          },
          { shard: anyArray },
        ),
      ),
    );
  });

  it('Guild Member: fetched, in GUILD_CREATE, GUILD_MEMBER_ADD and GUILD_MEMBER_UPDATE', async () => {
    expectShape(await ok(guild.owner, 'GET', `/guilds/${guild.id}/members/${bot.id}`), Member);
    const listed = await ok(guild.owner, 'GET', `/guilds/${guild.id}/members?limit=10`);
    for (const member of listed) expectShape(member, Member);

    const newcomer = await join(server, guild, await registerUser(server));
    const added = await owner.next((p) => p.t === 'GUILD_MEMBER_ADD' && p.d.user.id === newcomer.id);
    expectShape(added.d, extend(Member, 'GUILD_MEMBER_ADD', { guild_id: snowflakeSchema }));
    await ok(guild.owner, 'PATCH', `/guilds/${guild.id}/members/${newcomer.id}`, { nick: 'renamed' });
    const updated = await owner.next((p) => p.t === 'GUILD_MEMBER_UPDATE' && p.d.user.id === newcomer.id);
    expectShape(updated.d, MEMBER_UPDATE);
    expect(updated.d.joined_at).toBe(added.d.joined_at);
  });

  it('Guild: fetched, and GUILD_CREATE with its extra fields', async () => {
    expectShape(await ok(guild.owner, 'GET', `/guilds/${guild.id}`), Guild);
    const created = owner.received.find((p) => p.t === 'GUILD_CREATE' && p.d.id === guild.id)!.d;
    // developers/events/gateway-events.mdx, "Guild Create Extra Fields".
    expectShape(
      created,
      extend(
        Guild,
        'GUILD_CREATE',
        {
          joined_at: answeredTimestamp,
          large: boolean,
          member_count: integer,
          voice_states: anyArray,
          members: list(Member),
          channels: anyArray,
          threads: anyArray,
          presences: anyArray,
          stage_instances: anyArray,
          guild_scheduled_events: anyArray,
          soundboard_sounds: anyArray,
        },
        { unavailable: boolean },
      ),
    );
    for (const channel of created.channels) expectChannel(channel);
  });

  it('Channel, per type: text, voice and category, DM and group DM, over HTTP and in dispatches', async () => {
    const made = [];
    for (const [type, name] of [
      [2, 'voice'],
      [4, 'category'],
    ] as const)
      made.push(await ok(guild.owner, 'POST', `/guilds/${guild.id}/channels`, { name, type }));
    for (const channel of made) expectChannel(await owner.next((p) => p.t === 'CHANNEL_CREATE' && p.d.id === channel.id).then((p) => p.d));

    // A pin gives the text channel its last_pin_timestamp, announced by CHANNEL_PINS_UPDATE.
    const message = await ok(guild.owner, 'POST', `/channels/${guild.channelId}/messages`, { content: 'pinned' });
    await ok(guild.owner, 'PUT', `/channels/${guild.channelId}/pins/${message.id}`);
    const pins = await owner.next((p) => p.t === 'CHANNEL_PINS_UPDATE' && p.d.channel_id === guild.channelId);
    // developers/events/gateway-events.mdx, "Channel Pins Update Event Fields".
    expectShape(
      pins.d,
      agrees<DispatchData['CHANNEL_PINS_UPDATE']>()(
        object('CHANNEL_PINS_UPDATE', { channel_id: snowflakeSchema }, { guild_id: snowflakeSchema, last_pin_timestamp: nullable(answeredTimestamp) }),
      ),
    );
    const text = await ok(guild.owner, 'GET', `/channels/${guild.channelId}`);
    expect(text.last_pin_timestamp).toBe(pins.d.last_pin_timestamp);

    const other = await registerUser(server);
    const dm = await ok(guild.owner, 'POST', '/users/@me/channels', { recipient_id: other.id });
    const group = await ok(guild.owner, 'POST', '/users/@me/channels', { recipients: [other.id, (await registerUser(server)).id] });
    for (const channel of [text, ...made, dm, group, ...(await ok(guild.owner, 'GET', `/guilds/${guild.id}/channels`))]) expectChannel(channel);
    expect([text, ...made, dm, group].map((c) => c.type)).toEqual([0, 2, 4, 1, 3]);
    await ok(guild.owner, 'POST', `/channels/${dm.id}/messages`, { content: 'hi' });
    await ok(guild.owner, 'PUT', `/channels/${dm.id}/pins/${(await ok(guild.owner, 'GET', `/channels/${dm.id}/messages`))[0].id}`);
    const pinnedDm = await ok(guild.owner, 'GET', `/channels/${dm.id}`);
    expectChannel(pinnedDm);
    expect(pinnedDm.last_pin_timestamp).toMatch(TIMESTAMP);
  });

  it('Message: sent, fetched, listed, pinned, and in MESSAGE_CREATE and MESSAGE_UPDATE', async () => {
    const embed = { title: 'when', timestamp: '2026-01-01T01:00:00+01:00' };
    const first = await ok(bot, 'POST', `/channels/${guild.channelId}/messages`, { content: `hello <@${guild.owner.id}>`, embeds: [embed], nonce: '42' });
    expectShape(first, Message);
    expect(first.embeds[0].timestamp).toBe('2026-01-01T00:00:00.000000+00:00');
    const reply = await ok(guild.owner, 'POST', `/channels/${guild.channelId}/messages`, { content: 'reply', message_reference: { message_id: first.id } });
    expectShape(reply, Message);
    expectShape(reply.referenced_message, Message);
    expect(reply.referenced_message.id).toBe(first.id);

    const created = await owner.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === first.id);
    expectShape(created.d, MESSAGE_EVENT);
    expect(created.d.timestamp).toBe(first.timestamp);
    const edited = await ok(bot, 'PATCH', `/channels/${guild.channelId}/messages/${first.id}`, { content: 'hello again' });
    expectShape(edited, Message);
    expect(edited.edited_timestamp).toMatch(TIMESTAMP);
    const updated = await owner.next((p) => p.t === 'MESSAGE_UPDATE' && p.d.id === first.id);
    expectShape(updated.d, MESSAGE_EVENT);
    expect(updated.d.edited_timestamp).toBe(edited.edited_timestamp);

    expectShape(await ok(guild.owner, 'GET', `/channels/${guild.channelId}/messages/${reply.id}`), Message);
    for (const message of await ok(guild.owner, 'GET', `/channels/${guild.channelId}/messages`)) expectShape(message, Message);
    await ok(guild.owner, 'PUT', `/channels/${guild.channelId}/messages/pins/${first.id}`);
    // developers/resources/message.mdx, "Get Channel Pins": {items: [{pinned_at, message}], has_more}.
    const pins = await ok(guild.owner, 'GET', `/channels/${guild.channelId}/messages/pins`);
    expectShape(pins, PinnedMessages);
  });

  it('Role: listed, created, and in GUILD_ROLE_CREATE', async () => {
    for (const role of await ok(guild.owner, 'GET', `/guilds/${guild.id}/roles`)) expectShape(role, Role);
    const role = await ok(guild.owner, 'POST', `/guilds/${guild.id}/roles`, { name: 'shaped' });
    expectShape(role, Role);
    const created = await owner.next((p) => p.t === 'GUILD_ROLE_CREATE' && p.d.role.id === role.id);
    expectShape(created.d, object('GUILD_ROLE_CREATE', { guild_id: snowflakeSchema, role: Role }));
  });

  it('Custom emoji and Sticker: created, fetched, listed, and in GUILD_EMOJIS_UPDATE and GUILD_STICKERS_UPDATE', async () => {
    const image = `data:image/png;base64,${PNG_1X1}`;
    const emoji = await ok(guild.owner, 'POST', `/guilds/${guild.id}/emojis`, { name: 'conformant', image });
    expectShape(emoji, extend(Emoji, 'A new emoji.', { id: snowflakeSchema, name: string, user: User }));
    for (const listed of await ok(bot, 'GET', `/guilds/${guild.id}/emojis`)) expectShape(listed, Emoji);
    const emojis = await owner.next((p) => p.t === 'GUILD_EMOJIS_UPDATE' && p.d.guild_id === guild.id);
    expectShape(emojis.d, object('GUILD_EMOJIS_UPDATE', { guild_id: snowflakeSchema, emojis: list(Emoji) }));
    const sticker = await ok(guild.owner, 'POST', `/guilds/${guild.id}/stickers`, { name: 'conformant', description: '', tags: 'ok', image });
    expectShape(sticker, Sticker);
    expectShape(await ok(bot, 'GET', `/guilds/${guild.id}/stickers/${sticker.id}`), Sticker);
    const stickers = await owner.next((p) => p.t === 'GUILD_STICKERS_UPDATE' && p.d.guild_id === guild.id);
    expectShape(stickers.d, object('GUILD_STICKERS_UPDATE', { guild_id: snowflakeSchema, stickers: list(Sticker) }));
    expectShape(await ok(guild.owner, 'GET', `/guilds/${guild.id}`), Guild);
  });

  it('Emoji and Reaction: unicode and custom reaction emoji, on the message and in MESSAGE_REACTION_ADD', async () => {
    const message = await ok(guild.owner, 'POST', `/channels/${guild.channelId}/messages`, { content: 'react' });
    for (const emoji of ['🔥', 'party:123456789012345678']) {
      await ok(bot, 'PUT', `/channels/${guild.channelId}/messages/${message.id}/reactions/${encodeURIComponent(emoji)}/@me`);
    }
    const reacted = await ok(guild.owner, 'GET', `/channels/${guild.channelId}/messages/${message.id}`);
    expect(reacted.reactions.map((r: { emoji: { id: string | null } }) => r.emoji.id)).toEqual([null, '123456789012345678']);
    expectShape(reacted, extend(Message, 'A message with reactions.', { reactions: list(Reaction) }));
    const added = await owner.next((p) => p.t === 'MESSAGE_REACTION_ADD' && p.d.message_id === message.id);
    // developers/events/gateway-events.mdx, "Message Reaction Add Event Fields".
    expectShape(
      added.d,
      agrees<DispatchData['MESSAGE_REACTION_ADD']>()(
        object(
          'MESSAGE_REACTION_ADD',
          { user_id: snowflakeSchema, channel_id: snowflakeSchema, message_id: snowflakeSchema, emoji: ReactionEmoji, burst: boolean, type: integer },
          { guild_id: snowflakeSchema, member: anyObject, message_author_id: snowflakeSchema, burst_colors: anyArray },
        ),
      ),
    );
  });

  it('Invite: created, fetched, listed, and in INVITE_CREATE', async () => {
    const made = await ok(guild.owner, 'POST', `/channels/${guild.channelId}/invites`, { max_age: 3600, unique: true });
    expectShape(made, MadeInvite);
    expect(Date.parse(made.expires_at) - Date.parse(made.created_at)).toBe(3_600_000);
    expectShape(await ok(bot, 'GET', `/invites/${made.code}`), MadeInvite);
    for (const invite of await ok(guild.owner, 'GET', `/channels/${guild.channelId}/invites`)) expectShape(invite, MadeInvite);
    const created = await owner.next((p) => p.t === 'INVITE_CREATE' && p.d.code === made.code);
    expectShape(created.d, INVITE_CREATE);
    expect([created.d.created_at, created.d.expires_at]).toEqual([made.created_at, made.expires_at]);

    // A vanity code has neither inviter nor creation time: both absent, as optional fields are.
    await ok(guild.owner, 'POST', `/guilds/${guild.id}/vanity-url`, { code: `shape-${guild.id}` });
    expectShape(await ok(bot, 'GET', `/invites/shape-${guild.id}`), Invite);
  });

  it('Webhook: created, fetched by a manager and by its token, listed, and in the audit log', async () => {
    const made = await ok(guild.owner, 'POST', `/channels/${guild.channelId}/webhooks`, { name: 'hook' });
    expectShape(made, Webhook);
    expectShape(await ok(guild.owner, 'GET', `/webhooks/${made.id}`), Webhook);
    const byToken = await server.api('GET', `/webhooks/${made.id}/${made.token}`);
    expectShape(byToken.body, Webhook);
    for (const webhook of await ok(guild.owner, 'GET', `/guilds/${guild.id}/webhooks`)) expectShape(webhook, Webhook);
    const audit = await ok(guild.owner, 'GET', `/guilds/${guild.id}/audit-logs`);
    for (const webhook of audit.webhooks) expectShape(webhook, Webhook);
    expect(audit.webhooks.map((w: { id: string }) => w.id)).toContain(made.id);
    // The audit log entry's timestamp is the spec's own field; it takes the same form as every other.
    for (const entry of audit.entries) expect(entry.timestamp).toMatch(TIMESTAMP);
  });
});
