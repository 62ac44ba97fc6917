// Channel routes through the real HTTPS API: per-type fields, visibility, updates, deletion, ordering, overwrites.
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { fileServer, registerUser } from '../support/server.js';
import { createGuild, expectError, expectRefusedWithoutEvents, grantRole, newMember } from './guildSupport.js';

const server = await fileServer();

const VIEW = Permission.VIEW_CHANNEL.toString();
const SEND = Permission.SEND_MESSAGES.toString();

describe('guild channels', () => {
  it('creates channels of each kind with the fields of their type', async () => {
    const guild = await createGuild(server);
    const token = guild.owner.token;
    const category = await server.api('POST', `/guilds/${guild.id}/channels`, { token, body: { name: 'Text Channels', type: 4 } });
    expect(category.status).toBe(201);
    expect(category.body).toEqual({
      id: expect.any(String),
      type: 4,
      guild_id: guild.id,
      name: 'Text Channels',
      position: 1,
      parent_id: null,
      permission_overwrites: [],
      flags: 0,
    });
    const text = await server.api('POST', `/guilds/${guild.id}/channels`, {
      token,
      body: { name: 'rules', topic: 'Read me', parent_id: category.body.id, rate_limit_per_user: 5 },
    });
    expect(text.body).toMatchObject({
      type: 0,
      name: 'rules',
      topic: 'Read me',
      nsfw: false,
      rate_limit_per_user: 5,
      parent_id: category.body.id,
      position: 2,
    });
    const voice = await server.api('POST', `/guilds/${guild.id}/channels`, { token, body: { name: 'Lounge', type: 2, user_limit: 10, position: 7 } });
    expect(voice.body).toMatchObject({ type: 2, bitrate: 64000, user_limit: 10, rtc_region: null, position: 7 });
    expect(voice.body.topic).toBeUndefined();

    const wrongField = await server.api('POST', `/guilds/${guild.id}/channels`, { token, body: { name: 'Stage', type: 2, topic: 'no topics here' } });
    expectError(wrongField, 400, 'INVALID_FORM_BODY');
    expect(wrongField.body.errors).toEqual([{ path: 'topic', message: expect.any(String) }]);
    expectError(await server.api('POST', `/guilds/${guild.id}/channels`, { token, body: { name: 'dm', type: 1 } }), 400, 'INVALID_FORM_BODY');
    expectError(await server.api('POST', `/guilds/${guild.id}/channels`, { token, body: { name: 'x', parent_id: voice.body.id } }), 400, 'INVALID_FORM_BODY');
    expectError(await server.api('POST', `/guilds/${guild.id}/channels`, { token, body: { topic: 'nameless' } }), 400, 'INVALID_FORM_BODY');

    const list = await server.api('GET', `/guilds/${guild.id}/channels`, { token });
    expect(list.body.map((c: { name: string }) => c.name)).toEqual(['general', 'Text Channels', 'rules', 'Lounge']);
    expect((await server.api('GET', `/channels/${text.body.id}`, { token })).body).toEqual(text.body);
  });

  it('updates only fields valid for the channel type', async () => {
    const guild = await createGuild(server);
    const token = guild.owner.token;
    const updated = await server.api('PATCH', `/channels/${guild.channelId}`, { token, body: { name: 'lobby', topic: 'Welcome', nsfw: true } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: guild.channelId, name: 'lobby', topic: 'Welcome', nsfw: true });
    expect((await server.api('PATCH', `/channels/${guild.channelId}`, { token, body: { type: 5 } })).body.type).toBe(5);
    await expectRefusedWithoutEvents(server, () => server.api('PATCH', `/channels/${guild.channelId}`, { token, body: { type: 2 } }), 400, 'INVALID_FORM_BODY');
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `/channels/${guild.channelId}`, { token, body: { bitrate: 96000 } }),
      400,
      'INVALID_FORM_BODY',
    );
    expectError(await server.api('PATCH', `/channels/${guild.channelId}`, { token, body: { name: '' } }), 400, 'INVALID_FORM_BODY');
    expectError(await server.api('PATCH', '/channels/123456789012345678', { token, body: { name: 'x' } }), 404, 'UNKNOWN_CHANNEL');
  });

  it('deletes a channel, answering it, and frees the children of a category', async () => {
    const guild = await createGuild(server);
    const token = guild.owner.token;
    const category = (await server.api('POST', `/guilds/${guild.id}/channels`, { token, body: { name: 'Cat', type: 4 } })).body;
    const child = (await server.api('POST', `/guilds/${guild.id}/channels`, { token, body: { name: 'kitten', parent_id: category.id } })).body;
    const deleted = await server.api('DELETE', `/channels/${category.id}`, { token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id: category.id, type: 4, name: 'Cat' });
    expectError(await server.api('GET', `/channels/${category.id}`, { token }), 404, 'UNKNOWN_CHANNEL');
    expect((await server.api('GET', `/channels/${child.id}`, { token })).body.parent_id).toBeNull();
    expect((await server.api('DELETE', `/channels/${guild.channelId}`, { token })).status).toBe(200);
    expect((await server.api('GET', `/guilds/${guild.id}`, { token })).body.system_channel_id).toBeNull();
  });

  it('needs MANAGE_CHANNELS to create, update, delete and reorder', async () => {
    const guild = await createGuild(server);
    const member = await newMember(server, guild);
    const stranger = await registerUser(server);
    const token = member.token;
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', `/guilds/${guild.id}/channels`, { token, body: { name: 'mine' } }),
      403,
      'MISSING_PERMISSIONS',
    );
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `/channels/${guild.channelId}`, { token, body: { name: 'mine' } }),
      403,
      'MISSING_PERMISSIONS',
    );
    await expectRefusedWithoutEvents(server, () => server.api('DELETE', `/channels/${guild.channelId}`, { token }), 403, 'MISSING_PERMISSIONS');
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `/guilds/${guild.id}/channels`, { token, body: [{ id: guild.channelId, position: 3 }] }),
      403,
      'MISSING_PERMISSIONS',
    );
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', `/guilds/${guild.id}/channels`, { token: stranger.token, body: { name: 'mine' } }),
      404,
      'UNKNOWN_GUILD',
    );
    expectError(await server.api('GET', `/channels/${guild.channelId}`, { token: stranger.token }), 404, 'UNKNOWN_CHANNEL');
    await expectRefusedWithoutEvents(server, () => server.api('DELETE', `/channels/${guild.channelId}`, { token: stranger.token }), 404, 'UNKNOWN_CHANNEL');

    await grantRole(server, guild, member, Permission.MANAGE_CHANNELS);
    expect((await server.api('POST', `/guilds/${guild.id}/channels`, { token, body: { name: 'mine' } })).status).toBe(201);
  });

  it('reorders and reparents channels in bulk, syncing overwrites on request', async () => {
    const guild = await createGuild(server);
    const token = guild.owner.token;
    const category = (
      await server.api('POST', `/guilds/${guild.id}/channels`, {
        token,
        body: { name: 'Cat', type: 4, permission_overwrites: [{ id: guild.id, type: 0, deny: SEND }] },
      })
    ).body;
    const other = (await server.api('POST', `/guilds/${guild.id}/channels`, { token, body: { name: 'other' } })).body;
    const moved = await server.api('PATCH', `/guilds/${guild.id}/channels`, {
      token,
      body: [
        { id: guild.channelId, position: 5, parent_id: category.id, lock_permissions: true },
        { id: other.id, position: 0 },
      ],
    });
    expect(moved.status).toBe(204);
    const general = (await server.api('GET', `/channels/${guild.channelId}`, { token })).body;
    expect(general).toMatchObject({ position: 5, parent_id: category.id, permission_overwrites: [{ id: guild.id, type: 0, allow: '0', deny: SEND }] });
    expect((await server.api('GET', `/channels/${other.id}`, { token })).body.position).toBe(0);
    const invalid = await server.api('PATCH', `/guilds/${guild.id}/channels`, { token, body: [{ id: other.id }, { id: '123456789012345678', position: 1 }] });
    expectError(invalid, 400, 'INVALID_FORM_BODY');
    expect(invalid.body.errors[0].path).toBe('1.id');
  });
});

