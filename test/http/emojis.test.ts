// Guild emojis over the real HTTPS API, the CDN and the gateway: create from a data URI or a URL, list, fetch, rename,
// restrict to roles, delete with and without purge; who may do it; the name and image rules with their form paths;
// the per-guild limits of count and rate; the audit log's 72/73/74; GUILD_EMOJIS_UPDATE and GUILD_CREATE's emojis.
// Each test makes its own guild: the spec limits every emoji route to 5 requests a minute per guild.
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { fileGateway } from '../support/gateway.js';
import { registerUser } from '../support/server.js';
import { animatedImage, dataUri, expectRefusedWithoutFiles, served, stillImage, storedFiles, streamEvents } from './expressionSupport.js';
import { type TestGuild, createGuild, expectError, grantRole, newMember } from './guildSupport.js';

// Emoji images given by URL are fetched from this very server's CDN, on a loopback address.
const { server, gateway: clients } = await fileGateway({ INTERACTIONS_ALLOW_PRIVATE: '1' });

const INTENT_GUILDS = 1 << 0;
const INTENT_GUILD_EXPRESSIONS = 1 << 3;

const png = await stillImage(64, 64);
const gif = await animatedImage(48, 32, 3);

function createEmoji(guild: TestGuild, body: unknown, token = guild.owner.token) {
  return server.api('POST', `/guilds/${guild.id}/emojis`, { token, body });
}

async function created(guild: TestGuild, name: string, image = dataUri(png), token = guild.owner.token) {
  const response = await createEmoji(guild, { name, image }, token);
  expect(response.status, response.text).toBe(201);
  return response.body;
}

