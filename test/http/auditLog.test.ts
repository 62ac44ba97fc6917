// The audit log through the real HTTPS API: entries derived from events (action types, targets, changes, options,
// actor, reason, time), filters and pagination, permission, rate limit, and a rebuild that gives identical entries.
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { fileServer, registerUser } from '../support/server.js';
import { type TestGuild, createGuild, expectError, grantRole, newMember } from './guildSupport.js';

const server = await fileServer();

interface Entry {
  id: string;
  action_type: number;
  target_id: string | null;
  user_id: string;
  changes?: { key: string; old_value?: unknown; new_value?: unknown }[];
  options?: Record<string, string>;
  reason?: string;
  timestamp: string;
}

const reason = (text: string) => ({ 'X-Audit-Log-Reason': encodeURIComponent(text) });

/** Runs one of each audited action in a fresh guild; returns the guild and the ids involved. */
async function busyGuild() {
  const guild = await createGuild(server, undefined, 'Audited');
  const token = guild.owner.token;
  const [kicked, banned, member] = [await newMember(server, guild), await newMember(server, guild), await newMember(server, guild)];
  await server.api('PATCH', `/guilds/${guild.id}`, { token, body: { name: 'Audited Guild' }, headers: reason('new name') });
  const channel = (await server.api('POST', `/guilds/${guild.id}/channels`, { token, body: { name: 'logs' } })).body;
  await server.api('PATCH', `/channels/${channel.id}`, { token, body: { topic: 'All of it' } });
  await server.api('PUT', `/channels/${channel.id}/permissions/${guild.id}`, { token, body: { type: 0, deny: Permission.SEND_MESSAGES.toString() } });
  await server.api('DELETE', `/channels/${channel.id}`, { token, headers: reason('tidy up') });
  const role = (await server.api('POST', `/guilds/${guild.id}/roles`, { token, body: { name: 'Crew' } })).body;
  await server.api('PATCH', `/guilds/${guild.id}/roles/${role.id}`, { token, body: { name: 'Deck crew' } });
  await server.api('PUT', `/guilds/${guild.id}/members/${member.id}/roles/${role.id}`, { token });
  await server.api('DELETE', `/guilds/${guild.id}/roles/${role.id}`, { token });
  await server.api('DELETE', `/guilds/${guild.id}/members/${kicked.id}`, { token, headers: reason('ünïcödé & spaces') });
  await server.api('PUT', `/guilds/${guild.id}/bans/${banned.id}`, { token, body: { delete_message_days: 1 } });
  await server.api('DELETE', `/guilds/${guild.id}/bans/${banned.id}`, { token });
  const invite = (await server.api('POST', `/channels/${guild.channelId}/invites`, { token, body: { max_uses: 2, unique: true } })).body;
  await server.api('DELETE', `/invites/${invite.code}`, { token });
  await server.api('POST', `/guilds/${guild.id}/vanity-url`, { token, body: { code: `audit-${guild.id}` } });
  return { guild, channel, role, kicked, banned, member, invite };
}

async function auditLog(guild: TestGuild, query = '', token = guild.owner.token) {
  return server.api('GET', `/guilds/${guild.id}/audit-logs${query}`, { token });
}

