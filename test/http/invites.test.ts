// Invite routes through the real HTTPS API: channel, guild and pack invites, accepting (users and bots), limits of
// uses and age, revoking, vanity URLs, and the spec's rate limits.
import { describe, expect, it } from 'vitest';
import { endTemporaryMemberships, setVanityCode } from '../../commands/guilds.js';
import { vanityHolder } from '../../commands/vanity.js';
import { Permission } from '../../domain/permissions.js';
import { createBot, fileServer, registerUser } from '../support/server.js';
import { createGuild, expectError, expectRefusedWithoutEvents, grantRole, join, newMember } from './guildSupport.js';

const server = await fileServer();

describe('channel invites', () => {
  it('creates an invite with the spec’s fields and defaults, and fetches it by code', async () => {
    const guild = await createGuild(server, undefined, 'Invite Guild');
    const created = await server.api('POST', `/channels/${guild.channelId}/invites`, { token: guild.owner.token, body: {} });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      code: expect.stringMatching(/^[A-Za-z0-9]{8}$/),
      channel_id: guild.channelId,
      inviter_id: guild.owner.id,
      max_uses: 0,
      max_age: 86400,
      temporary: false,
      uses: 0,
    });
    const fetched = await server.api('GET', `/invites/${created.body.code}`, { token: (await registerUser(server)).token });
    expect(fetched.status).toBe(200);
    expect(fetched.body).toMatchObject({
      code: created.body.code,
      guild: { id: guild.id, name: 'Invite Guild' },
      channel: { id: guild.channelId, name: 'general' },
      inviter: { id: guild.owner.id, username: guild.owner.username },
      uses: 0,
      max_uses: 0,
      max_age: 86400,
      temporary: false,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expectError(await server.api('GET', '/invites/nosuchcode', { token: guild.owner.token }), 404, 'UNKNOWN_INVITE');
  });

  it('reuses an equivalent invite unless unique is asked for', async () => {
    const guild = await createGuild(server);
    const token = guild.owner.token;
    const first = await server.api('POST', `/channels/${guild.channelId}/invites`, { token, body: { max_uses: 3 } });
    const again = await server.api('POST', `/channels/${guild.channelId}/invites`, { token, body: { max_uses: 3 } });
    const unique = await server.api('POST', `/channels/${guild.channelId}/invites`, { token, body: { max_uses: 3, unique: true } });
    expect(again.body.code).toBe(first.body.code);
    expect(unique.body.code).not.toBe(first.body.code);
    const list = await server.api('GET', `/channels/${guild.channelId}/invites`, { token });
    expect(list.body.map((i: { code: string }) => i.code).sort()).toEqual([guild.code, first.body.code, unique.body.code].sort());
    expect(list.body.find((i: { code: string }) => i.code === first.body.code)).toMatchObject({
      channel_id: guild.channelId,
      inviter_id: guild.owner.id,
      uses: 0,
      max_uses: 3,
    });
  });

  it('needs CREATE_INSTANT_INVITE to create, MANAGE_CHANNELS to list, and a visible channel', async () => {
    const guild = await createGuild(server);
    const member = await newMember(server, guild);
    const stranger = await registerUser(server);
    expectError(await server.api('GET', `/channels/${guild.channelId}/invites`, { token: member.token }), 403, 'MISSING_PERMISSIONS');
    expectError(await server.api('GET', `/channels/${guild.channelId}/invites`, { token: stranger.token }), 404, 'UNKNOWN_CHANNEL');
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', `/channels/${guild.channelId}/invites`, { token: stranger.token, body: {} }),
      404,
      'UNKNOWN_CHANNEL',
    );
    await server.api('PUT', `/channels/${guild.channelId}/permissions/${member.id}`, {
      token: guild.owner.token,
      body: { type: 1, deny: Permission.CREATE_INSTANT_INVITE.toString() },
    });
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', `/channels/${guild.channelId}/invites`, { token: member.token, body: {} }),
      403,
      'MISSING_PERMISSIONS',
    );
    expectError(
      await server.api('POST', `/channels/${guild.channelId}/invites`, { token: guild.owner.token, body: { max_uses: 101 } }),
      400,
      'INVALID_FORM_BODY',
    );
  });
});