describe('creating an emoji', () => {
  it('answers 201 with the spec’s fields, appends EmojiCreated on the guild’s expressions stream and serves its image', async () => {
    const guild = await createGuild(server);
    const emoji = await created(guild, 'party_blob');
    expect(emoji).toMatchObject({
      name: 'party_blob',
      guild_id: guild.id,
      roles: [],
      animated: false,
      available: true,
      require_colons: true,
      managed: false,
      image: `${server.origin}/emojis/${emoji.id}.png`,
      user: { id: guild.owner.id, username: guild.owner.username, discriminator: expect.any(String) },
    });
    expect(Date.parse(emoji.created_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(await streamEvents(server, `guild-expressions-${guild.id}`)).toEqual([
      expect.objectContaining({
        type: 'EmojiCreated',
        data: {
          guildId: guild.id,
          emoji: { id: emoji.id, name: 'party_blob', roles: [], user_id: guild.owner.id, animated: false, created_at: expect.any(String) },
        },
        metadata: expect.objectContaining({ actorId: guild.owner.id }),
      }),
    ]);
    const image = await served(server, emoji.image);
    expect(image.status).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    // The spec's default size is 128 wide.
    expect(image.image).toEqual({ format: 'png', width: 128, height: 128, pages: 1 });
  });

  it('keeps an animated GIF animated: animated true, a .gif URL, every frame at the size asked for', async () => {
    const guild = await createGuild(server);
    const emoji = await created(guild, 'spinner', dataUri(gif, 'image/gif'));
    expect(emoji).toMatchObject({ animated: true, image: `${server.origin}/emojis/${emoji.id}.gif` });
    expect((await served(server, `${emoji.image}?size=32`)).image).toEqual({ format: 'gif', width: 32, height: 21, pages: 3 });
    // WebP keeps the frames only when asked to; PNG and JPEG show the first frame, not a strip of all of them.
    expect((await served(server, `/emojis/${emoji.id}.webp?size=64&animated=true`)).image).toEqual({ format: 'webp', width: 64, height: 43, pages: 3 });
    expect((await served(server, `/emojis/${emoji.id}.webp?size=64`)).image).toEqual({ format: 'webp', width: 64, height: 43, pages: 1 });
    expect((await served(server, `/emojis/${emoji.id}.png?size=64`)).image).toEqual({ format: 'png', width: 64, height: 43, pages: 1 });
    expect((await served(server, `/emojis/${emoji.id}.jpeg?size=16`)).image).toEqual({ format: 'jpeg', width: 16, height: 11, pages: 1 });
  });

  it('takes an https URL for the image, fetched and decoded like a data URI, and refuses URLs it cannot use at `image`', async () => {
    const guild = await createGuild(server);
    const first = await created(guild, 'original');
    const copy = await created(guild, 'copy', `${first.image}?size=32`);
    expect((await served(server, copy.image)).image).toMatchObject({ format: 'png', width: 128 });
    for (const url of [`http://127.0.0.1:1/emoji.png`, `${server.origin}/emojis/1.png`, 'ftp://example.com/a.png']) {
      const refused = await expectRefusedWithoutFiles(server, 'emojis', () => createEmoji(guild, { name: 'by_url', image: url }), 400, 'INVALID_FORM_BODY');
      expect(refused.body.errors).toEqual([{ path: 'image', message: expect.any(String) }]);
    }
  });

  it('refuses bad names, images and roles with INVALID_FORM_BODY at the field, storing no file and appending nothing', async () => {
    let guild = await createGuild(server);
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const huge = await stillImage(1024, 1024, 'png');
    const cases: [unknown, string][] = [
      [{ name: 'a', image: dataUri(png) }, 'name'],
      [{ name: 'x'.repeat(33), image: dataUri(png) }, 'name'],
      [{ name: 'no-dashes', image: dataUri(png) }, 'name'],
      [{ name: 'émoji', image: dataUri(png) }, 'name'],
      [{ image: dataUri(png) }, 'name'],
      [{ name: 'fine' }, 'image'],
      [{ name: 'fine', image: 'not an image' }, 'image'],
      [{ name: 'fine', image: dataUri(svg, 'image/png') }, 'image'],
      [{ name: 'fine', image: `data:image/png;base64,${Buffer.from('hello').toString('base64')}` }, 'image'],
      [{ name: 'fine', image: dataUri(Buffer.concat([huge, Buffer.alloc(300 * 1024)])) }, 'image'],
      [{ name: 'fine', image: dataUri(png), roles: ['123'] }, 'roles.0'],
    ];
    for (const [i, [body, path]] of cases.entries()) {
      // Refused requests count too: a fresh guild for every five.
      if (i % 5 === 0 && i > 0) guild = await createGuild(server);
      const response = await expectRefusedWithoutFiles(server, 'emojis', () => createEmoji(guild, body), 400, 'INVALID_FORM_BODY');
      expect(
        response.body.errors.map((e: { path: string }) => e.path),
        JSON.stringify(body).slice(0, 80),
      ).toEqual([path]);
    }
  });
});

describe('who may manage emojis', () => {
  it('lets any member list and fetch them, and tells anyone else the guild is unknown', async () => {
    const guild = await createGuild(server);
    const emoji = await created(guild, 'listed');
    const member = await newMember(server, guild);
    const list = await server.api('GET', `/guilds/${guild.id}/emojis`, { token: member.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([emoji]);
    expect((await server.api('GET', `/guilds/${guild.id}/emojis/${emoji.id}`, { token: member.token })).body).toEqual(emoji);
    expectError(await server.api('GET', `/guilds/${guild.id}/emojis/${guild.id}`, { token: member.token }), 404, 'UNKNOWN_EMOJI');
    const outsider = await registerUser(server);
    expectError(await server.api('GET', `/guilds/${guild.id}/emojis`, { token: outsider.token }), 404, 'UNKNOWN_GUILD');
    expectError(await createEmoji(guild, { name: 'nope', image: dataUri(png) }, outsider.token), 404, 'UNKNOWN_GUILD');
  });

  it('needs MANAGE_EMOJIS_AND_STICKERS (a role may grant it) to write; without it 403, with nothing appended or stored', async () => {
    const guild = await createGuild(server);
    const emoji = await created(guild, 'owned');
    const member = await newMember(server, guild);
    await expectRefusedWithoutFiles(
      server,
      'emojis',
      () => createEmoji(guild, { name: 'mine', image: dataUri(png) }, member.token),
      403,
      'MISSING_PERMISSIONS',
    );
    await expectRefusedWithoutFiles(
      server,
      'emojis',
      () => server.api('PATCH', `/guilds/${guild.id}/emojis/${emoji.id}`, { token: member.token, body: { name: 'taken' } }),
      403,
      'MISSING_PERMISSIONS',
    );
    await expectRefusedWithoutFiles(
      server,
      'emojis',
      () => server.api('DELETE', `/guilds/${guild.id}/emojis/${emoji.id}`, { token: member.token }),
      403,
      'MISSING_PERMISSIONS',
    );
    await grantRole(server, guild, member, Permission.MANAGE_EMOJIS_AND_STICKERS, 'emoji admins');
    await created(guild, 'now_allowed', dataUri(png), member.token);
    const renamed = await server.api('PATCH', `/guilds/${guild.id}/emojis/${emoji.id}`, { token: member.token, body: { name: 'renamed' } });
    expect(renamed.body.name).toBe('renamed');
  });

  it('lets CREATE_GUILD_EXPRESSIONS add emojis and manage its own, not anyone else’s', async () => {
    const guild = await createGuild(server);
    const owners = await created(guild, 'owners');
    const creator = await newMember(server, guild);
    await grantRole(server, guild, creator, Permission.CREATE_GUILD_EXPRESSIONS, 'creators');
    const own = await created(guild, 'own', dataUri(png), creator.token);
    expect((await server.api('PATCH', `/guilds/${guild.id}/emojis/${own.id}`, { token: creator.token, body: { name: 'own_renamed' } })).status).toBe(200);
    await expectRefusedWithoutFiles(
      server,
      'emojis',
      () => server.api('PATCH', `/guilds/${guild.id}/emojis/${owners.id}`, { token: creator.token, body: { name: 'stolen' } }),
      403,
      'MISSING_PERMISSIONS',
    );
    expect((await server.api('DELETE', `/guilds/${guild.id}/emojis/${own.id}`, { token: creator.token })).status).toBe(204);
  });
});

describe('changing and deleting an emoji', () => {
  it('changes only what PATCH names (name, roles), refuses unknown roles and emojis, and null roles open it to everyone', async () => {
    const guild = await createGuild(server);
    const emoji = await created(guild, 'before');
    const member = await newMember(server, guild);
    const roleId = await grantRole(server, guild, member, 0n, 'emoji users');
    const path = `/guilds/${guild.id}/emojis/${emoji.id}`;
    const restricted = await server.api('PATCH', path, { token: guild.owner.token, body: { roles: [roleId] } });
    expect(restricted.body).toMatchObject({ name: 'before', roles: [roleId] });
    const renamed = await server.api('PATCH', path, { token: guild.owner.token, body: { name: 'after' } });
    expect(renamed.body).toMatchObject({ name: 'after', roles: [roleId], image: emoji.image, created_at: emoji.created_at });
    const refused = await expectRefusedWithoutFiles(
      server,
      'emojis',
      () => server.api('PATCH', path, { token: guild.owner.token, body: { roles: [roleId, '42'] } }),
      400,
      'INVALID_FORM_BODY',
    );
    expect(refused.body.errors).toEqual([{ path: 'roles.1', message: 'Unknown role' }]);
    const opened = await server.api('PATCH', path, { token: guild.owner.token, body: { roles: null } });
    expect(opened.body.roles).toEqual([]);
    // Five updates a minute per guild: the rest in another one.
    const other = await createGuild(server);
    expectError(await server.api('PATCH', `/guilds/${other.id}/emojis/42`, { token: other.owner.token, body: { name: 'ghost' } }), 404, 'UNKNOWN_EMOJI');
    expectError(
      await server.api('PATCH', `/guilds/${other.id}/emojis/${emoji.id}`, { token: other.owner.token, body: { name: 'elsewhere' } }),
      404,
      'UNKNOWN_EMOJI',
    );
    expectError(
      await server.api('PATCH', `/guilds/${other.id}/emojis/42`, { token: other.owner.token, body: { image: dataUri(png) } }),
      400,
      'INVALID_FORM_BODY',
    );
  });

  it('deletes with 204, keeping the image on the CDN unless purge=true, which removes it (404)', async () => {
    const guild = await createGuild(server);
    const kept = await created(guild, 'kept');
    const purged = await created(guild, 'purged');
    expect((await server.api('DELETE', `/guilds/${guild.id}/emojis/${kept.id}`, { token: guild.owner.token })).status).toBe(204);
    expect((await served(server, kept.image)).status).toBe(200);
    expect((await server.api('DELETE', `/guilds/${guild.id}/emojis/${purged.id}?purge=true`, { token: guild.owner.token })).status).toBe(204);
    expect((await served(server, purged.image)).status).toBe(404);
    expect(await storedFiles(server, `emojis/${purged.id}`)).toEqual([]);
    expectError(await server.api('DELETE', `/guilds/${guild.id}/emojis/${kept.id}`, { token: guild.owner.token }), 404, 'UNKNOWN_EMOJI');
    expect((await server.api('GET', `/guilds/${guild.id}/emojis`, { token: guild.owner.token })).body).toEqual([]);
    const deleted = (await streamEvents(server, `guild-expressions-${guild.id}`)).filter((e) => e.type === 'EmojiDeleted');
    expect(deleted.map((e) => [e.data.emoji.id, e.data.purged])).toEqual([
      [kept.id, false],
      [purged.id, true],
    ]);
  });

  it('records audit entries 72, 73 with the changes and 74, with the actor and reason', async () => {
    const guild = await createGuild(server);
    const emoji = await created(guild, 'audited');
    const reason = { 'X-Audit-Log-Reason': 'tidying up' };
    await server.api('PATCH', `/guilds/${guild.id}/emojis/${emoji.id}`, { token: guild.owner.token, body: { name: 'audited_too' }, headers: reason });
    await server.api('DELETE', `/guilds/${guild.id}/emojis/${emoji.id}`, { token: guild.owner.token });
    const log = await server.api('GET', `/guilds/${guild.id}/audit-logs`, { token: guild.owner.token });
    const entries = log.body.audit_log_entries.filter((e: { action_type: number }) => e.action_type >= 72 && e.action_type <= 74);
    expect(entries).toEqual([
      expect.objectContaining({ action_type: 74, target_id: emoji.id, user_id: guild.owner.id, changes: [{ key: 'name', old_value: 'audited_too' }] }),
      expect.objectContaining({
        action_type: 73,
        target_id: emoji.id,
        reason: 'tidying up',
        changes: [{ key: 'name', old_value: 'audited', new_value: 'audited_too' }],
      }),
      expect.objectContaining({ action_type: 72, target_id: emoji.id, changes: [{ key: 'name', new_value: 'audited' }] }),
    ]);
  });
});

describe('per-guild limits', () => {
  it('refuses a 51st static emoji with 403, still takes an animated one, and stores nothing when refusing', async () => {
    const guild = await createGuild(server);
    // Fifty static emojis already, as events (the create route itself allows 5 a minute).
    const stream = `guild-expressions-${guild.id}`;
    const emojis = Array.from({ length: 50 }, (_, i) => ({
      type: 'EmojiCreated',
      data: {
        guildId: guild.id,
        emoji: { id: String(9_000_000 + i), name: `e${i}`, roles: [], user_id: guild.owner.id, animated: false, created_at: new Date().toISOString() },
      },
      metadata: { actorId: guild.owner.id, createdAt: new Date().toISOString() },
    }));
    const appended = await server.runtime.store.appendToStream(stream, emojis, { expectedRevision: 'no_stream' });
    await server.runtime.settle(appended.position);
    await expectRefusedWithoutFiles(server, 'emojis', () => createEmoji(guild, { name: 'one_too_many', image: dataUri(png) }), 403, 'MAXIMUM_EMOJIS_REACHED');
    await created(guild, 'animated_fits', dataUri(gif, 'image/gif'));
  });

  it('allows 5 creates a minute per guild with the headers discord.js reads, then 429; another guild is not limited', async () => {
    const [busy, other] = [await createGuild(server), await createGuild(server)];
    for (let i = 0; i < 5; i++) {
      const response = await createEmoji(busy, { name: `burst_${i}`, image: dataUri(png) });
      expect(response.status).toBe(201);
      expect(response.headers).toMatchObject({ 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': String(4 - i), 'x-ratelimit-bucket': expect.any(String) });
    }
    const limited = await expectRefusedWithoutFiles(server, 'emojis', () => createEmoji(busy, { name: 'burst_5', image: dataUri(png) }), 429, 'RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body.retry_after).toBeGreaterThan(0);
    expect((await createEmoji(other, { name: 'elsewhere', image: dataUri(png) })).status).toBe(201);
  });
});

describe('the gateway', () => {
  it('sends members GUILD_EMOJIS_UPDATE with the guild’s emojis, and GUILD_CREATE carries them', async () => {
    const guild = await createGuild(server);
    const member = await newMember(server, guild);
    const session = await clients.session(member.token, INTENT_GUILDS | INTENT_GUILD_EXPRESSIONS);
    const emoji = await created(guild, 'live');
    const update = await session.dispatch('GUILD_EMOJIS_UPDATE');
    expect(update.d).toEqual({ guild_id: guild.id, emojis: [expect.objectContaining({ id: emoji.id, name: 'live', animated: false, roles: [] })] });
    const later = await clients.session(member.token, INTENT_GUILDS);
    const guildCreate = await later.next((p) => p.t === 'GUILD_CREATE' && p.d.id === guild.id);
    expect(guildCreate.d.emojis).toEqual([expect.objectContaining({ id: emoji.id, name: 'live' })]);
    expect((await server.api('GET', `/guilds/${guild.id}`, { token: member.token })).body.emojis).toEqual([expect.objectContaining({ id: emoji.id })]);
  });
});
