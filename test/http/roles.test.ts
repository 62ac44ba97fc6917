// Role routes through the real HTTPS API: list, fetch, create, reorder, update, delete, within the hierarchy.
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { fileServer, registerUser } from '../support/server.js';
import { createGuild, expectError, expectRefusedWithoutEvents, grantRole, newMember } from './guildSupport.js';

const server = await fileServer();

describe('roles', () => {
  it('creates, lists, fetches, updates and deletes roles', async () => {
    const guild = await createGuild(server);
    const created = await server.api('POST', `/guilds/${guild.id}/roles`, {
      token: guild.owner.token,
      body: { name: 'Moderators', permissions: (Permission.KICK_MEMBERS | Permission.BAN_MEMBERS).toString(), color: 0x3498db, hoist: true },
      headers: { 'X-Audit-Log-Reason': 'we%20need%20mods' },
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      name: 'Moderators',
      color: 0x3498db,
      colors: { primary_color: 0x3498db, secondary_color: null, tertiary_color: null },
      hoist: true,
      icon: null,
      unicode_emoji: null,
      position: 1,
      permissions: '6',
      managed: false,
      mentionable: false,
      flags: 0,
    });
    const roleId = created.body.id;
    const list = await server.api('GET', `/guilds/${guild.id}/roles`, { token: guild.owner.token });
    expect(list.body.map((r: { id: string }) => r.id)).toEqual([guild.id, roleId]);
    expect((await server.api('GET', `/guilds/${guild.id}/roles/${roleId}`, { token: guild.owner.token })).body.name).toBe('Moderators');

    const updated = await server.api('PATCH', `/guilds/${guild.id}/roles/${roleId}`, {
      token: guild.owner.token,
      body: { colors: { primary_color: 0xff0000 }, mentionable: true },
    });
    expect(updated.body).toMatchObject({ color: 0xff0000, mentionable: true, name: 'Moderators' });
    const everyone = await server.api('PATCH', `/guilds/${guild.id}/roles/${guild.id}`, {
      token: guild.owner.token,
      body: { permissions: Permission.VIEW_CHANNEL.toString() },
    });
    expect(everyone.body.permissions).toBe(Permission.VIEW_CHANNEL.toString());

    expect((await server.api('DELETE', `/guilds/${guild.id}/roles/${roleId}`, { token: guild.owner.token })).status).toBe(204);
    expectError(await server.api('GET', `/guilds/${guild.id}/roles/${roleId}`, { token: guild.owner.token }), 404, 'UNKNOWN_ROLE');
    expectError(await server.api('DELETE', `/guilds/${guild.id}/roles/${roleId}`, { token: guild.owner.token }), 404, 'UNKNOWN_ROLE');
    expectError(await server.api('DELETE', `/guilds/${guild.id}/roles/${guild.id}`, { token: guild.owner.token }), 400, 'INVALID_ROLE');
  });

  it('needs MANAGE_ROLES, hides roles from outsiders, and validates bodies', async () => {
    const guild = await createGuild(server);
    const member = await newMember(server, guild);
    const stranger = await registerUser(server);
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', `/guilds/${guild.id}/roles`, { token: member.token, body: { name: 'mine' } }),
      403,
      'MISSING_PERMISSIONS',
    );
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', `/guilds/${guild.id}/roles`, { token: stranger.token, body: { name: 'mine' } }),
      404,
      'UNKNOWN_GUILD',
    );
    expectError(await server.api('GET', `/guilds/${guild.id}/roles`, { token: stranger.token }), 404, 'UNKNOWN_GUILD');
    const invalid = await server.api('POST', `/guilds/${guild.id}/roles`, { token: guild.owner.token, body: { color: -1, permissions: 'all' } });
    expectError(invalid, 400, 'INVALID_FORM_BODY');
    expect(invalid.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['color', 'permissions']);
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `/guilds/${guild.id}/roles/${guild.id}`, { token: member.token, body: { permissions: '0' } }),
      403,
      'MISSING_PERMISSIONS',
    );
  });

  it('keeps managers to roles below their highest and to permissions they hold', async () => {
    const guild = await createGuild(server);
    const manager = await newMember(server, guild);
    const managerRole = await grantRole(server, guild, manager, Permission.MANAGE_ROLES, 'managers');
    const low = await server.api('POST', `/guilds/${guild.id}/roles`, { token: manager.token, body: { name: 'low', permissions: '0' } });
    expect(low.status).toBe(200);
    expect(low.body.position).toBe(1);
    // The manager's own role, and anything at or above it, is out of reach.
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `/guilds/${guild.id}/roles/${managerRole}`, { token: manager.token, body: { name: 'boss' } }),
      403,
      'MISSING_PERMISSIONS',
    );
    await expectRefusedWithoutEvents(
      server,
      () => server.api('DELETE', `/guilds/${guild.id}/roles/${managerRole}`, { token: manager.token }),
      403,
      'MISSING_PERMISSIONS',
    );
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', `/guilds/${guild.id}/roles`, { token: manager.token, body: { permissions: Permission.ADMINISTRATOR.toString() } }),
      403,
      'MISSING_PERMISSIONS',
    );
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `/guilds/${guild.id}/roles`, { token: manager.token, body: [{ id: low.body.id, position: 2 }] }),
      403,
      'MISSING_PERMISSIONS',
    );
    expect((await server.api('PATCH', `/guilds/${guild.id}/roles/${low.body.id}`, { token: manager.token, body: { name: 'lower' } })).body.name).toBe('lower');
  });

  it('reorders roles densely', async () => {
    const guild = await createGuild(server);
    const names = ['c', 'b', 'a'];
    const ids: string[] = [];
    for (const name of names) ids.push((await server.api('POST', `/guilds/${guild.id}/roles`, { token: guild.owner.token, body: { name } })).body.id);
    // Each new role enters at 1: a is 1, b is 2, c is 3.
    const moved = await server.api('PATCH', `/guilds/${guild.id}/roles`, { token: guild.owner.token, body: [{ id: ids[2], position: 3 }] });
    expect(moved.status).toBe(200);
    expect(moved.body.map((r: { name: string; position: number }) => [r.name, r.position])).toEqual([
      ['@everyone', 0],
      ['b', 1],
      ['c', 2],
      ['a', 3],
    ]);
    const invalid = await server.api('PATCH', `/guilds/${guild.id}/roles`, { token: guild.owner.token, body: [{ id: guild.id, position: 2 }] });
    expectError(invalid, 400, 'INVALID_FORM_BODY');
    expect(invalid.body.errors[0].path).toBe('0.id');
  });
});
