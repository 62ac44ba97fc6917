// Time travel through the real HTTPS API: the guild as it was before a raid equals what the API answered then, the
// diff between two moments lists the raid in the audit log's words, and every refusal in the /api/v10 error form.
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { encodePosition } from '../../ports/eventStore.js';
import { fileServer, registerUser } from '../support/server.js';
import { createGuild, expectError, expectRefusedWithoutEvents, grantRole, newMember } from './guildSupport.js';
import { clockPast, moduloIds, raidedGuild, structureNow } from './raidSupport.js';

const server = await fileServer();
const v10 = (method: string, path: string, token: string) => server.call(method, `/api/v10${path}`, { token });

describe('guild history', () => {
  it('answers the guild as it was at a time and at a log position, folded from the log', async () => {
    const guild = await createGuild(server, undefined, 'Travel');
    const owner = { token: guild.owner.token };
    const member = await newMember(server, guild);
    const role = (await server.api('POST', `/guilds/${guild.id}/roles`, { ...owner, body: { name: 'crew', permissions: '1024' } })).body;
    await server.api('PUT', `/guilds/${guild.id}/members/${member.id}/roles/${role.id}`, owner);
    await server.api('POST', `/guilds/${guild.id}/channels`, { ...owner, body: { name: 'deck', topic: 'Ahoy' } });
    const then = await structureNow(server, guild);
    await server.api('PUT', `/guilds/${guild.id}/bans/${member.id}`, { ...owner, body: {}, headers: { 'X-Audit-Log-Reason': 'mutiny' } });
    const banned = await server.api('GET', `/guilds/${guild.id}/history?at=${encodeURIComponent(new Date().toISOString())}`, owner);
    expect(banned.status).toBe(200);
    expect(banned.body.bans).toEqual([{ user: { id: member.id, username: member.username }, reason: 'mutiny' }]);

    await clockPast(Date.now());
    const at = new Date().toISOString();
    await clockPast(Date.parse(at));
    // The present moves on: a channel goes, @everyone changes, the ban is lifted.
    await server.api('DELETE', `/channels/${then.channels.find((c: { name: string }) => c.name === 'deck').id}`, owner);
    await server.api('PATCH', `/guilds/${guild.id}/roles/${guild.id}`, { ...owner, body: { permissions: '0' } });
    await server.api('DELETE', `/guilds/${guild.id}/bans/${member.id}`, owner);

    const history = await server.api('GET', `/guilds/${guild.id}/history?at=${encodeURIComponent(at)}`, owner);
    expect(history.status).toBe(200);
    expect(history.body.at.time).toBe(at);
    expect(history.body.guild).toMatchObject({ id: guild.id, name: 'Travel', owner_id: guild.owner.id });
    expect(moduloIds(history.body.channels, history.body.roles)).toEqual(moduloIds(then.channels, then.roles));
    expect(history.body.bans).toEqual([{ user: { id: member.id, username: member.username }, reason: 'mutiny' }]);
    expect(history.body.members).toEqual([
      { user: { id: guild.owner.id, username: guild.owner.username }, roles: [], joined_at: expect.any(String), communication_disabled_until: null },
    ]);
    expect(history.body).toMatchObject({ auto_moderation_rules: [] });

    // The same moment named by its log position answers the same structure.
    const byPosition = await server.api('GET', `/guilds/${guild.id}/history?at=${history.body.at.position}`, owner);
    expect(byPosition.body).toEqual({ ...history.body, at: { ...history.body.at, time: expect.any(String) } });
    // The present is not the past.
    const now = await server.api('GET', `/guilds/${guild.id}/history?at=${encodeURIComponent(new Date().toISOString())}`, owner);
    expect(now.body.channels.map((c: { name: string }) => c.name)).not.toContain('deck');
    expect(now.body.bans).toEqual([]);
  });

  it('shows the structure before a raid equal to what the API answered then, and the raid as a diff in audit-log words', async () => {
    const raid = await raidedGuild(server, 3);
    const owner = { token: raid.guild.owner.token };
    const history = await server.api('GET', `/guilds/${raid.guild.id}/history?at=${encodeURIComponent(raid.beforeRaid)}`, owner);
    expect(history.status).toBe(200);
    const names = history.body.channels.map((c: { name: string }) => c.name);
    expect(names).toEqual(expect.arrayContaining(['general', 'info', 'rules', 'chat', 'Lounge']));
    expect(names.some((n: string) => n.startsWith('spam'))).toBe(false);
    expect(history.body.channels.find((c: { name: string }) => c.name === 'rules')).toMatchObject({
      topic: 'Be kind',
      parent_id: history.body.channels.find((c: { name: string }) => c.name === 'info').id,
      permission_overwrites: expect.arrayContaining([{ id: raid.modsRoleId, type: 0, allow: Permission.SEND_MESSAGES.toString(), deny: '0' }]),
    });
    expect(history.body.roles.map((r: { name: string }) => r.name)).toEqual(['@everyone', 'mods', 'helper']);
    expect(history.body.bans).toEqual([]);
    const moderator = history.body.members.find((m: { user: { id: string } }) => m.user.id === raid.moderator.id);
    expect(moderator).toMatchObject({ user: { id: raid.moderator.id, username: raid.moderator.username }, roles: [raid.modsRoleId] });
    expect(JSON.stringify(history.body)).not.toContain('spam 0');

    const diff = await server.api('GET', `/guilds/${raid.guild.id}/history/diff?from=${encodeURIComponent(raid.beforeRaid)}`, owner);
    expect(diff.status).toBe(200);
    expect(diff.body.from).toEqual(history.body.at);
    const raidEntries = diff.body.entries.filter((e: { user_id: string }) => e.user_id === raid.raider.id);
    // 3 deletes (12), 3 spam channels (10), 5 bans (22), a kick (20), @everyone (31), the role (32), the name (1).
    expect(raidEntries.map((e: { action_type: number }) => e.action_type)).toEqual([12, 12, 12, 10, 10, 10, 22, 22, 22, 22, 22, 20, 31, 32, 1]);
    const audit = (await server.api('GET', `/guilds/${raid.guild.id}/audit-logs?user_id=${raid.raider.id}&limit=100`, owner)).body.entries;
    const ids = new Set(raidEntries.map((e: { id: string }) => e.id));
    // Worded as the audit log words them: the same entries, with their time.
    for (const entry of audit.filter((e: { id: string }) => ids.has(e.id)))
      expect(raidEntries.find((e: { id: string }) => e.id === entry.id)).toEqual({ ...entry, time: entry.timestamp });
    expect(raidEntries.find((e: { action_type: number }) => e.action_type === 1)).toMatchObject({
      target_id: raid.guild.id,
      changes: [{ key: 'name', old_value: 'Raid target', new_value: 'pwned' }],
      time: expect.any(String),
    });
    // From before the guild: from its creation, the setup's entries first.
    const whole = await server.api('GET', `/guilds/${raid.guild.id}/history/diff?from=2020-01-01T00:00:00Z`, owner);
    expect(whole.body.entries.length).toBeGreaterThan(diff.body.entries.length);
    expect(whole.body.entries.slice(-diff.body.entries.length)).toEqual(diff.body.entries);
    // The window between two positions holds only what happened between them.
    const to = history.body.at.position;
    const none = await server.api('GET', `/guilds/${raid.guild.id}/history/diff?from=${to}&to=${to}`, owner);
    expect(none.body.entries).toEqual([]);
  });

  it('refuses without VIEW_AUDIT_LOG, outside the guild, a moment that is neither, and a moment before the guild', async () => {
    const guild = await createGuild(server, undefined, 'Closed');
    const [member, auditor, stranger] = [await newMember(server, guild), await newMember(server, guild), await registerUser(server)];
    await grantRole(server, guild, auditor, Permission.VIEW_AUDIT_LOG);
    const at = encodeURIComponent(new Date().toISOString());
    expectError(await v10('GET', `/guilds/${guild.id}/history?at=${at}`, member.token), 403, 50013);
    expectError(await v10('GET', `/guilds/${guild.id}/history/diff?from=${at}`, member.token), 403, 50013);
    expectError(await v10('GET', `/guilds/${guild.id}/history?at=${at}`, stranger.token), 404, 10004);
    expect((await v10('GET', `/guilds/${guild.id}/history?at=${at}`, auditor.token)).status).toBe(200);
    const bad = await v10('GET', `/guilds/${guild.id}/history?at=yesterday`, auditor.token);
    expectError(bad, 400, 50035);
    expect(bad.body.errors).toEqual({ at: { _errors: [{ code: expect.any(String), message: 'Must be an ISO 8601 time or a log position' }] } });
    const early = await v10('GET', `/guilds/${guild.id}/history?at=2020-01-01T00:00:00Z`, auditor.token);
    expectError(early, 400, 50035);
    expect(early.body.errors.at._errors[0].message).toBe('The guild did not exist yet then');
    expectError(await v10('GET', `/guilds/${guild.id}/history`, auditor.token), 400, 50035);
    const earlier = (await v10('GET', `/guilds/${guild.id}/history?at=${at}`, auditor.token)).body.at.position;
    await server.api('PATCH', `/guilds/${guild.id}`, { token: guild.owner.token, body: { name: 'Closed still' } });
    const later = encodePosition((await server.runtime.store.headPosition())!);
    const backwards = await v10('GET', `/guilds/${guild.id}/history/diff?from=${later}&to=${earlier}`, auditor.token);
    expectError(backwards, 400, 50035);
    expect(backwards.body.errors.to._errors[0].message).toBe('Must not be before from');
    await expectRefusedWithoutEvents(server, () => v10('GET', `/guilds/${guild.id}/history?at=${at}`, member.token), 403, 50013);
  });
});
