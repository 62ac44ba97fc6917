// Member and ban routes through the real HTTPS API: listing, nicknames, roles, kicks, bans, and the hierarchy.
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { fileServer, registerUser } from '../support/server.js';
import { createGuild, expectError, expectRefusedWithoutEvents, grantRole, join, newMember } from './guildSupport.js';

const server = await fileServer();

describe('members', () => {
  it('lists members by user id with limit and after, and fetches one', async () => {
    const guild = await createGuild(server);
    const members = [await newMember(server, guild), await newMember(server, guild)];
    const ids = [guild.owner.id, ...members.map((m) => m.id)].sort();
    const all = await server.api('GET', `/guilds/${guild.id}/members?limit=1000`, { token: members[0].token });
    expect(all.body.map((m: { user: { id: string } }) => m.user.id)).toEqual(ids);
    expect((await server.api('GET', `/guilds/${guild.id}/members`, { token: members[0].token })).body).toHaveLength(1);
    const page = await server.api('GET', `/guilds/${guild.id}/members?limit=5&after=${ids[0]}`, { token: members[0].token });
    expect(page.body.map((m: { user: { id: string } }) => m.user.id)).toEqual(ids.slice(1));
    expectError(await server.api('GET', `/guilds/${guild.id}/members?limit=1001`, { token: members[0].token }), 400, 'INVALID_FORM_BODY');

    const one = await server.api('GET', `/guilds/${guild.id}/members/${members[1].id}`, { token: members[0].token });
    expect(one.body).toMatchObject({ user: { id: members[1].id, username: members[1].username }, roles: [], nick: null, joined_at: expect.any(String) });
    expectError(await server.api('GET', `/guilds/${guild.id}/members/123456789012345678`, { token: members[0].token }), 404, 'UNKNOWN_MEMBER');
    const stranger = await registerUser(server);
    expectError(await server.api('GET', `/guilds/${guild.id}/members`, { token: stranger.token }), 404, 'UNKNOWN_GUILD');
  });

  it('changes nicknames: one’s own with CHANGE_NICKNAME, others’ with MANAGE_NICKNAMES', async () => {
    const guild = await createGuild(server);
    const [alice, bob] = [await newMember(server, guild), await newMember(server, guild)];
    const own = await server.api('PATCH', `/guilds/${guild.id}/members/@me`, { token: alice.token, body: { nick: 'Ally' } });
    expect(own.status).toBe(200);
    expect(own.body.nick).toBe('Ally');
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `/guilds/${guild.id}/members/${alice.id}`, { token: bob.token, body: { nick: 'Bobbed' } }),
      403,
      'MISSING_PERMISSIONS',
    );
    const reset = await server.api('PATCH', `/guilds/${guild.id}/members/${alice.id}`, { token: guild.owner.token, body: { nick: null } });
    expect(reset.body.nick).toBeNull();
    expectError(
      await server.api('PATCH', `/guilds/${guild.id}/members/${alice.id}`, { token: guild.owner.token, body: { nick: 'x'.repeat(33) } }),
      400,
      'INVALID_FORM_BODY',
    );
    expectError(
      await server.api('PATCH', `/guilds/${guild.id}/members/${alice.id}`, { token: guild.owner.token, body: { mute: 'yes' } }),
      400,
      'INVALID_FORM_BODY',
    );
  });

  it('adds and removes roles with MANAGE_ROLES, below the actor’s highest role', async () => {
    const guild = await createGuild(server);
    const [manager, member] = [await newMember(server, guild), await newMember(server, guild)];
    const managerRole = await grantRole(server, guild, manager, 0n, 'managers');
    // New roles enter at position 1: helpers sits below managers.
    const helpers = (await server.api('POST', `/guilds/${guild.id}/roles`, { token: guild.owner.token, body: { name: 'helpers' } })).body.id;
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PUT', `/guilds/${guild.id}/members/${member.id}/roles/${helpers}`, { token: manager.token }),
      403,
      'MISSING_PERMISSIONS',
    );
    await server.api('PATCH', `/guilds/${guild.id}/roles/${managerRole}`, {
      token: guild.owner.token,
      body: { permissions: Permission.MANAGE_ROLES.toString() },
    });

    expect((await server.api('PUT', `/guilds/${guild.id}/members/${member.id}/roles/${helpers}`, { token: manager.token })).status).toBe(204);
    expect((await server.api('GET', `/guilds/${guild.id}/members/${member.id}`, { token: manager.token })).body.roles).toEqual([helpers]);
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PUT', `/guilds/${guild.id}/members/${member.id}/roles/${managerRole}`, { token: manager.token }),
      403,
      'MISSING_PERMISSIONS',
    );
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PUT', `/guilds/${guild.id}/members/${member.id}/roles/123456789012345678`, { token: manager.token }),
      404,
      'UNKNOWN_ROLE',
    );
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PUT', `/guilds/${guild.id}/members/123456789012345678/roles/${helpers}`, { token: manager.token }),
      404,
      'UNKNOWN_MEMBER',
    );
    expect((await server.api('DELETE', `/guilds/${guild.id}/members/${member.id}/roles/${helpers}`, { token: manager.token })).status).toBe(204);

    const patched = await server.api('PATCH', `/guilds/${guild.id}/members/${member.id}`, { token: manager.token, body: { roles: [helpers] } });
    expect(patched.body.roles).toEqual([helpers]);
    const invalid = await server.api('PATCH', `/guilds/${guild.id}/members/${member.id}`, { token: manager.token, body: { roles: [helpers, guild.id] } });
    expectError(invalid, 400, 'INVALID_FORM_BODY');
    expect(invalid.body.errors[0].path).toBe('roles.1');
    // Deleting a role takes it off its members.
    await server.api('DELETE', `/guilds/${guild.id}/roles/${helpers}`, { token: guild.owner.token });
    expect((await server.api('GET', `/guilds/${guild.id}/members/${member.id}`, { token: manager.token })).body.roles).toEqual([]);
  });

  it('kicks with KICK_MEMBERS, only members below the actor, never the owner', async () => {
    const guild = await createGuild(server);
    const [moderator, target, peer] = [await newMember(server, guild), await newMember(server, guild), await newMember(server, guild)];
    await expectRefusedWithoutEvents(
      server,
      () => server.api('DELETE', `/guilds/${guild.id}/members/${target.id}`, { token: moderator.token }),
      403,
      'MISSING_PERMISSIONS',
    );
    // New roles enter at position 1: the peer's role, made first, ends above the kickers'.
    await grantRole(server, guild, peer, 0n, 'above the kickers');
    await grantRole(server, guild, moderator, Permission.KICK_MEMBERS, 'kickers');
    await expectRefusedWithoutEvents(
      server,
      () => server.api('DELETE', `/guilds/${guild.id}/members/${guild.owner.id}`, { token: moderator.token }),
      403,
      'MISSING_PERMISSIONS',
    );
    await expectRefusedWithoutEvents(
      server,
      () => server.api('DELETE', `/guilds/${guild.id}/members/${peer.id}`, { token: moderator.token }),
      403,
      'MISSING_PERMISSIONS',
    );
    expect(
      (await server.api('DELETE', `/guilds/${guild.id}/members/${target.id}`, { token: moderator.token, headers: { 'X-Audit-Log-Reason': 'spam' } })).status,
    ).toBe(204);
    expectError(await server.api('GET', `/guilds/${guild.id}/members/${target.id}`, { token: moderator.token }), 404, 'UNKNOWN_MEMBER');
    expectError(await server.api('DELETE', `/guilds/${guild.id}/members/${target.id}`, { token: moderator.token }), 404, 'UNKNOWN_MEMBER');
    // A kicked member may come back through an invite.
    await join(server, guild, target);
  });
});

