// Timeouts and slowmode through the real HTTPS API and gateway: who may time out whom, what a timed-out member can
// no longer do, the audit entry and GUILD_MEMBER_UPDATE, and slowmode's window on sends and threads, with its exemptions.
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { fileGateway } from '../support/gateway.js';
import { createBot } from '../support/server.js';
import { createGuild, expectError, expectRefusedWithoutEvents, expectSlowmodeRefused, grantRole, join, newMember } from './guildSupport.js';

const { server, gateway } = await fileGateway();

const GUILD_MEMBERS = 1 << 1;
const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

/** A guild with a moderator (MODERATE_MEMBERS) and a member below them. */
async function moderatedGuild() {
  const guild = await createGuild(server);
  const [mod, member] = [await newMember(server, guild), await newMember(server, guild)];
  await grantRole(server, guild, mod, Permission.MODERATE_MEMBERS, 'mods');
  const timeout = (userId: string, until: string | null, token = mod.token, extra: object = {}) =>
    server.api('PATCH', `/guilds/${guild.id}/members/${userId}`, {
      token,
      body: { communication_disabled_until: until, ...extra },
      headers: { 'X-Audit-Log-Reason': 'cool down' },
    });
  return { guild, mod, member, timeout };
}

const send = (channelId: string, token: string, content = 'hello', scheme: 'Bot' | 'Bearer' = 'Bearer') =>
  server.api('POST', `/channels/${channelId}/messages`, { token, scheme, body: { content } });
/** A public thread started in the channel, without a message. */
const startThread = (channelId: string, token: string, scheme: 'Bot' | 'Bearer' = 'Bearer') =>
  server.api('POST', `/channels/${channelId}/threads`, { token, scheme, body: { name: 'a thread', type: 11 } });