describe('permission overwrites', () => {
  it('hides a channel whose @everyone overwrite denies VIEW_CHANNEL, except to those allowed', async () => {
    const guild = await createGuild(server);
    const [member, insider] = [await newMember(server, guild), await newMember(server, guild)];
    const secret = (await server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body: { name: 'secret' } })).body;
    expect(
      (await server.api('PUT', `/channels/${secret.id}/permissions/${guild.id}`, { token: guild.owner.token, body: { type: 0, deny: VIEW } })).status,
    ).toBe(204);
    expect(
      (await server.api('PUT', `/channels/${secret.id}/permissions/${insider.id}`, { token: guild.owner.token, body: { type: 1, allow: VIEW } })).status,
    ).toBe(204);

    expectError(await server.api('GET', `/channels/${secret.id}`, { token: member.token }), 404, 'UNKNOWN_CHANNEL');
    expect((await server.api('GET', `/guilds/${guild.id}/channels`, { token: member.token })).body.map((c: { id: string }) => c.id)).toEqual([guild.channelId]);
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `/channels/${secret.id}`, { token: member.token, body: { name: 'found' } }),
      404,
      'UNKNOWN_CHANNEL',
    );
    const seen = await server.api('GET', `/channels/${secret.id}`, { token: insider.token });
    expect(seen.status).toBe(200);
    expect(seen.body.permission_overwrites).toEqual([
      { id: guild.id, type: 0, allow: '0', deny: VIEW },
      { id: insider.id, type: 1, allow: VIEW, deny: '0' },
    ]);

    // Replacing keeps one overwrite per target; deleting removes it.
    await server.api('PUT', `/channels/${secret.id}/permissions/${insider.id}`, {
      token: guild.owner.token,
      body: { type: 1, allow: (Permission.VIEW_CHANNEL | Permission.SEND_MESSAGES).toString() },
    });
    expect((await server.api('GET', `/channels/${secret.id}`, { token: insider.token })).body.permission_overwrites).toHaveLength(2);
    expect((await server.api('DELETE', `/channels/${secret.id}/permissions/${insider.id}`, { token: guild.owner.token })).status).toBe(204);
    expectError(await server.api('GET', `/channels/${secret.id}`, { token: insider.token }), 404, 'UNKNOWN_CHANNEL');
  });

  it('needs MANAGE_ROLES in the channel, only grants held bits, and names real roles and members', async () => {
    const guild = await createGuild(server);
    const [manager, member] = [await newMember(server, guild), await newMember(server, guild)];
    const path = `/channels/${guild.channelId}/permissions/${member.id}`;
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PUT', path, { token: manager.token, body: { type: 1, deny: SEND } }),
      403,
      'MISSING_PERMISSIONS',
    );
    await expectRefusedWithoutEvents(server, () => server.api('DELETE', path, { token: manager.token }), 403, 'MISSING_PERMISSIONS');
    await grantRole(server, guild, manager, Permission.MANAGE_ROLES);
    expect((await server.api('PUT', path, { token: manager.token, body: { type: 1, deny: SEND } })).status).toBe(204);
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PUT', path, { token: manager.token, body: { type: 1, allow: Permission.MANAGE_GUILD.toString() } }),
      403,
      'MISSING_PERMISSIONS',
    );
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PUT', `/channels/${guild.channelId}/permissions/123456789012345678`, { token: manager.token, body: { type: 0, deny: SEND } }),
      400,
      'INVALID_FORM_BODY',
    );
    expectError(await server.api('PUT', path, { token: manager.token, body: { type: 2 } }), 400, 'INVALID_FORM_BODY');
    expectError(await server.api('PUT', path, { token: manager.token, body: { id: manager.id, type: 1, deny: SEND } }), 400, 'INVALID_FORM_BODY');
    expectError(await server.api('PUT', path, { token: manager.token, body: { type: 1, allow: 'lots' } }), 400, 'INVALID_FORM_BODY');
  });
});
