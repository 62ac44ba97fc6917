// Prune and bulk ban over HTTPS, with real gateway sessions watching. Inactivity is made by moving the service's clock
// forward: the activity before the move is days old when the prune runs.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { fileGateway } from '../support/gateway.js';
import { type TestUser, registerUser } from '../support/server.js';
import { type TestGuild, createGuild, expectError, expectRefusedWithoutEvents, grantRole, newMember } from './guildSupport.js';

const { server, gateway } = await fileGateway();
afterEach(() => {
  vi.restoreAllMocks();
});

const DAY_MS = 24 * 60 * 60 * 1000;
const GUILDS = 1 << 0;
const GUILD_MEMBERS = 1 << 1;
const GUILD_MODERATION = 1 << 2;
const MODERATOR = Permission.KICK_MEMBERS | Permission.BAN_MEMBERS | Permission.MANAGE_GUILD;

/** The service's clock `days` ahead of the real one from now on (until the test ends). */
const daysLater = (days: number) => vi.spyOn(server.runtime.clock, 'now').mockReturnValue(Date.now() + days * DAY_MS);

const pruneCount = (guild: TestGuild, query: string, token = guild.owner.token) => server.api('GET', `/guilds/${guild.id}/prune${query}`, { token });
const prune = (guild: TestGuild, body: object, token = guild.owner.token, headers: Record<string, string> = {}) =>
  server.api('POST', `/guilds/${guild.id}/prune`, { token, body, headers });
const bulkBan = (guild: TestGuild, body: object, token = guild.owner.token, headers: Record<string, string> = {}) =>
  server.api('POST', `/guilds/${guild.id}/bulk-ban`, { token, body, headers });
const send = (guild: TestGuild, user: TestUser, content: string) =>
  server.api('POST', `/channels/${guild.channelId}/messages`, { token: user.token, body: { content } });
const auditEntries = async (guild: TestGuild, action: number) =>
  (await server.api('GET', `/guilds/${guild.id}/audit-logs?action_type=${action}`, { token: guild.owner.token })).body.audit_log_entries;
const memberIds = async (guild: TestGuild) =>
  (await server.api('GET', `/guilds/${guild.id}/members?limit=1000`, { token: guild.owner.token })).body.map((m: { user: { id: string } }) => m.user.id);
const fieldPaths = (body: { errors?: { path: string }[] }) => body.errors?.map((e) => e.path);