describe('timeouts', () => {
  it('times a member out: they may read but not send, react, use interactions or moderate, until it is lifted', async () => {
    const { guild, mod, member, timeout } = await moderatedGuild();
    const posted = (await send(guild.channelId, guild.owner.token, 'before')).body;
    const until = inMinutes(10);
    // discord.js sends its camelCase option name beside the field: ignored, as the widely used API does.
    const timedOut = await timeout(member.id, until, mod.token, { communicationDisabledUntil: until });
    expect(timedOut.status).toBe(200);
    expect(Date.parse(timedOut.body.communication_disabled_until)).toBe(Date.parse(until));
    const fetched = await server.api('GET', `/guilds/${guild.id}/members/${member.id}`, { token: member.token });
    expect(Date.parse(fetched.body.communication_disabled_until)).toBe(Date.parse(until));

    await expectRefusedWithoutEvents(server, () => send(guild.channelId, member.token), 403, 'MISSING_ACCESS');
    const react = () => server.api('PUT', `/channels/${guild.channelId}/messages/${posted.id}/reactions/%F0%9F%91%8D/@me`, { token: member.token });
    await expectRefusedWithoutEvents(server, react, 403, 'MISSING_ACCESS');
    // Interactions too: a slash command and a click are refused before anything about them is looked up.
    const invoke = () =>
      server.api('POST', '/interactions', {
        token: member.token,
        body: { type: 2, application_id: posted.id, channel_id: guild.channelId, data: { id: posted.id, name: 'ping', type: 1 } },
      });
    await expectRefusedWithoutEvents(server, invoke, 403, 'MISSING_ACCESS');
    const click = () =>
      server.api('POST', '/interactions/click', { token: member.token, body: { channel_id: guild.channelId, message_id: posted.id, custom_id: 'go' } });
    await expectRefusedWithoutEvents(server, click, 403, 'MISSING_ACCESS');
    expect((await server.api('GET', `/channels/${guild.channelId}/messages?limit=5`, { token: member.token })).status).toBe(200);
    // Their permissions hold only reading meanwhile: moderating others is refused too.
    const invite = () => server.api('POST', `/channels/${guild.channelId}/invites`, { token: member.token, body: {} });
    await expectRefusedWithoutEvents(server, invite, 403, 'MISSING_PERMISSIONS');

    const lifted = await timeout(member.id, null);
    expect(lifted.body.communication_disabled_until).toBeNull();
    expect((await send(guild.channelId, member.token, 'back')).status).toBe(200);
    expect((await react()).status).toBe(204);
  });

  it('needs MODERATE_MEMBERS, refuses the owner, members at or above the actor and administrators, and 28 days at most', async () => {
    const { guild, mod, member, timeout } = await moderatedGuild();
    const admin = await newMember(server, guild);
    await grantRole(server, guild, admin, Permission.ADMINISTRATOR, 'admins');
    const peer = await newMember(server, guild);
    const until = inMinutes(5);
    await expectRefusedWithoutEvents(server, () => timeout(mod.id, until, member.token), 403, 'MISSING_PERMISSIONS');
    await expectRefusedWithoutEvents(server, () => timeout(guild.owner.id, until), 403, 'MISSING_PERMISSIONS');
    await expectRefusedWithoutEvents(server, () => timeout(mod.id, until), 403, 'MISSING_PERMISSIONS');
    // The admins role is newer, so below the moderator's: only ADMINISTRATOR protects the member.
    await expectRefusedWithoutEvents(server, () => timeout(admin.id, until), 403, 'MISSING_PERMISSIONS');
    await expectRefusedWithoutEvents(server, () => timeout(peer.id, inMinutes(28 * 24 * 60 + 1)), 400, 'INVALID_FORM_BODY');
    const tooLong = await timeout(peer.id, inMinutes(28 * 24 * 60 + 1));
    expect(tooLong.body.errors.map((e: { path: string }) => e.path)).toEqual(['communication_disabled_until']);
    const v10 = await server.call('PATCH', `/api/v10/guilds/${guild.id}/members/${peer.id}`, {
      token: mod.token,
      body: { communication_disabled_until: inMinutes(28 * 24 * 60 + 1) },
    });
    expect(v10.body.errors.communication_disabled_until._errors[0].code).toBe('INVALID_COMMUNICATION_DISABLED_TIMESTAMP');
    expectError(await timeout(peer.id, 'tomorrow'), 400, 'INVALID_FORM_BODY');
    expect((await timeout(peer.id, inMinutes(28 * 24 * 60 - 1))).status).toBe(200);
  });

  it('records audit entry 24 with the change and the reason, and dispatches GUILD_MEMBER_UPDATE with the field', async () => {
    const { guild, mod, member, timeout } = await moderatedGuild();
    const watcher = await gateway.session(guild.owner.token, GUILD_MEMBERS);
    const until = inMinutes(3);
    await timeout(member.id, until);
    const update = await watcher.next((p) => p.t === 'GUILD_MEMBER_UPDATE' && p.d.user.id === member.id && p.d.communication_disabled_until !== null);
    expect(Date.parse(update.d.communication_disabled_until)).toBe(Date.parse(until));
    await timeout(member.id, null);
    await watcher.next((p) => p.t === 'GUILD_MEMBER_UPDATE' && p.d.user.id === member.id && p.d.communication_disabled_until === null);

    const entries = (await server.api('GET', `/guilds/${guild.id}/audit-logs?action_type=24`, { token: guild.owner.token })).body.entries;
    const stored = new Date(Date.parse(until)).toISOString();
    expect(entries.slice(0, 2)).toMatchObject([
      { action_type: 24, user_id: mod.id, target_id: member.id, reason: 'cool down', changes: [{ key: 'communication_disabled_until', old_value: stored }] },
      { action_type: 24, user_id: mod.id, target_id: member.id, reason: 'cool down', changes: [{ key: 'communication_disabled_until', new_value: stored }] },
    ]);
  });
});

