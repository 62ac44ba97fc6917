// Rolling back a raid through the real HTTPS API: the plan, its application as the owner's own audited actions, the
// guild's channels, roles and bans equal to the structure before the raid (modulo new ids), a second apply that does
// nothing, and every refusal in the /api/v10 error form with nothing appended.
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { fileServer, registerUser } from '../support/server.js';
import { createGuild, expectError, expectRefusedWithoutEvents, grantRole, newMember } from './guildSupport.js';
import { moduloIds, raidedGuild, structureNow } from './raidSupport.js';
import { appendedBy, expectNothingAppendedSince } from '../support/server.js';

const server = await fileServer();
const rollback = (guildId: string, token: string, body: object) => server.call('POST', `/api/v10/guilds/${guildId}/rollbacks`, { token, body });

interface Plan {
  actions: { kind: string; target_id: string; description: string }[];
  not_undoable: { target_id: string; reason: string }[];
  applied: boolean;
  id_map: Record<string, string>;
}

describe('rollbacks', () => {
  it('plans, applies once, and leaves the guild as it was before the raid, modulo new ids', async () => {
    const raid = await raidedGuild(server);
    const { guild, raider } = raid;
    const owner = { token: guild.owner.token };
    const before = (await server.api('GET', `/guilds/${guild.id}/history?at=${encodeURIComponent(raid.beforeRaid)}`, owner)).body;

    const head = await server.runtime.store.headPosition();
    const dry = await rollback(guild.id, guild.owner.token, { actor_id: raider.id, after: raid.beforeRaid, dry_run: true });
    expect(dry.status).toBe(200);
    await expectNothingAppendedSince(server, head);
    const plan: Plan = dry.body;
    expect(dry.body).toMatchObject({ actor_id: raider.id, after: raid.beforeRaid, dry_run: true, applied: false, id_map: {} });
    const targets = (kind: string) => plan.actions.filter((a) => a.kind === kind).map((a) => a.target_id);
    expect(targets('recreate_channel').sort()).toEqual([...raid.deletedChannelIds].sort());
    expect(targets('delete_channel').sort()).toEqual([...raid.spamChannelIds].sort());
    expect(targets('unban').sort()).toEqual(raid.banned.map((u) => u.id).sort());
    expect(targets('recreate_role')).toEqual([raid.modsRoleId]);
    expect(targets('restore_role')).toEqual([guild.id]);
    expect(targets('restore_guild')).toEqual([guild.id]);
    expect(targets('restore_member_roles').sort()).toEqual([raid.moderator.id, raid.kicked.id].sort());
    expect(targets('delete_message').sort()).toEqual([...raid.messageIds].sort());
    expect(targets('revoke_invite')).toEqual([raid.inviteCode]);
    expect(targets('delete_webhook')).toEqual([raid.webhookId]);
    expect(plan.actions.every((a) => a.description.length > 0)).toBe(true);
    // The text of the deleted channels is gone with them; the banned moderator's role waits until they join again.
    expect(plan.not_undoable).toEqual(
      expect.arrayContaining([
        { target_id: raid.deletedChannelIds[1], reason: expect.stringContaining('erased') },
        { target_id: raid.banned[0].id, reason: expect.stringContaining('join again') },
      ]),
    );

    const { response: applied, appended } = await appendedBy(server, () =>
      rollback(guild.id, guild.owner.token, { actor_id: raider.id, after: raid.beforeRaid }),
    );
    expect(applied.status).toBe(200);
    expect(applied.body).toMatchObject({ dry_run: false, applied: true, actions: plan.actions });
    const idMap: Record<string, string> = applied.body.id_map;
    expect(Object.keys(idMap).sort()).toEqual([...raid.deletedChannelIds, raid.modsRoleId].sort());
    // Every compensation is the owner's own, with the rollback's reason.
    expect(appended.length).toBeGreaterThanOrEqual(plan.actions.length);
    expect(appended.every((e) => e.metadata.actorId === guild.owner.id && e.metadata.reason?.startsWith(`Rollback of ${raider.id} `))).toBe(true);
    const audit = (await server.api('GET', `/guilds/${guild.id}/audit-logs?user_id=${guild.owner.id}&limit=100`, owner)).body.entries;
    expect(audit.filter((e: { action_type: number; reason?: string }) => e.action_type === 23 && e.reason?.startsWith('Rollback of')).length).toBe(5);

    // Channels, roles and bans as before the raid, modulo the recreated ones' new ids.
    const now = await structureNow(server, guild);
    expect(moduloIds(now.channels, now.roles)).toEqual(moduloIds(before.channels, before.roles, idMap));
    expect(now.bans).toEqual([]);
    const members = (await server.api('GET', `/guilds/${guild.id}/history?at=${encodeURIComponent(new Date().toISOString())}`, owner)).body.members;
    for (const user of [raid.moderator, raid.kicked])
      expect(members.find((m: { user: { id: string } }) => m.user.id === user.id).roles).toEqual([idMap[raid.modsRoleId]]);
    expect((await server.api('GET', `/guilds/${guild.id}`, owner)).body.name).toBe('Raid target');
    for (const id of raid.messageIds) expect((await server.api('GET', `/channels/${guild.channelId}/messages/${id}`, owner)).status).toBe(404);
    expect((await server.api('GET', `/invites/${raid.inviteCode}`, owner)).status).toBe(404);
    expect((await server.api('GET', `/webhooks/${raid.webhookId}`, owner)).status).toBe(404);

    // A second apply finds everything undone already: it plans nothing and appends nothing.
    const again = await appendedBy(server, () => rollback(guild.id, guild.owner.token, { actor_id: raider.id, after: raid.beforeRaid }));
    expect(again.response.status).toBe(200);
    expect(again.response.body).toMatchObject({ actions: [], applied: true, id_map: idMap });
    expect(again.appended).toEqual([]);
  });

  it('refuses callers without ADMINISTRATOR, actors who outrank the caller, unknown actors and windows out of bounds', async () => {
    const guild = await createGuild(server, undefined, 'Guarded');
    const [moderator, admin, senior, stranger] = [
      await newMember(server, guild),
      await newMember(server, guild),
      await newMember(server, guild),
      await registerUser(server),
    ];
    // Made first, so it sits above the admin role made after it.
    await grantRole(server, guild, senior, Permission.ADMINISTRATOR, 'senior');
    await grantRole(server, guild, admin, Permission.ADMINISTRATOR, 'admin');
    await grantRole(server, guild, moderator, Permission.BAN_MEMBERS | Permission.VIEW_AUDIT_LOG | Permission.MANAGE_GUILD, 'mod');
    const refused = (token: string, body: object, status: number, code: number) =>
      expectRefusedWithoutEvents(server, () => rollback(guild.id, token, body), status, code);

    await refused(moderator.token, { actor_id: stranger.id }, 403, 50013);
    await refused(admin.token, { actor_id: senior.id }, 403, 50013);
    await refused(admin.token, { actor_id: guild.owner.id }, 403, 50013);
    await refused(stranger.token, { actor_id: admin.id }, 404, 10004);
    await refused(admin.token, { actor_id: '4242424242424242' }, 404, 10013);
    const old = new Date(Date.now() - 8 * 24 * 3600 * 1000).toISOString();
    const tooOld = await rollback(guild.id, admin.token, { actor_id: moderator.id, after: old, dry_run: true });
    expectError(tooOld, 400, 50035);
    expect(tooOld.body.errors).toEqual({ after: { _errors: [{ code: expect.any(String), message: 'Must be within the last 7 days' }] } });
    const inverted = await rollback(guild.id, admin.token, {
      actor_id: moderator.id,
      after: new Date(Date.now() - 1000).toISOString(),
      before: new Date(Date.now() - 60_000).toISOString(),
    });
    expectError(inverted, 400, 50035);
    expect(inverted.body.errors.before._errors[0].message).toBe('Must not be before after');
    await refused(admin.token, { actor_id: moderator.id, after: 'yesterday' }, 400, 50035);
    await refused(admin.token, { actor_id: 'nobody' }, 400, 50035);

    // Allowed: an admin rolling back someone below them (nothing to do), and the owner rolling back anyone.
    expect((await rollback(guild.id, admin.token, { actor_id: moderator.id, dry_run: true })).body).toMatchObject({ actions: [], not_undoable: [] });
    expect((await rollback(guild.id, guild.owner.token, { actor_id: senior.id, dry_run: true })).status).toBe(200);
  });
});
