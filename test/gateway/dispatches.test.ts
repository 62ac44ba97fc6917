// Dispatches derived from the log reach the sessions that may see them: by intents, guild membership and VIEW_CHANNEL;
// MESSAGE_CONTENT governs content; RESUME after a drop replays what was sent meanwhile, exactly once.
import { describe, expect, it } from 'vitest';
import { createGuild, grantRole, join, newMember } from '../http/guildSupport.js';
import { type GatewayClient, type Payload, fileGateway } from '../support/gateway.js';
import { createBot, registerUser, expectNothingAppendedSince } from '../support/server.js';

const GUILDS = 1 << 0;
const GUILD_MEMBERS = 1 << 1;
const GUILD_MESSAGES = 1 << 9;
const GUILD_MESSAGE_TYPING = 1 << 11;
const GUILD_MESSAGE_REACTIONS = 1 << 10;
const DIRECT_MESSAGE_REACTIONS = 1 << 13;
const MESSAGE_CONTENT = 1 << 15;

const { server, gateway } = await fileGateway();
const session = gateway.session;

const messages = (client: GatewayClient) => client.received.filter((p) => p.t === 'MESSAGE_CREATE');
const send = (token: string, channelId: string, body: object, scheme: 'Bot' | 'Bearer' = 'Bearer') =>
  server.api('POST', `/channels/${channelId}/messages`, { token, scheme, body });