describe('audit log', () => {
  it('records each audited action with its target, changes, options, actor, reason and time', async () => {
    const { guild, channel, role, kicked, banned, member, invite } = await busyGuild();
    const response = await auditLog(guild);
    expect(response.status).toBe(200);
    const entries: Entry[] = response.body.entries;
    expect(response.body.audit_log_entries).toEqual(entries);
    expect(response.body).toMatchObject({ webhooks: [], integrations: [], guild_scheduled_events: [], auto_moderation_rules: [] });
    // Oldest last: the invite members joined through, made with the guild.
    expect(entries.map((e) => e.action_type)).toEqual([1, 42, 40, 23, 22, 20, 32, 24, 31, 30, 12, 11, 11, 10, 1, 40]);
    expect(entries.every((e) => e.user_id === guild.owner.id && !Number.isNaN(Date.parse(e.timestamp)))).toBe(true);
    const ids = entries.map((e) => BigInt(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => (a > b ? -1 : 1)));

    const byType = (type: number) => entries.filter((e) => e.action_type === type);
    expect(byType(1)[1]).toMatchObject({
      target_id: guild.id,
      reason: 'new name',
      changes: [{ key: 'name', old_value: 'Audited', new_value: 'Audited Guild' }],
    });
    expect(byType(1)[0].changes).toEqual([{ key: 'vanity_url_code', old_value: null, new_value: `audit-${guild.id}` }]);
    expect(byType(10)[0]).toMatchObject({
      target_id: channel.id,
      changes: expect.arrayContaining([
        { key: 'name', new_value: 'logs' },
        { key: 'type', new_value: 0 },
      ]),
    });
    expect(byType(11)[1].changes).toEqual([{ key: 'topic', old_value: null, new_value: 'All of it' }]);
    expect(byType(11)[0]).toMatchObject({
      options: { id: guild.id, type: '0' },
      changes: [
        { key: 'allow', new_value: '0' },
        { key: 'deny', new_value: '2048' },
      ],
    });
    expect(byType(12)[0]).toMatchObject({ target_id: channel.id, reason: 'tidy up', changes: expect.arrayContaining([{ key: 'name', old_value: 'logs' }]) });
    expect(byType(30)[0]).toMatchObject({ target_id: role.id, changes: expect.arrayContaining([{ key: 'name', new_value: 'Crew' }]) });
    expect(byType(31)[0].changes).toEqual([{ key: 'name', old_value: 'Crew', new_value: 'Deck crew' }]);
    expect(byType(32)[0]).toMatchObject({ target_id: role.id, changes: expect.arrayContaining([{ key: 'name', old_value: 'Deck crew' }]) });
    expect(byType(24)[0]).toMatchObject({ target_id: member.id, changes: [{ key: '$add', new_value: [{ id: role.id, name: 'Deck crew' }] }] });
    expect(byType(20)[0]).toMatchObject({ target_id: kicked.id, reason: 'ünïcödé & spaces' });
    expect(byType(22)[0]).toMatchObject({ target_id: banned.id, options: { delete_message_days: '1', delete_message_seconds: '86400' } });
    expect(byType(23)[0].target_id).toBe(banned.id);
    expect(byType(40)[0].changes).toEqual(
      expect.arrayContaining([
        { key: 'code', new_value: invite.code },
        { key: 'max_uses', new_value: 2 },
      ]),
    );
    expect(byType(42)[0].changes).toEqual(expect.arrayContaining([{ key: 'code', old_value: invite.code }]));
    expect(byType(23)[0].reason).toBeUndefined();

    const users = response.body.users.map((u: { id: string }) => u.id).sort();
    expect(users).toEqual([guild.owner.id, kicked.id, banned.id, member.id].sort());
  });

  it('filters by actor and action type, and pages by entry id', async () => {
    const guild = await createGuild(server);
    const moderator = await newMember(server, guild);
    await grantRole(server, guild, moderator, Permission.MANAGE_CHANNELS | Permission.VIEW_AUDIT_LOG);
    for (const name of ['a', 'b', 'c']) await server.api('POST', `/guilds/${guild.id}/channels`, { token: moderator.token, body: { name } });
    await server.api('PATCH', `/guilds/${guild.id}`, { token: guild.owner.token, body: { name: 'Filtered' } });

    const mine = (await auditLog(guild, `?user_id=${moderator.id}`, moderator.token)).body.entries as Entry[];
    expect(mine.map((e) => e.action_type)).toEqual([10, 10, 10]);
    const updates = (await auditLog(guild, '?action_type=1')).body.entries as Entry[];
    expect(updates).toHaveLength(1);
    expect(updates[0].user_id).toBe(guild.owner.id);

    const all = (await auditLog(guild)).body.entries as Entry[];
    const newest = (await auditLog(guild, '?limit=2')).body.entries as Entry[];
    expect(newest.map((e) => e.id)).toEqual(all.slice(0, 2).map((e) => e.id));
    const older = (await auditLog(guild, `?before=${newest[1].id}&limit=2`)).body.entries as Entry[];
    expect(older.map((e) => e.id)).toEqual(all.slice(2, 4).map((e) => e.id));
    const newer = (await auditLog(guild, `?after=${all[3].id}&limit=2`)).body.entries as Entry[];
    expect(newer.map((e) => e.id)).toEqual(all.slice(1, 3).map((e) => e.id));
  });

  it('refuses before with after, and limits outside 1-100', async () => {
    const guild = await createGuild(server);
    expectError(await auditLog(guild, '?before=1&after=2'), 400, 'INVALID_FORM_BODY');
    expectError(await auditLog(guild, '?limit=101'), 400, 'INVALID_FORM_BODY');
    expect((await auditLog(guild, '?limit=100')).status).toBe(200);
  });

  it('needs VIEW_AUDIT_LOG, and is unknown to outsiders', async () => {
    const guild = await createGuild(server);
    const member = await newMember(server, guild);
    const stranger = await registerUser(server);
    expectError(await auditLog(guild, '', member.token), 403, 'MISSING_PERMISSIONS');
    expectError(await auditLog(guild, '', stranger.token), 404, 'UNKNOWN_GUILD');
    await grantRole(server, guild, member, Permission.VIEW_AUDIT_LOG);
    expect((await auditLog(guild, '', member.token)).status).toBe(200);
  });

  it('allows a burst of 10 per guild, then 429 with Retry-After and rate limit headers', async () => {
    const guild = await createGuild(server);
    for (let i = 0; i < 10; i++) {
      const response = await auditLog(guild);
      expect(response.status).toBe(200);
      expect(response.headers['x-ratelimit-limit']).toBe('5');
    }
    const limited = await auditLog(guild);
    expectError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another guild has its own bucket.
    expect((await auditLog(await createGuild(server))).status).toBe(200);
  });

  it('rebuilds from the log into identical entries and read models', async () => {
    const { guild } = await busyGuild();
    const readModels = ['audit_log_entries', 'guilds', 'roles', 'channels', 'members', 'bans', 'invites'];
    const snapshot = async () => Promise.all(readModels.map((collection) => server.runtime.readStore.find(collection, {}, { sort: { _id: 1 } })));
    const before = await snapshot();
    const entriesBefore = (await auditLog(guild)).body.entries;
    expect(before[0].length).toBeGreaterThan(10);

    await server.runtime.projections.rebuild();

    expect(await snapshot()).toEqual(before);
    expect((await auditLog(guild)).body.entries).toEqual(entriesBefore);
  });
});
