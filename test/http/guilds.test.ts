// Guild routes through the real HTTPS API: create, fetch, update, delete, the caller's guild list and leaving.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { fileServer, registerUser } from '../support/server.js';
import { createGuild, expectError, expectRefusedWithoutEvents, grantRole, newMember } from './guildSupport.js';

const server = await fileServer();

describe('guilds', () => {
  it('creates a guild with @everyone, #general and its owner as member', async () => {
    const owner = await registerUser(server);
    const created = await server.api('POST', '/guilds', { token: owner.token, body: { name: 'Parley HQ' } });
    expect(created.status).toBe(201);
    const guild = created.body;
    expect(guild).toMatchObject({ name: 'Parley HQ', icon: null, owner_id: owner.id, member_count: 1, features: [], emojis: [], verification_level: 0 });
    expect(guild.id).toMatch(/^\d{17,19}$/);
    expect(guild.roles).toEqual([
      expect.objectContaining({ id: guild.id, name: '@everyone', position: 0, managed: false, permissions: expect.stringMatching(/^\d+$/) }),
    ]);

    const fetched = await server.api('GET', `/guilds/${guild.id}`, { token: owner.token });
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(guild);

    const channels = await server.api('GET', `/guilds/${guild.id}/channels`, { token: owner.token });
    expect(channels.body).toEqual([
      expect.objectContaining({
        id: guild.system_channel_id,
        type: 0,
        name: 'general',
        guild_id: guild.id,
        position: 0,
        parent_id: null,
        permission_overwrites: [],
      }),
    ]);
    const members = await server.api('GET', `/guilds/${guild.id}/members?limit=10`, { token: owner.token });
    expect(members.body).toEqual([
      expect.objectContaining({ user: expect.objectContaining({ id: owner.id }), roles: [], nick: null, deaf: false, mute: false, pending: false }),
    ]);
  });

  it('stores an icon and serves it from the CDN', async () => {
    const owner = await registerUser(server);
    const png = await sharp({ create: { width: 8, height: 8, channels: 4, background: '#336699' } })
      .png()
      .toBuffer();
    const created = await server.api('POST', '/guilds', {
      token: owner.token,
      body: { name: 'Iconic', icon: `data:image/png;base64,${png.toString('base64')}` },
    });
    expect(created.status).toBe(201);
    expect(created.body.icon).toMatch(/^[0-9a-f]{32}$/);
    const icon = await server.call('GET', `/icons/${created.body.id}/${created.body.icon}.webp?size=16`);
    expect(icon.status).toBe(200);
    expect(icon.headers['content-type']).toBe('image/webp');
    expectError(await server.call('GET', `/icons/${created.body.id}/${'0'.repeat(32)}.png`), 404, 'UNKNOWN_ICON');
    expectError(
      await server.api('POST', '/guilds', { token: owner.token, body: { name: 'Bad', icon: 'data:image/png;base64,AAAA' } }),
      400,
      'INVALID_FORM_BODY',
    );
  });

  it('refuses invalid bodies with paths, and anonymous callers with 401', async () => {
    const owner = await registerUser(server);
    const invalid = await server.api('POST', '/guilds', { token: owner.token, body: { name: 'x', region: 'eu' } });
    expectError(invalid, 400, 'INVALID_FORM_BODY');
    expect(invalid.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['name', 'region']);
    expect((await server.api('POST', '/guilds', { body: { name: 'Nobody' } })).status).toBe(401);
  });

  it('hides a guild from non-members and answers unknown ids with UNKNOWN_GUILD', async () => {
    const guild = await createGuild(server);
    const stranger = await registerUser(server);
    expectError(await server.api('GET', `/guilds/${guild.id}`, { token: stranger.token }), 404, 'UNKNOWN_GUILD');
    expectError(await server.api('GET', '/guilds/123456789012345678', { token: stranger.token }), 404, 'UNKNOWN_GUILD');
    expectError(await server.api('GET', `/guilds/${guild.id}/channels`, { token: stranger.token }), 404, 'UNKNOWN_GUILD');
  });

  it('updates settings with MANAGE_GUILD, validating channel settings', async () => {
    const guild = await createGuild(server);
    const member = await newMember(server, guild);
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `/guilds/${guild.id}`, { token: member.token, body: { name: 'Mine now' } }),
      403,
      'MISSING_PERMISSIONS',
    );
    const stranger = await registerUser(server);
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `/guilds/${guild.id}`, { token: stranger.token, body: { name: 'Mine now' } }),
      404,
      'UNKNOWN_GUILD',
    );
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `/guilds/${guild.id}`, { token: guild.owner.token, body: { afk_channel_id: guild.channelId } }),
      400,
      'INVALID_FORM_BODY',
    );
    expectError(await server.api('PATCH', `/guilds/${guild.id}`, { token: guild.owner.token, body: { verification_level: 9 } }), 400, 'INVALID_FORM_BODY');

    await grantRole(server, guild, member, Permission.MANAGE_GUILD);
    const updated = await server.api('PATCH', `/guilds/${guild.id}`, {
      token: member.token,
      body: { name: 'Renamed', description: 'About us', system_channel_id: null },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Renamed', description: 'About us', system_channel_id: null, owner_id: guild.owner.id });
    expectError(await server.api('PATCH', `/guilds/${guild.id}`, { token: member.token, body: { owner_id: member.id } }), 403, 'MISSING_PERMISSIONS');
    const transferred = await server.api('PATCH', `/guilds/${guild.id}`, { token: guild.owner.token, body: { owner_id: member.id } });
    expect(transferred.body.owner_id).toBe(member.id);
  });

  it('deletes only for the owner, through either route', async () => {
    const guild = await createGuild(server);
    const member = await newMember(server, guild);
    await grantRole(server, guild, member, Permission.ADMINISTRATOR);
    await expectRefusedWithoutEvents(server, () => server.api('POST', `/guilds/${guild.id}/delete`, { token: member.token }), 403, 'MISSING_PERMISSIONS');
    const deleted = await server.api('POST', `/guilds/${guild.id}/delete`, { token: guild.owner.token });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expectError(await server.api('GET', `/guilds/${guild.id}`, { token: guild.owner.token }), 404, 'UNKNOWN_GUILD');
    expectError(await server.api('GET', `/channels/${guild.channelId}`, { token: guild.owner.token }), 404, 'UNKNOWN_CHANNEL');
    expectError(await server.api('GET', `/invites/${guild.code}`, { token: member.token }), 404, 'UNKNOWN_INVITE');

    const other = await createGuild(server);
    expect((await server.api('DELETE', `/guilds/${other.id}`, { token: other.owner.token })).status).toBe(204);
    expectError(await server.api('DELETE', `/guilds/${other.id}`, { token: other.owner.token }), 404, 'UNKNOWN_GUILD');
  });
});

