// Guild stickers over the real HTTPS API, the CDN and the gateway: the spec's five routes (create, bulk create, list
// with limit/offset/total, PATCH, DELETE with purge), the widely used API's form upload and single fetch; PNG or WebP
// of at most 500 KB checked by decoding; paths of every refusal (stickers.3.image in a bulk); who may write; the
// per-guild count and rate limits; audit entries; GUILD_STICKERS_UPDATE and GUILD_CREATE's stickers; pack invites.
// The create, update and delete routes take 5 requests per 10 s per guild: tests make guilds as they need them.
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { fileGateway } from '../support/gateway.js';
import { type ApiResponse } from '../support/server.js';
import { animatedImage, dataUri, expectRefusedWithoutFiles, randomImage, served, stillImage, streamEvents } from './expressionSupport.js';
import { type TestGuild, createGuild, expectError, grantRole, newMember } from './guildSupport.js';

const { server, gateway: clients } = await fileGateway();

const png = await stillImage(320, 320, 'png');
const webp = await stillImage(160, 160, 'webp');
const sticker = (over: object = {}) => ({ name: 'wave', description: 'Waving hello', tags: 'wave, hello,hi', image: dataUri(png), ...over });

const post = (guild: TestGuild, body: unknown, token = guild.owner.token) => server.api('POST', `/guilds/${guild.id}/stickers`, { token, body });

async function created(guild: TestGuild, over: object = {}, token = guild.owner.token) {
  const response = await post(guild, sticker(over), token);
  expect(response.status, response.text).toBe(201);
  return response.body;
}

/** A request refused at one field: 400 INVALID_FORM_BODY, that path only, nothing appended or stored. */
async function refusedAt(request: () => Promise<ApiResponse>, path: string) {
  const response = await expectRefusedWithoutFiles(server, 'stickers', request, 400, 'INVALID_FORM_BODY');
  // An empty name breaks two rules at one path.
  expect([...new Set(response.body.errors.map((e: { path: string }) => e.path))]).toEqual([path]);
}

/** `count` stickers already in the guild, as events (the create route itself takes 5 per 10 s). */
async function seedStickers(guild: TestGuild, count: number) {
  const now = new Date().toISOString();
  const events = Array.from({ length: count }, (_, i) => ({
    type: 'StickerCreated',
    data: {
      guildId: guild.id,
      sticker: {
        id: String(8_000_000 + i),
        name: `s${i}`,
        description: '',
        tags: ['x'],
        format: 'png',
        animated: false,
        image_hash: '0'.repeat(32),
        user_id: guild.owner.id,
        created_at: now,
        updated_at: null,
      },
    },
    metadata: { actorId: guild.owner.id, createdAt: now },
  }));
  await server.runtime.settle((await server.runtime.store.appendToStream(`guild-expressions-${guild.id}`, events, { expectedRevision: 'no_stream' })).position);
}