describe('prune', () => {
  it('counts and removes members without roles inactive for `days`, with GUILD_MEMBER_REMOVE and one audit entry 21', async () => {
    const guild = await createGuild(server);
    const watcher = await gateway.session(guild.owner.token, GUILDS | GUILD_MEMBERS);
    const [idle, lurker, chatty, reactor, sleeper, ranked] = await Promise.all(Array.from({ length: 6 }, () => newMember(server, guild)));
    const idleSession = await gateway.session(idle.token, GUILDS);
    const lurkerRole = await grantRole(server, guild, lurker, 0n, 'lurker');
    await grantRole(server, guild, ranked, 0n, 'ranked');

    // Five days on: a message, a reaction and a gateway session start are each activity.
    daysLater(5);
    const message = await send(guild, chatty, 'still here');
    expect(message.status).toBe(200);
    const react = await server.api('PUT', `/channels/${guild.channelId}/messages/${message.body.id}/reactions/${encodeURIComponent('👍')}/@me`, {
      token: reactor.token,
    });
    expect(react.status).toBe(204);
    await gateway.session(sleeper.token, GUILDS);

    daysLater(10);
    expect((await pruneCount(guild, '')).body).toEqual({ pruned: 1 });
    expect((await pruneCount(guild, '?days=7')).body).toEqual({ pruned: 1 });
    expect((await pruneCount(guild, `?days=7&include_roles=${lurkerRole}`)).body).toEqual({ pruned: 2 });
    expect((await pruneCount(guild, '?days=3')).body).toEqual({ pruned: 4 });
    expect((await pruneCount(guild, '?days=30')).body).toEqual({ pruned: 0 });

    const pruned = await prune(guild, { days: 7, include_roles: [lurkerRole] }, guild.owner.token, { 'X-Audit-Log-Reason': 'spring cleaning' });
    expect(pruned.status).toBe(200);
    expect(pruned.body).toEqual({ pruned: 2 });
    expect((await memberIds(guild)).sort()).toEqual([guild.owner.id, chatty.id, reactor.id, sleeper.id, ranked.id].sort());
    for (const gone of [idle, lurker]) {
      const removal = await watcher.next((p) => p.t === 'GUILD_MEMBER_REMOVE' && p.d.user.id === gone.id);
      expect(removal.d.guild_id).toBe(guild.id);
    }
    expect((await idleSession.dispatch('GUILD_DELETE')).d).toEqual({ id: guild.id });
    expect((await server.api('GET', `/guilds/${guild.id}?with_counts=true`, { token: guild.owner.token })).body.member_count).toBe(5);

    const entries = await auditEntries(guild, 21);
    expect(entries).toEqual([
      expect.objectContaining({
        action_type: 21,
        user_id: guild.owner.id,
        target_id: null,
        options: { delete_member_days: '7', members_removed: '2' },
        reason: 'spring cleaning',
      }),
    ]);
    expect(await auditEntries(guild, 20)).toEqual([]);
  });

  it('never prunes the owner, and keeps a member who joined within `days`; `pruned` is null when not asked for', async () => {
    const guild = await createGuild(server);
    const early = await newMember(server, guild);
    daysLater(8);
    const late = await newMember(server, guild);
    expect((await pruneCount(guild, '?days=7')).body).toEqual({ pruned: 1 });
    const pruned = await prune(guild, { days: 7, compute_prune_count: false });
    expect(pruned.body).toEqual({ pruned: null });
    expect((await memberIds(guild)).sort()).toEqual([guild.owner.id, late.id].sort());
    expect(await memberIds(guild)).not.toContain(early.id);
  });

  it('refuses without KICK_MEMBERS and MANAGE_GUILD both, appending nothing', async () => {
    const guild = await createGuild(server);
    const [kicker, manager, plain] = await Promise.all([newMember(server, guild), newMember(server, guild), newMember(server, guild)]);
    await grantRole(server, guild, kicker, Permission.KICK_MEMBERS);
    await grantRole(server, guild, manager, Permission.MANAGE_GUILD);
    daysLater(10);
    for (const user of [kicker, manager, plain]) {
      await expectRefusedWithoutEvents(server, () => prune(guild, { days: 1 }, user.token), 403, 'MISSING_PERMISSIONS');
      expectError(await pruneCount(guild, '?days=1', user.token), 403, 'MISSING_PERMISSIONS');
    }
    const outsider = await registerUser(server);
    await expectRefusedWithoutEvents(server, () => prune(guild, { days: 1 }, outsider.token), 404, 'UNKNOWN_GUILD');
    expect(await memberIds(guild)).toHaveLength(4);
  });

  it('refuses days out of 1-30, and include_roles that are not the guild’s roles, by path', async () => {
    const guild = await createGuild(server);
    for (const [body, path] of [
      [{ days: 0 }, 'days'],
      [{ days: 31 }, 'days'],
      [{ days: 'seven' }, 'days'],
      [{ compute_prune_count: 'yes' }, 'compute_prune_count'],
      [{ include_roles: ['nope'] }, 'include_roles.0'],
      [{ include_roles: [guild.id] }, 'include_roles.0'],
      [{ include_roles: ['123', '456'] }, 'include_roles.0'],
    ] as const) {
      let response;
      await expectRefusedWithoutEvents(server, async () => (response = await prune(guild, body)), 400, 'INVALID_FORM_BODY');
      expect(fieldPaths(response!.body)).toContain(path);
    }
    for (const [query, path] of [
      ['?days=0', 'days'],
      ['?days=31', 'days'],
      ['?include_roles=a,b', 'include_roles'],
    ] as const) {
      const response = await pruneCount(guild, query);
      expectError(response, 400, 'INVALID_FORM_BODY');
      expect(fieldPaths(response.body)).toEqual([path]);
    }
  });
});