describe('accepting invites', () => {
  it('lets users and bots join, counting each use once', async () => {
    const guild = await createGuild(server, undefined, 'Join Guild');
    const user = await registerUser(server);
    const accepted = await server.api('POST', `/invites/${guild.code}`, { token: user.token });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ message: 'Joined the guild', guild_id: guild.id });
    expect((await server.api('GET', `/guilds/${guild.id}/members/${user.id}`, { token: user.token })).status).toBe(200);
    const again = await server.api('POST', `/invites/${guild.code}`, { token: user.token });
    expect(again.body).toEqual({ message: 'Already a member of the guild', guild_id: guild.id });

    const bot = await createBot(server);
    await join(server, guild, bot, 'Bot');
    const botGuilds = await server.api('GET', '/users/@me/guilds', { token: bot.token, scheme: 'Bot' });
    expect(botGuilds.body).toEqual([expect.objectContaining({ id: guild.id, name: 'Join Guild' })]);
    expect((await server.api('GET', `/invites/${guild.code}`, { token: user.token })).body.uses).toBe(2);
    expect((await server.api('GET', `/guilds/${guild.id}`, { token: user.token })).body.member_count).toBe(3);
  });

  it('answers UNKNOWN_INVITE once max_uses is reached', async () => {
    const guild = await createGuild(server);
    const once = await server.api('POST', `/channels/${guild.channelId}/invites`, { token: guild.owner.token, body: { max_uses: 1, unique: true } });
    const [first, second] = [await registerUser(server), await registerUser(server)];
    expect((await server.api('POST', `/invites/${once.body.code}`, { token: first.token })).status).toBe(200);
    await expectRefusedWithoutEvents(server, () => server.api('POST', `/invites/${once.body.code}`, { token: second.token }), 404, 'UNKNOWN_INVITE');
    expectError(await server.api('GET', `/invites/${once.body.code}`, { token: second.token }), 404, 'UNKNOWN_INVITE');
  });

  it('holds max_uses when many accept at once', async () => {
    const guild = await createGuild(server);
    const twice = await server.api('POST', `/channels/${guild.channelId}/invites`, { token: guild.owner.token, body: { max_uses: 2, unique: true } });
    const users = await Promise.all([1, 2, 3, 4, 5].map(() => registerUser(server)));
    const statuses = await Promise.all(users.map(async (u) => (await server.api('POST', `/invites/${twice.body.code}`, { token: u.token })).status));
    expect(statuses.sort()).toEqual([200, 200, 404, 404, 404]);
    expect((await server.api('GET', `/guilds/${guild.id}`, { token: guild.owner.token })).body.member_count).toBe(3);
  });

  it("counts one use for one user's parallel accepts, leaving the rest for others", async () => {
    const guild = await createGuild(server);
    const thrice = await server.api('POST', `/channels/${guild.channelId}/invites`, { token: guild.owner.token, body: { max_uses: 3, unique: true } });
    const eager = await registerUser(server);
    const statuses = await Promise.all(
      [1, 2, 3, 4, 5].map(async () => (await server.api('POST', `/invites/${thrice.body.code}`, { token: eager.token })).status),
    );
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect((await server.api('GET', `/invites/${thrice.body.code}`, { token: eager.token })).body.uses).toBe(1);
    const [second, third, fourth] = await Promise.all([1, 2, 3].map(() => registerUser(server)));
    for (const user of [second, third]) expect((await server.api('POST', `/invites/${thrice.body.code}`, { token: user.token })).status).toBe(200);
    await expectRefusedWithoutEvents(server, () => server.api('POST', `/invites/${thrice.body.code}`, { token: fourth.token }), 404, 'UNKNOWN_INVITE');
    expect((await server.api('GET', `/guilds/${guild.id}`, { token: guild.owner.token })).body.member_count).toBe(4);
  });

  it('answers UNKNOWN_INVITE once max_age has passed', async () => {
    const guild = await createGuild(server);
    const brief = await server.api('POST', `/channels/${guild.channelId}/invites`, { token: guild.owner.token, body: { max_age: 1, unique: true } });
    expect(brief.body.max_age).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const late = await registerUser(server);
    await expectRefusedWithoutEvents(server, () => server.api('POST', `/invites/${brief.body.code}`, { token: late.token }), 404, 'UNKNOWN_INVITE');
    expectError(await server.api('GET', `/invites/${brief.body.code}`, { token: late.token }), 404, 'UNKNOWN_INVITE');
    expect(
      (await server.api('GET', `/channels/${guild.channelId}/invites`, { token: guild.owner.token })).body.map((i: { code: string }) => i.code),
    ).not.toContain(brief.body.code);
  });

  it('records temporary membership from a temporary invite, ended on disconnect', async () => {
    const guild = await createGuild(server);
    const temporary = await server.api('POST', `/channels/${guild.channelId}/invites`, { token: guild.owner.token, body: { temporary: true, unique: true } });
    expect(temporary.body.temporary).toBe(true);
    const guest = await registerUser(server);
    expect((await server.api('POST', `/invites/${temporary.body.code}`, { token: guest.token })).status).toBe(200);
    const member = await server.runtime.readStore.findOne('members', { _id: `${guild.id}:${guest.id}` });
    expect(member?.temporary).toBe(true);
    // What the gateway does when the guest's last session closes.
    await endTemporaryMemberships(server.runtime, { actorId: guest.id, reason: null });
    expectError(await server.api('GET', `/guilds/${guild.id}`, { token: guest.token }), 404, 'UNKNOWN_GUILD');
  });
});

