// The object shapes of the widely used API, field by field, as its clients parse them: each object is fetched over
// the real API (and taken from the gateway dispatch that carries it) and checked against the contract of its answers
// (contracts/), the schemas the reference shows and the routes' handlers are typed by. The contracts are checked at
// compile time against the type the presenter returns (discord-api-types' type of the object, or Parley's declared
// difference from it, presenters/differences.ts), or against discord-api-types' type where no presenter builds the
// whole object: every required field listed, none the type lacks, optional and nullable as the type has them. What
// types cannot say is checked here at run time, on the JSON, by ajv: required fields are present (a field a read model
// left undefined vanishes from it), snowflakes are decimal strings, and timestamps have the form that API sends and
// discord.py's datetime.fromisoformat reads on every Python it supports: microseconds and +00:00. Fields beyond the
// contracts are allowed: its clients ignore what they do not know. The dispatches' data has its contracts too
// (contracts/dispatches.ts); the objects that have no contract yet are declared here with the contracts' builders.
import type { APIAttachment, APIEmbed, APIEmoji, APIOverwrite, APIReaction } from 'discord-api-types/v10';
import type { JSONSchema } from 'json-schema-to-ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL_OF_TYPE, Overwrite } from '../../contracts/channels.js';
import {
  ChannelPinsUpdate,
  GuildCreate,
  GuildMemberAdd,
  GuildMemberUpdate,
  GuildRoleChange,
  GuildEmojisUpdate,
  GuildStickersUpdate,
  InviteCreate,
  MessageDispatch,
  MessageReactionAdd,
  Ready,
  ThreadCreate,
  ThreadMemberUpdate,
} from '../../contracts/dispatches.js';
import { Emoji, ReactionEmoji, Sticker } from '../../contracts/expressions.js';
import { Guild } from '../../contracts/guilds.js';
import { Invite, MadeInvite } from '../../contracts/invites.js';
import { Member } from '../../contracts/members.js';
import { Attachment, Embed, Message, PinnedMessages, Reaction } from '../../contracts/messages.js';
import { Role } from '../../contracts/roles.js';
import { type Contract, answeredTimestamp, extend, integer, list, nullable, object, snowflakeSchema, string } from '../../contracts/schema.js';
import { Thread, ThreadList, ThreadMember } from '../../contracts/threads.js';
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
import type { threadMemberObject, threadObject } from '../../presenters/threads.js';
import type { userObject } from '../../presenters/users.js';
import type { webhookObject } from '../../presenters/webhooks.js';
import { type GatewayClient, connectGateway } from '../support/gateway.js';
import { expectShape, shapeProblems } from '../support/shapes.js';
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
agrees<Presented<typeof threadObject>>()(Thread);
agrees<Presented<typeof threadObject>['thread_metadata']>()(Thread.properties.thread_metadata);
agrees<Presented<typeof threadMemberObject>>()(ThreadMember);
// The dispatches whose data Parley declares (presenters/differences.ts) or the API's type gives in full; the others are
// typed by their contracts where they are built (gateway/dispatches/deriver.ts).
agrees<ParleyReady>()(Ready);
agrees<DispatchData['GUILD_MEMBER_UPDATE']>()(GuildMemberUpdate);
agrees<DispatchData['INVITE_CREATE']>()(InviteCreate);
agrees<DispatchData['CHANNEL_PINS_UPDATE']>()(ChannelPinsUpdate);
agrees<DispatchData['MESSAGE_REACTION_ADD']>()(MessageReactionAdd);

/** The smallest PNG: one transparent pixel. */
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

const TIMESTAMP = new RegExp(answeredTimestamp.pattern);

