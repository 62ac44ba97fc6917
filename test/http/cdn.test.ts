// The CDN's paths and image parameters through the real HTTPS surface, each answer decoded with sharp: the shipped
// default avatars, guild banners, splashes and discovery (embed) splashes, guild member avatars and banners, animated
// avatars; `size` from the spec's list only and proportional, `quality` low < lossless for WebP and JPEG, `animated`;
// the attachment parameters; and on every answer Cache-Control with a max-age, an ETag that a revalidation turns
// into 304, and the Content-Type of what is served.
import { describe, expect, it } from 'vitest';
import { fileServer } from '../support/server.js';
import { animatedImage, dataUri, randomImage, served, stillImage } from './expressionSupport.js';
import { createGuild, expectError, newMember } from './guildSupport.js';

const server = await fileServer();
const guild = await createGuild(server);
const owner = guild.owner;

/** PATCHes the guild as its owner; answers the guild object. */
async function patchGuild(body: object) {
  const response = await server.api('PATCH', `/guilds/${guild.id}`, { token: owner.token, body });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

function expectCached(response: { headers: Record<string, unknown> }, maxAge = 86400) {
  expect(String(response.headers['cache-control'])).toMatch(new RegExp(`max-age=${maxAge}\\b`));
  expect(String(response.headers.etag)).toMatch(/^"[\w-]+"$/);
}

describe('default avatars', () => {
  it('serves the six shipped PNGs at /embed/avatars/{0..5}.png and /avatars/{0..5}.png, and 404 past them', async () => {
    for (const prefix of ['/embed/avatars', '/avatars']) {
      const etags = new Set<string>();
      for (let index = 0; index < 6; index++) {
        const avatar = await served(server, `${prefix}/${index}.png`);
        expect(avatar.status).toBe(200);
        expect(avatar.headers['content-type']).toBe('image/png');
        expect(avatar.image).toEqual({ format: 'png', width: 256, height: 256, pages: 1 });
        expectCached(avatar);
        etags.add(String(avatar.headers.etag));
      }
      // Six different pictures.
      expect(etags.size).toBe(6);
      expect((await served(server, `${prefix}/6.png`)).status).toBe(404);
      expect((await served(server, `${prefix}/1.webp`)).status).toBe(400);
    }
    expect((await served(server, '/embed/avatars/2.png?size=64')).image).toEqual({ format: 'png', width: 64, height: 64, pages: 1 });
  });
});

describe('guild images', () => {
  it('takes banner, splash and discovery_splash data URIs on PATCH, answers their hashes and serves each at its path', async () => {
    const [banner, splash, discovery] = await Promise.all([stillImage(320, 160, 'png'), stillImage(200, 100, 'jpeg'), stillImage(100, 50, 'webp')]);
    const updated = await patchGuild({ banner: dataUri(banner), splash: dataUri(splash, 'image/jpeg'), discovery_splash: dataUri(discovery, 'image/webp') });
    expect(updated.banner).toMatch(/^[0-9a-f]{32}$/);
    expect(updated.splash).toMatch(/^[0-9a-f]{32}$/);
    expect(updated.discovery_splash).toMatch(/^[0-9a-f]{32}$/);
    expect((await served(server, `/banners/${guild.id}/${updated.banner}.png?size=64`)).image).toEqual({ format: 'png', width: 64, height: 32, pages: 1 });
    expect((await served(server, `/splashes/${guild.id}/${updated.splash}.webp?size=100`)).image).toEqual({ format: 'webp', width: 100, height: 50, pages: 1 });
    for (const path of ['discovery-splashes', 'embed-splashes']) {
      expect((await served(server, `/${path}/${guild.id}/${updated.discovery_splash}.jpg?size=48`)).image).toEqual({
        format: 'jpeg',
        width: 48,
        height: 24,
        pages: 1,
      });
    }
    // The embed splash is a still image: no GIF to ask for, none to upload.
    expectError(await server.call('GET', `/embed-splashes/${guild.id}/${updated.discovery_splash}.gif`), 400, 'INVALID_FORM_BODY');
    const gif = await server.api('PATCH', `/guilds/${guild.id}`, {
      token: owner.token,
      body: { discovery_splash: dataUri(await animatedImage(16, 16), 'image/gif') },
    });
    expectError(gif, 400, 'INVALID_FORM_BODY');
    expect(gif.body.errors).toEqual([{ path: 'discovery_splash', message: expect.stringContaining('gif') }]);
    expect((await served(server, `/banners/${guild.id}/${'0'.repeat(32)}.png`)).status).toBe(404);
    // Null removes one; the others stay.
    const removed = await patchGuild({ splash: null });
    expect(removed).toMatchObject({ splash: null, banner: updated.banner, discovery_splash: updated.discovery_splash });
  });

  it('keeps an animated banner animated as GIF, and as WebP when asked', async () => {
    const updated = await patchGuild({ banner: dataUri(await animatedImage(64, 16, 4), 'image/gif') });
    expect(updated.banner).toMatch(/^a_[0-9a-f]{32}$/);
    expect((await served(server, `/banners/${guild.id}/${updated.banner}.gif?size=32`)).image).toEqual({ format: 'gif', width: 32, height: 8, pages: 4 });
    expect((await served(server, `/banners/${guild.id}/${updated.banner}.webp?size=32&animated=true`)).image).toEqual({
      format: 'webp',
      width: 32,
      height: 8,
      pages: 4,
    });
    expect((await served(server, `/banners/${guild.id}/${updated.banner}.webp?size=32`)).image).toEqual({ format: 'webp', width: 32, height: 8, pages: 1 });
  });
});

describe('avatars', () => {
  it('keeps an animated user avatar’s frames: uploaded as GIF, served as GIF', async () => {
    const patched = await server.api('PATCH', '/users/@me', { token: owner.token, body: { avatar: dataUri(await animatedImage(40, 40, 5), 'image/gif') } });
    expect(patched.body.avatar).toMatch(/^a_[0-9a-f]{32}$/);
    expect((await served(server, `/avatars/${owner.id}/${patched.body.avatar}.gif?size=32`)).image).toEqual({ format: 'gif', width: 32, height: 32, pages: 5 });
  });

  it('takes a member’s own guild avatar and banner on PATCH /guilds/:id/members/@me and serves them; nobody else sets them', async () => {
    const member = await newMember(server, guild);
    const avatar = dataUri(await animatedImage(32, 32, 2), 'image/gif');
    const banner = dataUri(await stillImage(60, 20, 'png'));
    const patched = await server.api('PATCH', `/guilds/${guild.id}/members/@me`, { token: member.token, body: { avatar, banner, nick: 'Pictured' } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({
      nick: 'Pictured',
      avatar: expect.stringMatching(/^a_[0-9a-f]{32}$/),
      banner: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    const base = `/guilds/${guild.id}/users/${member.id}`;
    expect((await served(server, `${base}/avatars/${patched.body.avatar}.gif`)).image).toEqual({ format: 'gif', width: 128, height: 128, pages: 2 });
    expect((await served(server, `${base}/avatars/${patched.body.avatar}.png?size=16`)).image).toEqual({ format: 'png', width: 16, height: 16, pages: 1 });
    expect((await served(server, `${base}/banners/${patched.body.banner}.webp?size=60`)).image).toEqual({ format: 'webp', width: 60, height: 20, pages: 1 });
    const fetched = await server.api('GET', `/guilds/${guild.id}/members/${member.id}`, { token: owner.token });
    expect(fetched.body).toMatchObject({ avatar: patched.body.avatar, banner: patched.body.banner });
    const refused = await server.api('PATCH', `/guilds/${guild.id}/members/${member.id}`, { token: owner.token, body: { avatar } });
    expectError(refused, 403, 'MISSING_PERMISSIONS');
    const cleared = await server.api('PATCH', `/guilds/${guild.id}/members/@me`, { token: member.token, body: { avatar: null } });
    expect(cleared.body).toMatchObject({ avatar: null, banner: patched.body.banner });
  });
});

describe('image parameters', () => {
  it('takes only the spec’s sizes (others 400) and resizes in proportion, the size being the width', async () => {
    const updated = await patchGuild({ icon: dataUri(await stillImage(300, 100, 'png')) });
    const icon = `/icons/${guild.id}/${updated.icon}`;
    for (const size of [17, 0, 5000, -16]) expectError(await server.call('GET', `${icon}.png?size=${size}`), 400, 'INVALID_FORM_BODY');
    expect((await served(server, `${icon}.png?size=600`)).image).toEqual({ format: 'png', width: 600, height: 200, pages: 1 });
    expect((await served(server, `${icon}.png`)).image).toEqual({ format: 'png', width: 128, height: 43, pages: 1 });
    expectError(await server.call('GET', `${icon}.png?quality=best`), 400, 'INVALID_FORM_BODY');
  });

  it('applies quality to WebP and JPEG: low is smaller than high, high smaller than lossless', async () => {
    const updated = await patchGuild({ icon: dataUri(await randomImage(256, 256)) });
    for (const ext of ['webp', 'jpeg']) {
      const bytes = async (quality: string) => (await served(server, `/icons/${guild.id}/${updated.icon}.${ext}?size=256&quality=${quality}`)).data.length;
      const [low, high, lossless] = [await bytes('low'), await bytes('high'), await bytes('lossless')];
      expect(low, ext).toBeLessThan(high);
      expect(high, ext).toBeLessThan(lossless);
    }
  });

  it('answers with Cache-Control, an ETag and the Content-Type, and 304 to a matching If-None-Match', async () => {
    const updated = await patchGuild({ icon: dataUri(await stillImage(64, 64, 'png')) });
    const path = `/icons/${guild.id}/${updated.icon}.webp?size=32`;
    const first = await served(server, path);
    expect(first.headers['content-type']).toBe('image/webp');
    expectCached(first);
    const again = await served(server, path, { 'if-none-match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.data.length).toBe(0);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect((await served(server, path, { 'if-none-match': '"something-else"' })).status).toBe(200);
    // Another rendering is another entity.
    expect((await served(server, `/icons/${guild.id}/${updated.icon}.webp?size=64`)).headers.etag).not.toBe(first.headers.etag);
  });
});

describe('attachments', () => {
  /** Sends files as attachments; answers their CDN paths. */
  async function attach(...files: { name: string; data: Buffer; type: string }[]): Promise<string[]> {
    const form = new FormData();
    form.append('payload_json', JSON.stringify({ content: 'files' }));
    files.forEach((file, i) => form.append(`files[${i}]`, new Blob([file.data], { type: file.type }), file.name));
    const encoded = new Response(form);
    const response = await server.api('POST', `/channels/${guild.channelId}/messages`, {
      token: owner.token,
      rawBody: Buffer.from(await encoded.arrayBuffer()),
      headers: { 'content-type': encoded.headers.get('content-type')! },
    });
    expect(response.status, response.text).toBe(200);
    return response.body.attachments.map((a: { url: string }) => new URL(a.url).pathname);
  }

  it('serves the original bytes without parameters, converts and resizes with them, keeping the aspect ratio', async () => {
    const photo = await stillImage(400, 200, 'jpeg');
    const [path] = await attach({ name: 'photo.jpg', data: photo, type: 'image/jpeg' });
    const original = await served(server, path);
    expect(original.data.equals(photo)).toBe(true);
    expect(original.headers['content-type']).toBe('image/jpeg');
    expectCached(original);
    expect((await served(server, `${path}?width=100`)).image).toEqual({ format: 'jpeg', width: 100, height: 50, pages: 1 });
    expect((await served(server, `${path}?height=50&format=png`)).image).toEqual({ format: 'png', width: 100, height: 50, pages: 1 });
    expect((await served(server, `${path}?width=40&height=40&format=webp`)).image).toEqual({ format: 'webp', width: 40, height: 20, pages: 1 });
    expect((await served(server, `${path}?format=jpg&quality=low`)).image).toMatchObject({ format: 'jpeg', width: 400 });
    for (const query of ['width=0', 'height=4097', 'format=bmp', 'quality=medium'])
      expectError(await server.call('GET', `${path}?${query}`), 400, 'INVALID_FORM_BODY');
  });

  it('keeps GIF and WebP animation only when animated=true', async () => {
    const [path] = await attach({ name: 'moving.gif', data: await animatedImage(40, 20, 3), type: 'image/gif' });
    expect((await served(server, path)).image).toEqual({ format: 'gif', width: 40, height: 20, pages: 3 });
    expect((await served(server, `${path}?width=20&animated=true`)).image).toEqual({ format: 'gif', width: 20, height: 10, pages: 3 });
    expect((await served(server, `${path}?width=20`)).image).toEqual({ format: 'gif', width: 20, height: 10, pages: 1 });
    expect((await served(server, `${path}?format=webp&animated=true`)).image).toEqual({ format: 'webp', width: 40, height: 20, pages: 3 });
    expect((await served(server, `${path}?format=png&animated=true`)).image).toEqual({ format: 'png', width: 40, height: 20, pages: 1 });
  });
});
