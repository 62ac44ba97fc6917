import { connect } from 'node:tls';
import sharp from 'sharp';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectGateway } from '../support/gateway.js';
import { type TestServer, registerUser, startTestServer, uniqueName, expectNothingAppendedSince } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ JSON_BODY_LIMIT: String(64 * 1024) });
});
afterAll(async () => {
  await server.close();
});

const png = () =>
  sharp({ create: { width: 8, height: 8, channels: 3, background: '#ff0000' } })
    .png()
    .toBuffer();

describe('users', () => {
  it('GET /users/@me answers the full user object, and 401 without a valid token', async () => {
    const user = await registerUser(server);
    const me = await server.api('GET', '/users/@me', { token: user.token });
    expect(me.status).toBe(200);
    expect(Object.keys(me.body)).toEqual(
      expect.arrayContaining(['id', 'username', 'discriminator', 'avatar', 'bot', 'system', 'mfa_enabled', 'locale', 'flags', 'premium_type', 'public_flags']),
    );
    expect((await server.api('GET', '/users/@me')).status).toBe(401);
    const bad = await server.api('GET', '/users/@me', { token: 'nope' });
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual({ code: 'UNAUTHORIZED', message: '401: Unauthorized' });
  });

  it('PATCH /users/@me changes the username (keeping the discriminator when free) and the avatar, served by the CDN', async () => {
    const user = await registerUser(server);
    const before = (await server.api('GET', '/users/@me', { token: user.token })).body;
    const name = uniqueName('renamed');
    const image = await png();
    const patched = await server.api('PATCH', '/users/@me', {
      token: user.token,
      body: { username: name, avatar: `data:image/png;base64,${image.toString('base64')}` },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.username).toBe(name);
    expect(patched.body.discriminator).toBe(before.discriminator);
    expect(patched.body.avatar).toMatch(/^[0-9a-f]{32}$/);
    expect((await server.api('GET', `/users/${user.id}`)).body.username).toBe(name);

    const cdn = await server.call('GET', `/avatars/${user.id}/${patched.body.avatar}.webp?size=16`);
    expect(cdn.status).toBe(200);
    expect(cdn.headers['content-type']).toBe('image/webp');
    const original = await server.call('GET', `/avatars/${user.id}/${patched.body.avatar}.png`);
    expect(original.headers['content-type']).toBe('image/png');
    expect((await server.call('GET', `/avatars/${user.id}/${'0'.repeat(32)}.png`)).status).toBe(404);

    // Logins follow the rename.
    expect((await server.api('POST', '/auth/login', { body: { login: name, password: 'correct horse battery' } })).status).toBe(200);
  });

  it('PATCH /users/@me refuses a bad payload with field paths, and appends nothing', async () => {
    const user = await registerUser(server);
    const head = await server.runtime.store.headPosition();
    const bad = await server.api('PATCH', '/users/@me', { token: user.token, body: { username: 'x', avatar: 'data:image/png;base64,AAAA' } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_FORM_BODY');
    expect(bad.body.errors).toEqual([{ path: 'username', message: 'Must be 2 or more in length.' }]);
    const user2 = await registerUser(server);
    const head2 = await server.runtime.store.headPosition();
    const image = await server.api('PATCH', '/users/@me', { token: user2.token, body: { avatar: 'data:image/png;base64,AAAA' } });
    expect(image.status).toBe(400);
    expect(image.body.errors[0].path).toBe('avatar');
    await expectNothingAppendedSince(server, head2);
    expect(head).not.toEqual(head2);
  });

  it('PATCH /users/@me is limited to 1 per 10 seconds, with Retry-After on the 429', async () => {
    const user = await registerUser(server);
    expect((await server.api('PATCH', '/users/@me', { token: user.token, body: {} })).status).toBe(200);
    const limited = await server.api('PATCH', '/users/@me', { token: user.token, body: {} });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body).toMatchObject({ code: 'RATE_LIMITED', retry_after: expect.any(Number) });
    expect(limited.headers['x-ratelimit-bucket']).toEqual(expect.any(String));
  });

  it('PATCH /users/@me sets the locale to one of the widely used API’s, shown to its user alone (USER_UPDATE too)', async () => {
    const user = await registerUser(server);
    const session = await connectGateway(server);
    try {
      await session.identify(user.token, 0);
      const patched = await server.api('PATCH', '/users/@me', { token: user.token, body: { locale: 'de' } });
      expect([patched.status, patched.body.locale]).toEqual([200, 'de']);
      expect((await server.api('GET', '/users/@me', { token: user.token })).body.locale).toBe('de');
      expect((await session.next((p) => p.t === 'USER_UPDATE')).d).toMatchObject({ id: user.id, locale: 'de' });
      // Another party sees the user without it.
      expect((await server.api('GET', `/users/${user.id}`)).body).not.toHaveProperty('locale');
    } finally {
      session.close();
    }

    // Each refusal by a user of its own: the route allows one change per 10 seconds, refused or not.
    for (const locale of ['xx', 'DE', 'en', '']) {
      const other = await registerUser(server);
      const head = await server.runtime.store.headPosition();
      const refused = await server.api('PATCH', '/users/@me', { token: other.token, body: { locale } });
      expect(refused.status).toBe(400);
      expect(refused.body.errors).toEqual([{ path: 'locale', message: expect.stringMatching(/^Must be one of: id, da, de, en-GB, .*, ko$/) }]);
      await expectNothingAppendedSince(server, head);
    }
    // The widely used API's form, which discord.py reads.
    const v10 = await server.call('PATCH', '/api/v10/users/@me', { token: (await registerUser(server)).token, body: { locale: 'xx' } });
    expect(v10.body.errors).toEqual({ locale: { _errors: [{ code: 'BASE_TYPE_CHOICES', message: expect.stringContaining('en-US') }] } });
  });

  it('GET /users/:id works without authentication and answers 404 UNKNOWN_USER', async () => {
    const user = await registerUser(server);
    const found = await server.api('GET', `/users/${user.id}`);
    expect(found.status).toBe(200);
    expect(found.body.email).toBeUndefined();
    const missing = await server.api('GET', '/users/123456789012345678');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('UNKNOWN_USER');
    // With a token: the anonymous bucket (5 a second by address) is spent by this file's requests without one when the
    // machine is fast enough to send them within a second.
    expect((await server.api('GET', '/users/not-a-snowflake', { token: user.token })).status).toBe(400);
  });

  it('GET /users/@me/relationships answers an array', async () => {
    const user = await registerUser(server);
    const response = await server.api('GET', '/users/@me/relationships', { token: user.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
  });
});

describe('HTTP surface', () => {
  it('answers under /api as the latest version too', async () => {
    const user = await registerUser(server);
    const latest = await server.call('GET', '/api/users/@me', { token: user.token });
    expect(latest.status).toBe(200);
    expect(latest.body.id).toBe(user.id);
  });

  it('answers unknown routes, malformed JSON and oversized bodies in the error format', async () => {
    const unknown = await server.api('GET', '/nowhere');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toEqual(expect.any(String));
    const malformed = await server.api('POST', '/auth/login', { rawBody: '{"login":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('INVALID_JSON');
    const large = await server.api('POST', '/auth/login', {
      rawBody: JSON.stringify({ login: 'x'.repeat(100_000), password: 'y' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(large.status).toBe(413);
    expect(large.body.code).toBe('REQUEST_ENTITY_TOO_LARGE');
  });

  it('reports readiness on /healthz', async () => {
    const health = await server.call('GET', '/healthz');
    expect(health.status).toBe(200);
  });

  it('refuses TLS older than 1.2', async () => {
    const port = Number(new URL(server.origin).port);
    const outcome = await new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, maxVersion: 'TLSv1.1', minVersion: 'TLSv1', rejectUnauthorized: false }, () => resolve('connected'));
      socket.on('error', () => resolve('refused'));
    });
    expect(outcome).toBe('refused');
  });

  it('serves nothing over plain HTTP on the TLS port: the request is told, in JSON, to use https', async () => {
    const response = await request(server.origin.replace('https:', 'http:') + '/api/v1/users/@me');
    expect(response.statusCode).toBe(400);
    expect(await response.body.json()).toEqual({ code: 'PLAIN_HTTP_ON_TLS_PORT', message: expect.stringContaining('https://') });
  });
});