describe('creating a sticker', () => {
  it('answers 201 with the spec’s fields (tags as an array), appends StickerCreated and serves the image as PNG, WebP and GIF', async () => {
    const guild = await createGuild(server);
    const body = await created(guild);
    expect(body).toMatchObject({
      name: 'wave',
      description: 'Waving hello',
      tags: ['wave', 'hello', 'hi'],
      type: 2,
      format_type: 1,
      available: true,
      guild_id: guild.id,
      image_url: `${server.origin}/stickers/${body.id}.png`,
      user: { id: guild.owner.id, username: guild.owner.username },
    });
    expect(Date.parse(body.created_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(body.updated_at).toBeUndefined();
    const [event] = await streamEvents(server, `guild-expressions-${guild.id}`);
    expect(event).toMatchObject({
      type: 'StickerCreated',
      data: { guildId: guild.id, sticker: { id: body.id, tags: ['wave', 'hello', 'hi'], format: 'png', animated: false } },
    });
    const image = await served(server, body.image_url);
    expect(image.headers['content-type']).toBe('image/png');
    expect(String(image.headers['cache-control'])).toMatch(/max-age=\d+/);
    expect(image.image).toEqual({ format: 'png', width: 128, height: 128, pages: 1 });
    expect((await served(server, `/stickers/${body.id}.webp?size=320`)).image).toEqual({ format: 'webp', width: 320, height: 320, pages: 1 });
    expect((await served(server, `/stickers/${body.id}.gif?size=64`)).image).toEqual({ format: 'gif', width: 64, height: 64, pages: 1 });
    expect((await served(server, `/stickers/${body.id}.jpeg`)).status).toBe(400);
  });

  it('keeps an animated WebP sticker animated as GIF, and as WebP when asked', async () => {
    const guild = await createGuild(server);
    const body = await created(guild, { image: dataUri(await animatedImage(64, 64, 3, 'webp'), 'image/webp') });
    expect(body).toMatchObject({ format_type: 2, image_url: `${server.origin}/stickers/${body.id}.webp` });
    expect((await served(server, `/stickers/${body.id}.gif?size=64`)).image).toEqual({ format: 'gif', width: 64, height: 64, pages: 3 });
    expect((await served(server, `/stickers/${body.id}.webp?size=64&animated=true`)).image).toEqual({ format: 'webp', width: 64, height: 64, pages: 3 });
  });

  it('takes the widely used API’s form upload: name, description and tags fields and a file part', async () => {
    const guild = await createGuild(server);
    const form = new FormData();
    form.append('name', 'formed');
    form.append('description', '');
    form.append('tags', 'form');
    form.append('file', new Blob([webp], { type: 'application/octet-stream' }), 'sticker.webp');
    const encoded = new Response(form);
    const response = await server.api('POST', `/guilds/${guild.id}/stickers`, {
      token: guild.owner.token,
      rawBody: Buffer.from(await encoded.arrayBuffer()),
      headers: { 'content-type': encoded.headers.get('content-type')! },
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body).toMatchObject({ name: 'formed', description: '', tags: ['form'], image_url: `${server.origin}/stickers/${response.body.id}.webp` });
    expect((await served(server, response.body.image_url)).image).toMatchObject({ format: 'webp', width: 128 });
  });

  it('refuses bad fields at their paths and images that are not PNG or WebP or over 500 KB, by what they decode to', async () => {
    const [jpeg, gif, big] = await Promise.all([stillImage(32, 32, 'jpeg'), animatedImage(16, 16), randomImage(600, 600, 0)]);
    expect(big.length).toBeGreaterThan(500 * 1024);
    const cases: [object, string][] = [
      [sticker({ name: '' }), 'name'],
      [sticker({ name: 'x'.repeat(31) }), 'name'],
      [sticker({ description: 'd'.repeat(101) }), 'description'],
      [sticker({ tags: '' }), 'tags'],
      [sticker({ tags: ' , ,' }), 'tags'],
      [sticker({ tags: 7 }), 'tags'],
      [sticker({ image: dataUri(jpeg, 'image/jpeg') }), 'image'],
      // A GIF declared as PNG is still a GIF.
      [sticker({ image: dataUri(gif, 'image/png') }), 'image'],
      [sticker({ image: dataUri(big) }), 'image'],
      [sticker({ image: dataUri(Buffer.from('plain text')) }), 'image'],
      [{ name: 'wave', tags: 'wave', image: dataUri(png) }, 'description'],
    ];
    let guild = await createGuild(server);
    for (const [i, [body, path]] of cases.entries()) {
      if (i % 5 === 0 && i > 0) guild = await createGuild(server);
      await refusedAt(() => post(guild, body), path);
    }
  });

  it('needs MANAGE_EMOJIS_AND_STICKERS or CREATE_GUILD_EXPRESSIONS; refusals store nothing', async () => {
    const guild = await createGuild(server);
    const member = await newMember(server, guild);
    await expectRefusedWithoutFiles(server, 'stickers', () => post(guild, sticker(), member.token), 403, 'MISSING_PERMISSIONS');
    await grantRole(server, guild, member, Permission.CREATE_GUILD_EXPRESSIONS, 'creators');
    const own = await created(guild, {}, member.token);
    const owners = await created(guild);
    expect((await server.api('PATCH', `/guilds/${guild.id}/stickers/${own.id}`, { token: member.token, body: { name: 'mine' } })).status).toBe(200);
    await expectRefusedWithoutFiles(
      server,
      'stickers',
      () => server.api('DELETE', `/guilds/${guild.id}/stickers/${owners.id}`, { token: member.token }),
      403,
      'MISSING_PERMISSIONS',
    );
  });
});

describe('bulk create', () => {
  it('creates the valid entries and reports each failure in its place, with paths like stickers.3.image', async () => {
    const guild = await createGuild(server);
    const response = await server.api('POST', `/guilds/${guild.id}/stickers/bulk`, {
      token: guild.owner.token,
      body: {
        stickers: [
          sticker({ name: 'one' }),
          sticker({ name: 'x'.repeat(31) }),
          sticker({ name: 'three', image: dataUri(webp, 'image/webp') }),
          sticker({ image: 'data:image/png;base64,AAAA' }),
          'not a sticker',
        ],
      },
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body).toEqual([
      expect.objectContaining({ name: 'one', id: expect.any(String) }),
      { code: 'INVALID_FORM_BODY', message: expect.any(String), errors: [{ path: 'stickers.1.name', message: expect.any(String) }] },
      expect.objectContaining({ name: 'three', image_url: expect.stringMatching(/\.webp$/) }),
      { code: 'INVALID_FORM_BODY', message: expect.any(String), errors: [{ path: 'stickers.3.image', message: 'Invalid image data' }] },
      { code: 'INVALID_FORM_BODY', message: expect.any(String), errors: [{ path: 'stickers.4', message: expect.any(String) }] },
    ]);
    const events = await streamEvents(server, `guild-expressions-${guild.id}`);
    expect(events.map((e) => e.data.sticker.name)).toEqual(['one', 'three']);
  });

  it('refuses 11 entries, or entries that all fail, with 400 and nothing created', async () => {
    const guild = await createGuild(server);
    const bulk = (stickers: unknown[]) => () => server.api('POST', `/guilds/${guild.id}/stickers/bulk`, { token: guild.owner.token, body: { stickers } });
    await refusedAt(bulk(Array.from({ length: 11 }, () => sticker())), 'stickers');
    const all = await expectRefusedWithoutFiles(server, 'stickers', bulk([sticker({ tags: '' }), sticker({ image: 'nope' })]), 400, 'INVALID_FORM_BODY');
    expect(all.body.errors.map((e: { path: string }) => e.path)).toEqual(['stickers.0.tags', 'stickers.1.image']);
  });

  it('creates as many as the guild has room for (60) and reports the rest; a full guild refuses with 403', async () => {
    const guild = await createGuild(server);
    await seedStickers(guild, 59);
    const response = await server.api('POST', `/guilds/${guild.id}/stickers/bulk`, {
      token: guild.owner.token,
      body: { stickers: [sticker({ name: 'last' }), sticker({ name: 'no_room' })] },
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual([expect.objectContaining({ name: 'last' }), { code: 'MAXIMUM_STICKERS_REACHED', message: expect.any(String) }]);
    await expectRefusedWithoutFiles(server, 'stickers', () => post(guild, sticker()), 403, 'MAXIMUM_STICKERS_REACHED');
  });
});

describe('listing, changing and deleting', () => {
  it('lists a page with limit (1-100, default 50) and offset, and the total', async () => {
    const guild = await createGuild(server);
    await seedStickers(guild, 55);
    const list = (query = '') => server.api('GET', `/guilds/${guild.id}/stickers${query}`, { token: guild.owner.token });
    const first = await list();
    expect(first.body).toMatchObject({ total: 55, limit: 50, offset: 0 });
    expect(first.body.stickers).toHaveLength(50);
    const rest = await list('?limit=10&offset=50');
    expect(rest.body).toMatchObject({ total: 55, limit: 10, offset: 50 });
    expect(rest.body.stickers.map((s: { name: string }) => s.name)).toEqual(['s50', 's51', 's52', 's53', 's54']);
    for (const query of ['?limit=0', '?limit=101', '?offset=-1']) expectError(await list(query), 400, 'INVALID_FORM_BODY');
    const member = await newMember(server, guild);
    expect((await server.api('GET', `/guilds/${guild.id}/stickers?limit=1`, { token: member.token })).body.stickers).toHaveLength(1);
  });

  it('changes only the fields sent, answers updated_at, replaces the image, and records audit entries', async () => {
    const guild = await createGuild(server);
    const body = await created(guild);
    const path = `/guilds/${guild.id}/stickers/${body.id}`;
    const before = await served(server, body.image_url);
    const patched = await server.api('PATCH', path, { token: guild.owner.token, body: { tags: 'bye, later' }, headers: { 'X-Audit-Log-Reason': 'retagged' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'wave', description: 'Waving hello', tags: ['bye', 'later'], created_at: body.created_at });
    expect(Date.parse(patched.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(body.created_at));
    const replaced = await server.api('PATCH', path, {
      token: guild.owner.token,
      body: { image: dataUri(await stillImage(64, 32, 'webp', '#00ff00'), 'image/webp') },
    });
    expect(replaced.body).toMatchObject({ name: 'wave', image_url: `${server.origin}/stickers/${body.id}.webp` });
    const after = await served(server, replaced.body.image_url);
    expect(after.image).toEqual({ format: 'webp', width: 128, height: 64, pages: 1 });
    expect(after.headers.etag).not.toBe(before.headers.etag);
    const jpeg = dataUri(await stillImage(8, 8, 'jpeg'), 'image/jpeg');
    await refusedAt(() => server.api('PATCH', path, { token: guild.owner.token, body: { image: jpeg } }), 'image');
    expectError(await server.api('PATCH', `/guilds/${guild.id}/stickers/42`, { token: guild.owner.token, body: { name: 'ghost' } }), 404, 'UNKNOWN_STICKER');
    expect((await server.api('DELETE', path, { token: guild.owner.token })).status).toBe(204);
    const log = await server.api('GET', `/guilds/${guild.id}/audit-logs`, { token: guild.owner.token });
    const entries = log.body.audit_log_entries.filter((e: { target_id: string }) => e.target_id === body.id);
    expect(entries.map((e: { action_type: number }) => e.action_type)).toEqual([92, 91, 91, 90]);
    expect(entries[2]).toMatchObject({ reason: 'retagged', changes: [{ key: 'tags', old_value: 'wave,hello,hi', new_value: 'bye,later' }] });
    expect(entries[3].changes).toEqual([
      { key: 'name', new_value: 'wave' },
      { key: 'description', new_value: 'Waving hello' },
      { key: 'tags', new_value: 'wave,hello,hi' },
    ]);
  });

  it('deletes with 204, keeping the image unless purge=true', async () => {
    const guild = await createGuild(server);
    const [kept, purged] = [await created(guild), await created(guild)];
    expect((await server.api('DELETE', `/guilds/${guild.id}/stickers/${kept.id}`, { token: guild.owner.token })).status).toBe(204);
    expect((await served(server, kept.image_url)).status).toBe(200);
    expect((await server.api('DELETE', `/guilds/${guild.id}/stickers/${purged.id}?purge=true`, { token: guild.owner.token })).status).toBe(204);
    expect((await served(server, purged.image_url)).status).toBe(404);
    expectError(await server.api('GET', `/guilds/${guild.id}/stickers/${kept.id}`, { token: guild.owner.token }), 404, 'UNKNOWN_STICKER');
  });
});

describe('limits, gateway and packs', () => {
  it('takes 5 creates per 10 s per guild, then 429 with Retry-After; another guild is not limited', async () => {
    const [busy, other] = [await createGuild(server), await createGuild(server)];
    for (let i = 0; i < 5; i++) await created(busy, { name: `burst${i}` });
    const limited = await expectRefusedWithoutFiles(server, 'stickers', () => post(busy, sticker()), 429, 'RATE_LIMITED');
    expect(limited.headers).toMatchObject({ 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0' });
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(10);
    await created(other);
  });

  it('takes 3 bulk creates a minute and 10 lists a minute per guild, refused requests counted too', async () => {
    const guild = await createGuild(server);
    const bulk = () => server.api('POST', `/guilds/${guild.id}/stickers/bulk`, { token: guild.owner.token, body: { stickers: [] } });
    expect([await bulk(), await bulk(), await bulk()].map((r) => r.status)).toEqual([400, 400, 400]);
    expectError(await bulk(), 429, 'RATE_LIMITED');
    const list = () => server.api('GET', `/guilds/${guild.id}/stickers`, { token: guild.owner.token });
    for (let i = 0; i < 10; i++) expect((await list()).headers['x-ratelimit-remaining']).toBe(String(9 - i));
    expectError(await list(), 429, 'RATE_LIMITED');
  });

  it('sends GUILD_STICKERS_UPDATE with the guild’s stickers, and GUILD_CREATE carries them', async () => {
    const guild = await createGuild(server);
    const member = await newMember(server, guild);
    const session = await clients.session(member.token, (1 << 0) | (1 << 3));
    const body = await created(guild);
    const update = await session.dispatch('GUILD_STICKERS_UPDATE');
    expect(update.d).toEqual({ guild_id: guild.id, stickers: [expect.objectContaining({ id: body.id, name: 'wave', tags: ['wave', 'hello', 'hi'] })] });
    const later = await clients.session(member.token, 1 << 0);
    const guildCreate = await later.next((p) => p.t === 'GUILD_CREATE' && p.d.id === guild.id);
    expect(guildCreate.d.stickers).toEqual([expect.objectContaining({ id: body.id })]);
  });

  it('names the guild’s sticker pack on its pack invites', async () => {
    const guild = await createGuild(server, undefined, 'Packed');
    const invite = await server.api('POST', `/packs/${guild.id}/invites`, { token: guild.owner.token, body: {} });
    expect(invite.body).toMatchObject({ pack_id: guild.id, pack: { id: guild.id, name: 'Packed stickers', guild_id: guild.id } });
  });
});