describe('slowmode', () => {
  async function slowedChannel(seconds: number) {
    const guild = await createGuild(server);
    const channel = await server.api('POST', `/guilds/${guild.id}/channels`, {
      token: guild.owner.token,
      body: { name: 'slow', rate_limit_per_user: seconds },
    });
    expect(channel.body.rate_limit_per_user).toBe(seconds);
    return { guild, channelId: channel.body.id as string };
  }

  it('answers a second send within the window 429 with retry_after, and appends nothing', async () => {
    const { guild, channelId } = await slowedChannel(10);
    const member = await newMember(server, guild);
    expect((await send(channelId, member.token)).status).toBe(200);
    const before = await server.runtime.store.headPosition();
    await expectSlowmodeRefused(server, await send(channelId, member.token), 10, before);
    // Numbered as the widely used API numbers it where its clients read the code.
    const onV10 = await server.call('POST', `/api/v10/channels/${channelId}/messages`, { token: member.token, body: { content: 'again' } });
    expect([onV10.status, onV10.body.code]).toEqual([429, 20016]);
    // Per user and per channel: another member, and the same member elsewhere, are not held back.
    expect((await send(channelId, (await newMember(server, guild)).token)).status).toBe(200);
    expect((await send(guild.channelId, member.token)).status).toBe(200);
  });

  it('lets a member start one thread per window, counted apart from their messages, with or without a message', async () => {
    const { guild, channelId } = await slowedChannel(60);
    const member = await newMember(server, guild);
    // A thread its own rules refuse (its message has one already) takes nothing from the window.
    const taken = (await send(channelId, guild.owner.token, 'taken')).body.id;
    const onTaken = (token: string) => server.api('POST', `/channels/${channelId}/messages/${taken}/threads`, { token, body: { name: 'on taken' } });
    expect((await onTaken(guild.owner.token)).status).toBe(201);
    await expectRefusedWithoutEvents(server, () => onTaken(member.token), 400, 'THREAD_ALREADY_CREATED');
    // A message, then a thread: one of each in the window.
    const sent = await send(channelId, member.token);
    expect(sent.status).toBe(200);
    expect((await startThread(channelId, member.token)).status).toBe(201);
    const before = await server.runtime.store.headPosition();
    await expectSlowmodeRefused(server, await startThread(channelId, member.token), 60, before);
    const fromMessage = () =>
      server.api('POST', `/channels/${channelId}/messages/${sent.body.id}/threads`, { token: member.token, body: { name: 'from a message' } });
    await expectRefusedWithoutEvents(server, fromMessage, 429, 'SLOWMODE_RATE_LIMITED');
    for (const version of ['v9', 'v10']) {
      const numbered = await server.call('POST', `/api/${version}/channels/${channelId}/threads`, { token: member.token, body: { name: 'again', type: 11 } });
      expect([version, numbered.status, numbered.body.code]).toEqual([version, 429, 20016]);
    }
    // A thread from a message, then a message: one of each again, for another member.
    const other = await newMember(server, guild);
    const fromSent = await server.api('POST', `/channels/${channelId}/messages/${sent.body.id}/threads`, { token: other.token, body: { name: 'on it' } });
    expect(fromSent.status).toBe(201);
    expect((await send(channelId, other.token)).status).toBe(200);
    await expectRefusedWithoutEvents(server, () => send(channelId, other.token), 429, 'SLOWMODE_RATE_LIMITED');
  });

  it('lets one of several concurrent sends by a member through', async () => {
    const { guild, channelId } = await slowedChannel(60);
    const member = await newMember(server, guild);
    const statuses = (await Promise.all([1, 2, 3, 4].map((n) => send(channelId, member.token, `racing ${n}`)))).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 429, 429, 429]);
  });

  it('exempts bots, MANAGE_MESSAGES and MANAGE_CHANNELS, for messages and threads alike; no limit at 0', async () => {
    const { guild, channelId } = await slowedChannel(30);
    const [messages, channels] = [await newMember(server, guild), await newMember(server, guild)];
    await grantRole(server, guild, messages, Permission.MANAGE_MESSAGES, 'message managers');
    await grantRole(server, guild, channels, Permission.MANAGE_CHANNELS, 'channel managers');
    for (const token of [messages.token, channels.token, guild.owner.token]) {
      expect([(await send(channelId, token)).status, (await send(channelId, token)).status]).toEqual([200, 200]);
      expect([(await startThread(channelId, token)).status, (await startThread(channelId, token)).status]).toEqual([201, 201]);
    }
    // A bot answering in a slowed channel is not held back, as on the widely used API.
    const bot = await createBot(server);
    await join(server, guild, bot, 'Bot');
    const beeps = [await send(channelId, bot.token, 'beep', 'Bot'), await send(channelId, bot.token, 'beep', 'Bot')];
    expect(beeps.map((r) => r.status)).toEqual([200, 200]);
    expect([(await startThread(channelId, bot.token, 'Bot')).status, (await startThread(channelId, bot.token, 'Bot')).status]).toEqual([201, 201]);
    const fromBeep = (n: number) =>
      server.api('POST', `/channels/${channelId}/messages/${beeps[n].body.id}/threads`, { token: bot.token, scheme: 'Bot', body: { name: 'on a beep' } });
    expect([(await fromBeep(0)).status, (await fromBeep(1)).status]).toEqual([201, 201]);

    const off = await server.api('PATCH', `/channels/${channelId}`, { token: guild.owner.token, body: { rate_limit_per_user: 0 } });
    expect(off.body.rate_limit_per_user).toBe(0);
    const member = await newMember(server, guild);
    expect([(await send(channelId, member.token)).status, (await send(channelId, member.token)).status]).toEqual([200, 200]);
  });
});