describe('revoking invites', () => {
  it('needs MANAGE_CHANNELS or MANAGE_GUILD, and the invite’s own channel', async () => {
    const guild = await createGuild(server);
    const member = await newMember(server, guild);
    const other = (await server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body: { name: 'other' } })).body;
    const invite = (await server.api('POST', `/channels/${guild.channelId}/invites`, { token: guild.owner.token, body: { unique: true } })).body;
    await expectRefusedWithoutEvents(server, () => server.api('DELETE', `/invites/${invite.code}`, { token: member.token }), 403, 'MISSING_PERMISSIONS');
    await expectRefusedWithoutEvents(
      server,
      () => server.api('DELETE', `/channels/${other.id}/invites/${invite.code}`, { token: guild.owner.token }),
      404,
      'UNKNOWN_INVITE',
    );
    expect((await server.api('DELETE', `/channels/${guild.channelId}/invites/${invite.code}`, { token: guild.owner.token })).status).toBe(204);
    expectError(await server.api('GET', `/invites/${invite.code}`, { token: member.token }), 404, 'UNKNOWN_INVITE');
    expectError(await server.api('DELETE', `/invites/${invite.code}`, { token: guild.owner.token }), 404, 'UNKNOWN_INVITE');

    const second = (await server.api('POST', `/channels/${guild.channelId}/invites`, { token: guild.owner.token, body: { unique: true } })).body;
    await grantRole(server, guild, member, Permission.MANAGE_CHANNELS);
    expect((await server.api('DELETE', `/invites/${second.code}`, { token: member.token })).status).toBe(204);
    expect((await server.api('POST', `/invites/${second.code}`, { token: (await registerUser(server)).token })).status).toBe(404);
  });

  it('takes a deleted channel’s invites with it', async () => {
    const guild = await createGuild(server);
    const doomed = (await server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body: { name: 'doomed' } })).body;
    const invite = (await server.api('POST', `/channels/${doomed.id}/invites`, { token: guild.owner.token, body: {} })).body;
    await server.api('DELETE', `/channels/${doomed.id}`, { token: guild.owner.token });
    const user = await registerUser(server);
    expectError(await server.api('POST', `/invites/${invite.code}`, { token: user.token }), 404, 'UNKNOWN_INVITE');
    expectError(await server.api('GET', `/invites/${invite.code}`, { token: user.token }), 404, 'UNKNOWN_INVITE');
  });
});