const expectChannel = (channel: { type: number }) => expectShape(channel, CHANNEL_OF_TYPE[channel.type as keyof typeof CHANNEL_OF_TYPE]);

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
    expectShape(ready, Ready);
  });

  it('Guild Member: fetched, in GUILD_CREATE, GUILD_MEMBER_ADD and GUILD_MEMBER_UPDATE', async () => {
    expectShape(await ok(guild.owner, 'GET', `/guilds/${guild.id}/members/${bot.id}`), Member);
    const listed = await ok(guild.owner, 'GET', `/guilds/${guild.id}/members?limit=10`);
    for (const member of listed) expectShape(member, Member);

    const newcomer = await join(server, guild, await registerUser(server));
    const added = await owner.next((p) => p.t === 'GUILD_MEMBER_ADD' && p.d.user.id === newcomer.id);
    expectShape(added.d, GuildMemberAdd);
    await ok(guild.owner, 'PATCH', `/guilds/${guild.id}/members/${newcomer.id}`, { nick: 'renamed' });
    const updated = await owner.next((p) => p.t === 'GUILD_MEMBER_UPDATE' && p.d.user.id === newcomer.id);
    expectShape(updated.d, GuildMemberUpdate);
    expect(updated.d.joined_at).toBe(added.d.joined_at);
  });

  it('Guild: fetched, and GUILD_CREATE with its extra fields', async () => {
    expectShape(await ok(guild.owner, 'GET', `/guilds/${guild.id}`), Guild);
    const created = owner.received.find((p) => p.t === 'GUILD_CREATE' && p.d.id === guild.id)!.d;
    expectShape(created, GuildCreate);
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
    expectShape(pins.d, ChannelPinsUpdate);
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
    expectShape(created.d, MessageDispatch);
    expect(created.d.timestamp).toBe(first.timestamp);
    const edited = await ok(bot, 'PATCH', `/channels/${guild.channelId}/messages/${first.id}`, { content: 'hello again' });
    expectShape(edited, Message);
    expect(edited.edited_timestamp).toMatch(TIMESTAMP);
    const updated = await owner.next((p) => p.t === 'MESSAGE_UPDATE' && p.d.id === first.id);
    expectShape(updated.d, MessageDispatch);
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
    expectShape(created.d, GuildRoleChange);
  });

  it('Custom emoji and Sticker: created, fetched, listed, and in GUILD_EMOJIS_UPDATE and GUILD_STICKERS_UPDATE', async () => {
    const image = `data:image/png;base64,${PNG_1X1}`;
    const emoji = await ok(guild.owner, 'POST', `/guilds/${guild.id}/emojis`, { name: 'conformant', image });
    expectShape(emoji, extend(Emoji, 'A new emoji.', { id: snowflakeSchema, name: string, user: User }));
    for (const listed of await ok(bot, 'GET', `/guilds/${guild.id}/emojis`)) expectShape(listed, Emoji);
    const emojis = await owner.next((p) => p.t === 'GUILD_EMOJIS_UPDATE' && p.d.guild_id === guild.id);
    expectShape(emojis.d, GuildEmojisUpdate);
    const sticker = await ok(guild.owner, 'POST', `/guilds/${guild.id}/stickers`, { name: 'conformant', description: '', tags: 'ok', image });
    expectShape(sticker, Sticker);
    expectShape(await ok(bot, 'GET', `/guilds/${guild.id}/stickers/${sticker.id}`), Sticker);
    const stickers = await owner.next((p) => p.t === 'GUILD_STICKERS_UPDATE' && p.d.guild_id === guild.id);
    expectShape(stickers.d, GuildStickersUpdate);
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
    expectShape(added.d, MessageReactionAdd);
  });

  it('Invite: created, fetched, listed, and in INVITE_CREATE', async () => {
    const made = await ok(guild.owner, 'POST', `/channels/${guild.channelId}/invites`, { max_age: 3600, unique: true });
    expectShape(made, MadeInvite);
    expect(Date.parse(made.expires_at) - Date.parse(made.created_at)).toBe(3_600_000);
    expectShape(await ok(bot, 'GET', `/invites/${made.code}`), MadeInvite);
    for (const invite of await ok(guild.owner, 'GET', `/channels/${guild.channelId}/invites`)) expectShape(invite, MadeInvite);
    const created = await owner.next((p) => p.t === 'INVITE_CREATE' && p.d.code === made.code);
    expectShape(created.d, InviteCreate);
    expect([created.d.created_at, created.d.expires_at]).toEqual([made.created_at, made.expires_at]);
    expect(created.d.inviter.id).toBe(guild.owner.id);

    // A vanity code has neither inviter nor creation time: both absent, as optional fields are.
    await ok(guild.owner, 'POST', `/guilds/${guild.id}/vanity-url`, { code: `shape-${guild.id}` });
    expectShape(await ok(bot, 'GET', `/invites/shape-${guild.id}`), Invite);
  });

  it('Thread and Thread Member: started, fetched, listed with members, and in THREAD_CREATE and THREAD_MEMBER_UPDATE', async () => {
    const thread = await ok(guild.owner, 'POST', `/channels/${guild.channelId}/threads`, { name: 'shaped', type: 11 });
    expectShape(thread, Thread);
    expect([thread.last_message_id, thread.thread_metadata.create_timestamp]).toEqual([null, thread.thread_metadata.archive_timestamp]);
    expectShape(await ok(guild.owner, 'GET', `/channels/${thread.id}`), Thread);
    await ok(guild.owner, 'PUT', `/channels/${thread.id}/thread-members/${bot.id}`);
    await ok(guild.owner, 'POST', `/channels/${thread.id}/messages`, { content: 'in the thread' });
    const active = await ok(guild.owner, 'GET', `/guilds/${guild.id}/threads/active`);
    expectShape(active, ThreadList);
    expect(active.threads.find((t: { id: string }) => t.id === thread.id).last_message_id).toMatch(/^[0-9]+$/);
    const members = await ok(guild.owner, 'GET', `/channels/${thread.id}/thread-members?with_member=true`);
    expect(members).toHaveLength(2);
    for (const member of members) expectShape(member, extend(ThreadMember, 'A thread member with its guild member.', { member: Member }));
    expectShape(await ok(guild.owner, 'GET', `/channels/${thread.id}/thread-members/${bot.id}`), ThreadMember);
    expectShape((await owner.next((p) => p.t === 'THREAD_CREATE' && p.d.id === thread.id)).d, ThreadCreate);
    expectShape((await owner.next((p) => p.t === 'THREAD_MEMBER_UPDATE' && p.d.id === thread.id)).d, ThreadMemberUpdate);
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