describe('bans', () => {
  it('bans a member (removing them), keeps them out, lists and unbans', async () => {
    const guild = await createGuild(server);
    const [moderator, target] = [await newMember(server, guild), await newMember(server, guild)];
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PUT', `/guilds/${guild.id}/bans/${target.id}`, { token: moderator.token }),
      403,
      'MISSING_PERMISSIONS',
    );
    await expectRefusedWithoutEvents(server, () => server.api('GET', `/guilds/${guild.id}/bans`, { token: moderator.token }), 403, 'MISSING_PERMISSIONS');
    await grantRole(server, guild, moderator, Permission.BAN_MEMBERS, 'banners');

    const banned = await server.api('PUT', `/guilds/${guild.id}/bans/${target.id}`, {
      token: moderator.token,
      body: { delete_message_days: 7 },
      headers: { 'X-Audit-Log-Reason': encodeURIComponent('raiding, twice') },
    });
    expect(banned.status).toBe(204);
    expectError(await server.api('GET', `/guilds/${guild.id}/members/${target.id}`, { token: moderator.token }), 404, 'UNKNOWN_MEMBER');
    expect((await server.api('GET', `/guilds/${guild.id}`, { token: moderator.token })).body.member_count).toBe(2);
    await expectRefusedWithoutEvents(server, () => server.api('POST', `/invites/${guild.code}`, { token: target.token }), 403, 'USER_BANNED');

    const list = await server.api('GET', `/guilds/${guild.id}/bans`, { token: moderator.token });
    expect(list.body).toEqual([{ reason: 'raiding, twice', user: expect.objectContaining({ id: target.id, username: target.username }) }]);
    expect((await server.api('GET', `/guilds/${guild.id}/bans/${target.id}`, { token: moderator.token })).body.reason).toBe('raiding, twice');

    expect((await server.api('DELETE', `/guilds/${guild.id}/bans/${target.id}`, { token: moderator.token })).status).toBe(204);
    expectError(await server.api('GET', `/guilds/${guild.id}/bans/${target.id}`, { token: moderator.token }), 404, 'UNKNOWN_BAN');
    await expectRefusedWithoutEvents(
      server,
      () => server.api('DELETE', `/guilds/${guild.id}/bans/${target.id}`, { token: moderator.token }),
      404,
      'UNKNOWN_BAN',
    );
    await join(server, guild, target);
  });

  it('bans users who are not members, refuses unknown users, the owner and bad windows', async () => {
    const guild = await createGuild(server);
    const outsider = await registerUser(server);
    expect(
      (await server.api('PUT', `/guilds/${guild.id}/bans/${outsider.id}`, { token: guild.owner.token, body: { delete_message_seconds: 3600 } })).status,
    ).toBe(204);
    await expectRefusedWithoutEvents(server, () => server.api('POST', `/invites/${guild.code}`, { token: outsider.token }), 403, 'USER_BANNED');
    expect((await server.api('GET', `/guilds/${guild.id}`, { token: guild.owner.token })).body.member_count).toBe(1);
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PUT', `/guilds/${guild.id}/bans/123456789012345678`, { token: guild.owner.token }),
      404,
      'UNKNOWN_USER',
    );
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PUT', `/guilds/${guild.id}/bans/${guild.owner.id}`, { token: guild.owner.token }),
      403,
      'MISSING_PERMISSIONS',
    );
    const window = await server.api('PUT', `/guilds/${guild.id}/bans/${outsider.id}`, { token: guild.owner.token, body: { delete_message_days: 8 } });
    expectError(window, 400, 'INVALID_FORM_BODY');
    expect(window.body.errors).toEqual([{ path: 'delete_message_days', message: expect.any(String) }]);

    const bans = await server.api('GET', `/guilds/${guild.id}/bans?limit=1&after=0`, { token: guild.owner.token });
    expect(bans.body.map((b: { user: { id: string } }) => b.user.id)).toEqual([outsider.id]);
    expect((await server.api('GET', `/guilds/${guild.id}/bans?before=${outsider.id}`, { token: guild.owner.token })).body).toEqual([]);
  });
});