describe('the caller’s guilds', () => {
  it('lists them with ownership and permissions, paginated by guild id', async () => {
    const owner = await registerUser(server);
    const first = await createGuild(server, owner, 'First');
    const second = await createGuild(server, owner, 'Second');
    const member = await newMember(server, first);
    const mine = await server.api('GET', '/users/@me/guilds', { token: owner.token });
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual([
      expect.objectContaining({ id: first.id, name: 'First', owner: true, permissions: expect.stringMatching(/^\d+$/), features: [] }),
      expect.objectContaining({ id: second.id, name: 'Second', owner: true }),
    ]);
    expect((await server.api('GET', `/users/@me/guilds?after=${first.id}`, { token: owner.token })).body.map((g: { id: string }) => g.id)).toEqual([second.id]);
    expect((await server.api('GET', `/users/@me/guilds?before=${second.id}`, { token: owner.token })).body.map((g: { id: string }) => g.id)).toEqual([
      first.id,
    ]);
    expect((await server.api('GET', '/users/@me/guilds?limit=1', { token: owner.token })).body).toHaveLength(1);
    const theirs = await server.api('GET', '/users/@me/guilds', { token: member.token });
    expect(theirs.body).toEqual([expect.objectContaining({ id: first.id, owner: false })]);
    expect(BigInt(theirs.body[0].permissions) & Permission.MANAGE_GUILD).toBe(0n);
    expectError(await server.api('GET', '/users/@me/guilds?limit=500', { token: owner.token }), 400, 'INVALID_FORM_BODY');
  });

  it('adds approximate counts with with_counts, spelled as discord.js (true) or discord.py (1) sends it', async () => {
    const guild = await createGuild(server);
    await newMember(server, guild);
    const counts = { approximate_member_count: 2, approximate_presence_count: 0 };
    for (const flag of ['true', '1']) {
      const listed = await server.api('GET', `/users/@me/guilds?with_counts=${flag}`, { token: guild.owner.token });
      expect(listed.body).toEqual([expect.objectContaining({ id: guild.id, ...counts })]);
    }
    for (const query of ['', '?with_counts=false', '?with_counts=0']) {
      const [plain] = (await server.api('GET', `/users/@me/guilds${query}`, { token: guild.owner.token })).body;
      expect(plain).not.toHaveProperty('approximate_member_count');
      expect(plain).not.toHaveProperty('approximate_presence_count');
    }
    expectError(await server.api('GET', '/users/@me/guilds?with_counts=maybe', { token: guild.owner.token }), 400, 'INVALID_FORM_BODY');
  });

  it('lets members leave, but not the owner', async () => {
    const guild = await createGuild(server);
    const member = await newMember(server, guild);
    expect((await server.api('GET', `/guilds/${guild.id}`, { token: member.token })).body.member_count).toBe(2);
    expect((await server.api('DELETE', `/users/@me/guilds/${guild.id}`, { token: member.token })).status).toBe(204);
    expect((await server.api('GET', '/users/@me/guilds', { token: member.token })).body).toEqual([]);
    expect((await server.api('GET', `/guilds/${guild.id}`, { token: guild.owner.token })).body.member_count).toBe(1);
    expectError(await server.api('DELETE', `/users/@me/guilds/${guild.id}`, { token: member.token }), 404, 'UNKNOWN_GUILD');
    await expectRefusedWithoutEvents(
      server,
      () => server.api('DELETE', `/users/@me/guilds/${guild.id}`, { token: guild.owner.token }),
      400,
      'OWNER_CANNOT_LEAVE',
    );
  });
});