describe('gateway dispatches', () => {
  it('filters by intents, and strips content without MESSAGE_CONTENT unless the reader is mentioned', async () => {
    const guild = await createGuild(server);
    const [full, contentless, none] = await Promise.all([createBot(server), createBot(server), createBot(server)]);
    for (const bot of [full, contentless, none]) await join(server, guild, bot, 'Bot');
    const a = await session(full.token, GUILDS | GUILD_MESSAGES | MESSAGE_CONTENT);
    const b = await session(contentless.token, GUILDS | GUILD_MESSAGES);
    const c = await session(none.token, GUILDS);

    const first = await send(guild.owner.token, guild.channelId, { content: 'plain words' });
    expect(first.status).toBe(200);
    const mention = await send(guild.owner.token, guild.channelId, { content: `hey <@${contentless.id}>` });
    expect((await a.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === mention.body.id)).d.content).toBe(`hey <@${contentless.id}>`);
    expect((await b.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === first.body.id)).d.content).toBe('');
    expect((await b.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === mention.body.id)).d.content).toBe(`hey <@${contentless.id}>`);
    expect(messages(a).find((p) => p.d.id === first.body.id)!.d).toMatchObject({ content: 'plain words', guild_id: guild.id, author: { id: guild.owner.id } });
    expect(messages(c)).toEqual([]);
  });

  it('sends a channel only to those who can view it', async () => {
    const guild = await createGuild(server);
    const member = await newMember(server, guild);
    const hidden = await server.api('POST', `/guilds/${guild.id}/channels`, {
      token: guild.owner.token,
      body: { name: 'staff', type: 0, permission_overwrites: [{ id: guild.id, type: 0, allow: '0', deny: String(1 << 10) }] },
    });
    expect(hidden.status).toBe(201);
    const owner = await session(guild.owner.token, GUILDS | GUILD_MESSAGES | MESSAGE_CONTENT);
    const outsider = await session(member.token, GUILDS | GUILD_MESSAGES | MESSAGE_CONTENT);
    const secret = await send(guild.owner.token, hidden.body.id, { content: 'staff only' });
    const open = await send(guild.owner.token, guild.channelId, { content: 'for all' });
    await owner.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === secret.body.id);
    await outsider.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === open.body.id);
    expect(messages(outsider).map((p) => p.d.id)).toEqual([open.body.id]);
  });

  it('announces a join with GUILD_CREATE to the new member and GUILD_MEMBER_ADD to the guild', async () => {
    const guild = await createGuild(server);
    const owner = await session(guild.owner.token, GUILDS | GUILD_MEMBERS);
    const newcomer = await registerUser(server);
    const theirs = await session(newcomer.token, GUILDS);
    await join(server, guild, newcomer);
    const created = await theirs.dispatch('GUILD_CREATE');
    expect(created.d).toMatchObject({ id: guild.id, unavailable: false });
    expect(created.d.channels.map((c: { id: string }) => c.id)).toContain(guild.channelId);
    const added = await owner.next((p) => p.t === 'GUILD_MEMBER_ADD' && p.d.user.id === newcomer.id);
    expect(added.d.guild_id).toBe(guild.id);
  });

  it('shows an ephemeral message only to its author and the users it mentions', async () => {
    const guild = await createGuild(server);
    const bot = await createBot(server);
    await join(server, guild, bot, 'Bot');
    const [mentioned, bystander] = await Promise.all([newMember(server, guild), newMember(server, guild)]);
    const seen = await session(mentioned.token, GUILDS | GUILD_MESSAGES | MESSAGE_CONTENT);
    const unseen = await session(bystander.token, GUILDS | GUILD_MESSAGES | MESSAGE_CONTENT);
    const secret = await send(bot.token, guild.channelId, { content: `only for <@${mentioned.id}>`, flags: 64 }, 'Bot');
    expect(secret.status).toBe(200);
    const after = await send(guild.owner.token, guild.channelId, { content: 'public' });
    await seen.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === secret.body.id);
    await unseen.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === after.body.id);
    expect(messages(unseen).map((p) => p.d.id)).toEqual([after.body.id]);
  });

  it('relays typing as TYPING_START, which the log never holds', async () => {
    const guild = await createGuild(server);
    const watcher = await session(guild.owner.token, GUILDS | GUILD_MESSAGE_TYPING);
    const typist = await newMember(server, guild);
    const head = await server.runtime.store.headPosition();
    expect((await server.api('POST', `/channels/${guild.channelId}/typing`, { token: typist.token })).status).toBe(204);
    const typing = await watcher.dispatch('TYPING_START');
    expect(typing.d).toMatchObject({ channel_id: guild.channelId, guild_id: guild.id, user_id: typist.id });
    await expectNothingAppendedSince(server, head);
  });

  it('sends MESSAGE_REACTION_ADD in a guild with the reacting member and its user, and in a DM without one', async () => {
    const guild = await createGuild(server);
    const [bot, member] = [await join(server, guild, await createBot(server), 'Bot'), await newMember(server, guild)];
    const roleId = await grantRole(server, guild, member, 0n, 'reactors');
    const watcher = await session(bot.token, GUILDS | GUILD_MESSAGE_REACTIONS | DIRECT_MESSAGE_REACTIONS);
    const react = (channelId: string, messageId: string) =>
      server.api('PUT', `/channels/${channelId}/messages/${messageId}/reactions/${encodeURIComponent('👍')}/@me`, { token: member.token });

    const posted = await send(bot.token, guild.channelId, { content: 'react for a role' }, 'Bot');
    expect((await react(guild.channelId, posted.body.id)).status).toBe(204);
    const inGuild = await watcher.next((p) => p.t === 'MESSAGE_REACTION_ADD' && p.d.message_id === posted.body.id);
    expect(inGuild.d).toMatchObject({
      guild_id: guild.id,
      user_id: member.id,
      member: { user: { id: member.id, username: member.username, bot: false }, roles: [roleId], nick: null, joined_at: expect.any(String) },
      emoji: { id: null, name: '👍' },
    });

    const dm = await server.api('POST', '/users/@me/channels', { token: member.token, body: { recipient_id: bot.id } });
    const direct = await send(member.token, dm.body.id, { content: 'hi' });
    expect((await react(dm.body.id, direct.body.id)).status).toBe(204);
    const inDm = await watcher.next((p) => p.t === 'MESSAGE_REACTION_ADD' && p.d.message_id === direct.body.id);
    expect(inDm.d).toMatchObject({ channel_id: dm.body.id, user_id: member.id });
    expect(inDm.d).not.toHaveProperty('member');
    expect(inDm.d).not.toHaveProperty('guild_id');
  });

  it('RESUME after a drop replays the messages sent meanwhile, in order, exactly once', async () => {
    const guild = await createGuild(server);
    const user = await newMember(server, guild);
    const first = await gateway.connect();
    const ready = await first.identify(user.token, GUILDS | GUILD_MESSAGES | MESSAGE_CONTENT);
    const one = await send(guild.owner.token, guild.channelId, { content: 'one' });
    const got = await first.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === one.body.id);
    first.drop();
    await first.closed;

    const missed: string[] = [];
    for (const content of ['two', 'three', 'four']) missed.push((await send(guild.owner.token, guild.channelId, { content })).body.id);

    const second = await gateway.connect();
    await second.next((p) => p.op === 10);
    second.send({ op: 6, d: { token: user.token, session_id: ready.d.session_id, seq: got.s } });
    const resumed = await second.dispatch('RESUMED');
    const replayed = messages(second);
    expect(replayed.map((p: Payload) => p.d.id)).toEqual(missed);
    expect(replayed.map((p: Payload) => p.s)).toEqual([got.s! + 1, got.s! + 2, got.s! + 3]);
    expect(resumed.s).toBe(got.s! + 4);
    const five = await send(guild.owner.token, guild.channelId, { content: 'five' });
    const live = await second.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === five.body.id);
    expect(live.s).toBe(got.s! + 5);
  });
});