describe('guild and pack invites', () => {
  it('creates guild invites into a chosen or the first channel, listed with MANAGE_GUILD', async () => {
    const guild = await createGuild(server);
    const member = await newMember(server, guild);
    const other = (await server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body: { name: 'other' } })).body;
    const chosen = await server.api('POST', `/guilds/${guild.id}/invites`, { token: member.token, body: { channel_id: other.id } });
    expect(chosen.body).toMatchObject({ channel_id: other.id, inviter_id: member.id });
    const first = await server.api('POST', `/guilds/${guild.id}/invites`, { token: member.token, body: { unique: true } });
    expect(first.body.channel_id).toBe(guild.channelId);
    expectError(await server.api('GET', `/guilds/${guild.id}/invites`, { token: member.token }), 403, 'MISSING_PERMISSIONS');
    const list = await server.api('GET', `/guilds/${guild.id}/invites`, { token: guild.owner.token });
    expect(list.body.map((i: { code: string }) => i.code).sort()).toEqual([guild.code, chosen.body.code, first.body.code].sort());
    expectError(
      await server.api('POST', `/guilds/${guild.id}/invites`, { token: member.token, body: { channel_id: '123456789012345678' } }),
      404,
      'UNKNOWN_CHANNEL',
    );
  });

  it('shares a guild’s sticker pack through pack invites, without membership', async () => {
    const guild = await createGuild(server, undefined, 'Sticker Guild');
    const member = await newMember(server, guild);
    const created = await server.api('POST', `/packs/${guild.id}/invites`, { token: guild.owner.token, body: { max_uses: 5 } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ pack_id: guild.id, channel_id: null, guild: { id: guild.id, name: 'Sticker Guild' }, max_uses: 5 });
    const fan = await registerUser(server);
    const accepted = await server.api('POST', `/invites/${created.body.code}`, { token: fan.token });
    expect(accepted.body).toEqual({ message: 'Sticker pack added', guild_id: guild.id });
    expectError(await server.api('GET', `/guilds/${guild.id}`, { token: fan.token }), 404, 'UNKNOWN_GUILD');
    const list = await server.api('GET', `/packs/${guild.id}/invites`, { token: guild.owner.token });
    expect(list.body).toEqual([expect.objectContaining({ code: created.body.code, uses: 1 })]);
    expect((await server.api('GET', `/guilds/${guild.id}/invites`, { token: guild.owner.token })).body.map((i: { code: string }) => i.code)).not.toContain(
      created.body.code,
    );
    expectError(await server.api('GET', `/packs/${guild.id}/invites`, { token: member.token }), 403, 'MISSING_PERMISSIONS');
    expectError(await server.api('POST', `/packs/${guild.id}/invites`, { token: fan.token, body: {} }), 404, 'UNKNOWN_GUILD');
  });
});