describe('in threads', () => {
  /** A public thread of the guild's channel, started by its owner, with its own slowmode. */
  async function thread(guild: Awaited<ReturnType<typeof createGuild>>, slowmode = 0) {
    const created = await server.api('POST', `/channels/${guild.channelId}/threads`, {
      token: guild.owner.token,
      body: { name: 'a thread', type: 11, rate_limit_per_user: slowmode },
    });
    expect(created.status).toBe(201);
    return created.body.id as string;
  }

  it('holds sends to the thread’s own slowmode, which MANAGE_THREADS exempts as MANAGE_MESSAGES does', async () => {
    const guild = await createGuild(server);
    const threadId = await thread(guild, 10);
    const [member, threads] = [await newMember(server, guild), await newMember(server, guild)];
    await grantRole(server, guild, threads, Permission.MANAGE_THREADS, 'thread managers');
    expect((await send(threadId, member.token)).status).toBe(200);
    await expectRefusedWithoutEvents(server, () => send(threadId, member.token), 429, 'SLOWMODE_RATE_LIMITED');
    // The thread's parent has no slowmode of its own.
    expect((await send(guild.channelId, member.token)).status).toBe(200);
    expect([(await send(threadId, threads.token)).status, (await send(threadId, threads.token)).status]).toEqual([200, 200]);
  });

  it('refuses a timed-out member a thread of their own and joining one, with MISSING_ACCESS', async () => {
    const { guild, member, timeout } = await moderatedGuild();
    const threadId = await thread(guild);
    expect((await timeout(member.id, inMinutes(10))).status).toBe(200);
    const start = () => server.api('POST', `/channels/${guild.channelId}/threads`, { token: member.token, body: { name: 'mine', type: 11 } });
    await expectRefusedWithoutEvents(server, start, 403, 'MISSING_ACCESS');
    const joinThread = () => server.api('PUT', `/channels/${threadId}/thread-members/@me`, { token: member.token });
    await expectRefusedWithoutEvents(server, joinThread, 403, 'MISSING_ACCESS');
    await expectRefusedWithoutEvents(server, () => send(threadId, member.token), 403, 'MISSING_ACCESS');
    expect((await timeout(member.id, null)).status).toBe(200);
    expect((await joinThread()).status).toBe(204);
  });
});