describe('bulk ban', () => {
  it('bans each user it can with one audit entry 22 and GUILD_BAN_ADD each, deleting their messages, and lists the others as failed', async () => {
    const guild = await createGuild(server);
    const watcher = await gateway.session(guild.owner.token, GUILDS | GUILD_MEMBERS | GUILD_MODERATION);
    const [mod, spammer, quiet, senior] = await Promise.all(Array.from({ length: 4 }, () => newMember(server, guild)));
    const stranger = await registerUser(server);
    const already = await registerUser(server);
    await grantRole(server, guild, senior, 0n, 'senior');
    await grantRole(server, guild, mod, MODERATOR, 'mod');
    expect((await server.api('PUT', `/guilds/${guild.id}/bans/${already.id}`, { token: guild.owner.token })).status).toBe(204);
    const spam = await send(guild, spammer, 'buy now');
    const spammerSession = await gateway.session(spammer.token, GUILDS);

    const unknown = '123456789012345678';
    const response = await bulkBan(
      guild,
      { user_ids: [spammer.id, quiet.id, stranger.id, already.id, guild.owner.id, senior.id, unknown], delete_message_seconds: 3600 },
      mod.token,
      { 'X-Audit-Log-Reason': 'raid' },
    );
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ banned_users: [spammer.id, quiet.id, stranger.id], failed_users: [already.id, guild.owner.id, senior.id, unknown] });

    expect((await server.api('GET', `/channels/${guild.channelId}/messages/${spam.body.id}`, { token: guild.owner.token })).status).toBe(404);
    expect((await memberIds(guild)).sort()).toEqual([guild.owner.id, mod.id, senior.id].sort());
    const bans = (await server.api('GET', `/guilds/${guild.id}/bans`, { token: guild.owner.token })).body.map((b: { user: { id: string } }) => b.user.id);
    expect(bans.sort()).toEqual([spammer.id, quiet.id, stranger.id, already.id].sort());

    const entries = (await auditEntries(guild, 22)).filter((e: { user_id: string }) => e.user_id === mod.id);
    expect(entries.map((e: { target_id: string }) => e.target_id).sort()).toEqual([spammer.id, quiet.id, stranger.id].sort());
    expect(entries.map((e: { reason: string; options: object }) => [e.reason, e.options])).toEqual(
      entries.map(() => ['raid', { delete_message_days: '0', delete_message_seconds: '3600' }]),
    );
    for (const user of [spammer, quiet, stranger]) await watcher.next((p) => p.t === 'GUILD_BAN_ADD' && p.d.user.id === user.id);
    for (const user of [spammer, quiet]) await watcher.next((p) => p.t === 'GUILD_MEMBER_REMOVE' && p.d.user.id === user.id);
    expect((await spammerSession.dispatch('GUILD_DELETE')).d).toEqual({ id: guild.id });
  });

  it('refuses as FAILED_TO_BAN_USERS, appending nothing, when it can ban nobody', async () => {
    const guild = await createGuild(server);
    await expectRefusedWithoutEvents(server, () => bulkBan(guild, { user_ids: [guild.owner.id, '123456789012345678'] }), 400, 'FAILED_TO_BAN_USERS');
  });

  it('refuses without BAN_MEMBERS and MANAGE_GUILD both, appending nothing', async () => {
    const guild = await createGuild(server);
    const [banner, manager, target] = await Promise.all([newMember(server, guild), newMember(server, guild), newMember(server, guild)]);
    await grantRole(server, guild, banner, Permission.BAN_MEMBERS);
    await grantRole(server, guild, manager, Permission.MANAGE_GUILD);
    for (const user of [banner, manager, target]) {
      await expectRefusedWithoutEvents(server, () => bulkBan(guild, { user_ids: [target.id] }, user.token), 403, 'MISSING_PERMISSIONS');
    }
  });

  it('refuses an empty list, more than 200 ids, ids that are not snowflakes and delete_message_seconds over 7 days, by path', async () => {
    const guild = await createGuild(server);
    const many = Array.from({ length: 201 }, (_, i) => String(100000000000000000n + BigInt(i)));
    for (const [body, path] of [
      [{}, 'user_ids'],
      [{ user_ids: [] }, 'user_ids'],
      [{ user_ids: many }, 'user_ids'],
      [{ user_ids: ['x'] }, 'user_ids.0'],
      [{ user_ids: [guild.owner.id], delete_message_seconds: 604801 }, 'delete_message_seconds'],
      [{ user_ids: [guild.owner.id], delete_message_seconds: -1 }, 'delete_message_seconds'],
    ] as const) {
      let response;
      await expectRefusedWithoutEvents(server, async () => (response = await bulkBan(guild, body)), 400, 'INVALID_FORM_BODY');
      expect(fieldPaths(response!.body)).toEqual([path]);
    }
  });
});