describe('vanity URLs', () => {
  it('sets a code unique across guilds that joins like an invite, and counts its uses', async () => {
    const guild = await createGuild(server, undefined, 'Vanity Guild');
    const code = `vanity-${Date.now()}`;
    const set = await server.api('POST', `/guilds/${guild.id}/vanity-url`, { token: guild.owner.token, body: { code } });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ code, uses: 0, guild_id: guild.id });
    expect((await server.api('GET', `/guilds/${guild.id}`, { token: guild.owner.token })).body.vanity_url_code).toBe(code);

    const rival = await createGuild(server);
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', `/guilds/${rival.id}/vanity-url`, { token: rival.owner.token, body: { code } }),
      400,
      'INVALID_FORM_BODY',
    );

    const visitor = await registerUser(server);
    const fetched = await server.api('GET', `/invites/${code}`, { token: visitor.token });
    expect(fetched.body).toMatchObject({ code, guild: { id: guild.id, name: 'Vanity Guild' }, inviter_id: null, uses: 0, max_uses: 0, max_age: 0 });
    // No inviter and no creation time: absent, as the widely used API leaves optional fields (discord.js reads inviter.id).
    expect(fetched.body).not.toHaveProperty('inviter');
    expect(fetched.body).not.toHaveProperty('created_at');
    expect((await server.api('POST', `/invites/${code}`, { token: visitor.token })).body).toEqual({ message: 'Joined the guild', guild_id: guild.id });
    expect((await server.api('GET', `/guilds/${guild.id}/vanity-url`, { token: guild.owner.token })).body).toEqual({ code, uses: 1, guild_id: guild.id });

    const renamed = await server.api('PATCH', `/guilds/${guild.id}/vanity-url`, { token: guild.owner.token, body: { code: `${code}-2` } });
    expect(renamed.body).toEqual({ code: `${code}-2`, uses: 0, guild_id: guild.id });
    expectError(await server.api('POST', `/invites/${code}`, { token: (await registerUser(server)).token }), 404, 'UNKNOWN_INVITE');
    // The old code is free again.
    expect((await server.api('POST', `/guilds/${rival.id}/vanity-url`, { token: rival.owner.token, body: { code } })).status).toBe(200);

    expect((await server.api('DELETE', `/guilds/${guild.id}/vanity-url`, { token: guild.owner.token })).status).toBe(204);
    expect((await server.api('GET', `/guilds/${guild.id}/vanity-url`, { token: guild.owner.token })).body).toEqual({ code: null, uses: 0, guild_id: guild.id });
    expectError(await server.api('GET', `/invites/${code}-2`, { token: visitor.token }), 404, 'UNKNOWN_INVITE');
  });

  it('never takes a code an invite already has', async () => {
    // Random invite codes mix cases and vanity codes are lowercase, so this is asked of the command directly.
    const guild = await createGuild(server);
    const meta = { actorId: guild.owner.id, reason: null };
    await expect(setVanityCode(server.runtime, meta, guild.id, guild.code)).rejects.toMatchObject({ code: 'INVALID_FORM_BODY' });
    expect(await vanityHolder(server.runtime, guild.code)).toBeNull();
  });

  it('needs MANAGE_GUILD and a valid code', async () => {
    const guild = await createGuild(server);
    const member = await newMember(server, guild);
    const stranger = await registerUser(server);
    expectError(await server.api('GET', `/guilds/${guild.id}/vanity-url`, { token: member.token }), 403, 'MISSING_PERMISSIONS');
    expectError(await server.api('GET', `/guilds/${guild.id}/vanity-url`, { token: stranger.token }), 404, 'UNKNOWN_GUILD');
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', `/guilds/${guild.id}/vanity-url`, { token: member.token, body: { code: 'mine-now' } }),
      403,
      'MISSING_PERMISSIONS',
    );
    await expectRefusedWithoutEvents(server, () => server.api('DELETE', `/guilds/${guild.id}/vanity-url`, { token: member.token }), 403, 'MISSING_PERMISSIONS');
    const invalid = await server.api('POST', `/guilds/${guild.id}/vanity-url`, { token: guild.owner.token, body: { code: 'Not Valid!' } });
    expectError(invalid, 400, 'INVALID_FORM_BODY');
    expect(invalid.body.errors[0].path).toBe('code');
  });

  it('keeps a banned user out through the vanity code too', async () => {
    const guild = await createGuild(server);
    const code = `ban-${Date.now()}`;
    await server.api('POST', `/guilds/${guild.id}/vanity-url`, { token: guild.owner.token, body: { code } });
    const troll = await registerUser(server);
    await server.api('PUT', `/guilds/${guild.id}/bans/${troll.id}`, { token: guild.owner.token });
    await expectRefusedWithoutEvents(server, () => server.api('POST', `/invites/${code}`, { token: troll.token }), 403, 'USER_BANNED');
  });
});

describe('rate limits', () => {
  it('allows 5 invite fetches per 10 seconds, then answers 429 with Retry-After', async () => {
    const guild = await createGuild(server);
    const reader = await registerUser(server);
    for (let i = 0; i < 5; i++) expect((await server.api('GET', `/invites/${guild.code}`, { token: reader.token })).status).toBe(200);
    const limited = await server.api('GET', `/invites/${guild.code}`, { token: reader.token });
    expectError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body.retry_after).toBeGreaterThan(0);
    // Buckets are per endpoint: accepting still works.
    expect((await server.api('POST', `/invites/${guild.code}`, { token: reader.token })).status).toBe(200);
  });
});
