// OAuth2 over HTTPS: applications as clients (redirect URIs, the client secret shown once and reset), the token
// endpoints (code exchange, refresh with rotation, revocation, RFC 6749 §5.2 refusals that append nothing), what an
// access token may do (its scopes, and nothing else), guilds.join through PUT /guilds/:id/members/:user_id, expiry,
// and no token or secret anywhere on disk in clear.
import { readFile, readdir } from 'node:fs/promises';
import { join as joinPath } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectGateway } from '../support/gateway.js';
import { type TestServer, fileServer, registerUser, expectNothingAppendedSince } from '../support/server.js';
import { createGuild, expectRefusedWithoutEvents, grantRole, join } from './guildSupport.js';
import { PASSWORD, REDIRECT_URI, type TestClient, addBotUser, authorizedCode, basic, grantedTokens, registerClient, tokenRequest } from './oauth2Support.js';

const server = await fileServer();

const exchange = (client: TestClient, code: string, over: Record<string, string> = {}) =>
  tokenRequest(server, '/oauth2/token', {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    client_id: client.id,
    client_secret: client.secret,
    ...over,
  });
const refresh = (client: TestClient, refreshToken: string, over: Record<string, string> = {}) =>
  tokenRequest(server, '/oauth2/token', {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: client.id,
    client_secret: client.secret,
    ...over,
  });
const revoke = (client: TestClient, token: string) =>
  tokenRequest(server, '/oauth2/token/revoke', { token, client_id: client.id, client_secret: client.secret });

/** The answer is an RFC 6749 §5.2 refusal and nothing was appended. */
async function expectOAuth2Refusal(request: () => Promise<{ status: number; body: any; headers: Record<string, unknown> }>, status: number, error: string) {
  const before = await server.runtime.store.headPosition();
  const answer = await request();
  expect({ status: answer.status, error: answer.body?.error }).toEqual({ status, error });
  expect(answer.body.error_description).toEqual(expect.any(String));
  expect(answer.headers['cache-control']).toBe('no-store');
  await expectNothingAppendedSince(server, before);
  return answer;
}

describe('applications as OAuth2 clients', () => {
  it('registers redirect URIs at creation, shows them, changes them with PATCH /applications/:id, owner only', async () => {
    const client = await registerClient(server, [REDIRECT_URI, 'http://127.0.0.1:8765/callback']);
    const shown = await server.api('GET', `/applications/${client.id}`, { token: client.owner.token });
    expect(shown.body).toMatchObject({ id: client.id, client_id: client.id, redirect_uris: [REDIRECT_URI, 'http://127.0.0.1:8765/callback'] });
    expect(shown.body.client_secret).toBeUndefined();

    const patched = await server.api('PATCH', `/applications/${client.id}`, {
      token: client.owner.token,
      body: { redirect_uris: ['http://localhost:3000/cb'], description: 'd' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ redirect_uris: ['http://localhost:3000/cb'], description: 'd' });

    const stranger = await registerUser(server);
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `/applications/${client.id}`, { token: stranger.token, body: { redirect_uris: [] } }),
      403,
      'MISSING_ACCESS',
    );
  });

  it('refuses redirect URIs that are not https (http only on loopback), have a fragment, or are more than 10', async () => {
    const owner = await registerUser(server);
    const create = (redirect_uris: unknown) => () => server.api('POST', '/applications', { token: owner.token, body: { name: 'app', redirect_uris } });
    const refused = await server.api('POST', '/applications', {
      token: owner.token,
      body: { name: 'app', redirect_uris: ['http://client.example/cb', 'https://ok.example/#frag'] },
    });
    expect(refused.body.errors).toEqual([
      { path: 'redirect_uris.0', message: 'Must be an https URL (http only on localhost, 127.0.0.1 or [::1])' },
      { path: 'redirect_uris.1', message: 'A redirect URI has no fragment' },
    ]);
    await expectRefusedWithoutEvents(server, create(['not a url']), 400, 'INVALID_FORM_BODY');
    await expectRefusedWithoutEvents(server, create(Array.from({ length: 11 }, (_, i) => `https://c.example/${i}`)), 400, 'INVALID_FORM_BODY');
    await expectRefusedWithoutEvents(server, create('https://c.example/'), 400, 'INVALID_FORM_BODY');
  });

  it('shows the client secret once; a reset shows a new one and the old one stops authenticating', async () => {
    const client = await registerClient(server);
    expect(client.secret).toMatch(/^[\w-]{32}$/);
    const stranger = await registerUser(server);
    await expectRefusedWithoutEvents(server, () => server.api('POST', `/applications/${client.id}/reset`, { token: stranger.token }), 403, 'MISSING_ACCESS');
    const reset = await server.api('POST', `/applications/${client.id}/reset`, { token: client.owner.token });
    expect(reset.status).toBe(200);
    expect(reset.body.client_secret).toMatch(/^[\w-]{32}$/);
    expect(reset.body.client_secret).not.toBe(client.secret);

    const code = await authorizedCode(server, client, await registerUser(server));
    await expectOAuth2Refusal(() => exchange(client, code), 401, 'invalid_client');
    expect((await exchange({ ...client, secret: reset.body.client_secret }, code)).status).toBe(200);
  });
});

describe('POST /oauth2/token with grant_type=authorization_code', () => {
  it('answers the spec’s token response, never cached, for a code the person gave this client', async () => {
    const client = await registerClient(server);
    const user = await registerUser(server);
    const code = await authorizedCode(server, client, user, { scope: 'identify email' });
    const answer = await exchange(client, code);
    expect(answer.status).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 604800,
      refresh_token: expect.any(String),
      scope: 'identify email',
    });
    expect(answer.body.access_token).not.toBe(answer.body.refresh_token);
    expect((await server.api('GET', '/users/@me', { token: answer.body.access_token })).body).toMatchObject({ id: user.id, username: user.username });
  });

  it('authenticates the client by HTTP Basic too (RFC 6749 §2.3.1), but not both ways at once', async () => {
    const client = await registerClient(server);
    const code = await authorizedCode(server, client, await registerUser(server));
    const fields = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI };
    await expectOAuth2Refusal(
      () => tokenRequest(server, '/oauth2/token', { ...fields, client_secret: client.secret }, basic(client.id, client.secret)),
      400,
      'invalid_request',
    );
    const wrong = await expectOAuth2Refusal(() => tokenRequest(server, '/oauth2/token', fields, basic(client.id, 'wrong')), 401, 'invalid_client');
    expect(wrong.headers['www-authenticate']).toMatch(/^Basic/);
    expect((await tokenRequest(server, '/oauth2/token', fields, basic(client.id, client.secret))).status).toBe(200);
  });

  it('takes a code once: a second exchange is invalid_grant and revokes the tokens the first gave', async () => {
    const client = await registerClient(server);
    const code = await authorizedCode(server, client, await registerUser(server));
    const first = await exchange(client, code);
    expect(first.status).toBe(200);
    const again = await exchange(client, code);
    expect({ status: again.status, error: again.body.error }).toEqual({ status: 400, error: 'invalid_grant' });
    expect((await server.api('GET', '/users/@me', { token: first.body.access_token })).status).toBe(401);
    expect((await refresh(client, first.body.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('binds the code to its client and redirect_uri; a guessed or malformed code is invalid_grant', async () => {
    const client = await registerClient(server, [REDIRECT_URI, 'https://client.example/other']);
    const other = await registerClient(server);
    const code = await authorizedCode(server, client, await registerUser(server));
    await expectOAuth2Refusal(() => exchange(client, code, { redirect_uri: 'https://client.example/other' }), 400, 'invalid_grant');
    await expectOAuth2Refusal(() => exchange(other, code), 400, 'invalid_grant');
    await expectOAuth2Refusal(() => exchange(client, `${code.split('.')[0]}.guessed`), 400, 'invalid_grant');
    await expectOAuth2Refusal(() => exchange(client, 'garbage'), 400, 'invalid_grant');
    expect((await exchange(client, code)).status).toBe(200);
  });

  it('refuses in RFC 6749 §5.2 form, appending nothing: missing fields, unknown grant types, bad clients, JSON', async () => {
    const client = await registerClient(server);
    const auth = { client_id: client.id, client_secret: client.secret };
    await expectOAuth2Refusal(() => tokenRequest(server, '/oauth2/token', auth), 400, 'invalid_request');
    await expectOAuth2Refusal(
      () => tokenRequest(server, '/oauth2/token', { ...auth, grant_type: 'authorization_code', redirect_uri: REDIRECT_URI }),
      400,
      'invalid_request',
    );
    await expectOAuth2Refusal(() => tokenRequest(server, '/oauth2/token', { ...auth, grant_type: 'authorization_code', code: 'x' }), 400, 'invalid_request');
    await expectOAuth2Refusal(() => tokenRequest(server, '/oauth2/token', { ...auth, grant_type: 'password' }), 400, 'unsupported_grant_type');
    await expectOAuth2Refusal(() => tokenRequest(server, '/oauth2/token', { grant_type: 'refresh_token', refresh_token: 'x' }), 401, 'invalid_client');
    await expectOAuth2Refusal(
      () => tokenRequest(server, '/oauth2/token', { ...auth, client_id: 'not-an-id', grant_type: 'refresh_token' }),
      401,
      'invalid_client',
    );
    await expectOAuth2Refusal(() => tokenRequest(server, '/oauth2/token', { ...auth, client_id: '1', grant_type: 'refresh_token' }), 401, 'invalid_client');
    await expectOAuth2Refusal(
      () => tokenRequest(server, '/oauth2/token', { grant_type: 'refresh_token' }, { authorization: 'Bearer abc' }),
      401,
      'invalid_client',
    );
    await expectOAuth2Refusal(
      () => server.api('POST', '/oauth2/token', { body: { ...auth, grant_type: 'refresh_token', refresh_token: 'x' } }),
      400,
      'invalid_request',
    );
  });
});

describe('POST /oauth2/token with grant_type=refresh_token', () => {
  it('rotates: a new pair, the old refresh and access tokens stop working', async () => {
    const client = await registerClient(server);
    const user = await registerUser(server);
    const first = await grantedTokens(server, client, user, 'identify guilds');
    const second = await refresh(client, first.refresh_token);
    expect(second.status).toBe(200);
    expect(second.headers['cache-control']).toBe('no-store');
    expect(second.body).toMatchObject({ token_type: 'Bearer', expires_in: 604800, scope: 'identify guilds' });
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect((await server.api('GET', '/users/@me', { token: second.body.access_token })).body.id).toBe(user.id);
    expect((await server.api('GET', '/users/@me', { token: first.access_token })).status).toBe(401);
    await expectOAuth2Refusal(() => refresh(client, first.refresh_token), 400, 'invalid_grant');
    expect((await refresh(client, second.body.refresh_token)).status).toBe(200);
  });

  it('narrows a refreshed token to fewer scopes; more than granted is invalid_scope; another client’s token is invalid_grant', async () => {
    const client = await registerClient(server);
    const other = await registerClient(server);
    const first = await grantedTokens(server, client, await registerUser(server), 'identify guilds');
    await expectOAuth2Refusal(() => refresh(client, first.refresh_token, { scope: 'identify email' }), 400, 'invalid_scope');
    await expectOAuth2Refusal(() => refresh(client, first.refresh_token, { scope: 'identify nonsense' }), 400, 'invalid_scope');
    await expectOAuth2Refusal(() => refresh(other, first.refresh_token), 400, 'invalid_grant');
    const narrowed = await refresh(client, first.refresh_token, { scope: 'identify' });
    expect(narrowed.body.scope).toBe('identify');
    expect((await server.api('GET', '/users/@me/guilds', { token: narrowed.body.access_token })).body.code).toBe('MISSING_OAUTH2_SCOPE');
  });
});

describe('POST /oauth2/token/revoke', () => {
  it('revokes the pair by the access token or by the refresh token: 401 and invalid_grant after', async () => {
    const client = await registerClient(server);
    const user = await registerUser(server);
    for (const which of ['access_token', 'refresh_token'] as const) {
      const tokens = await grantedTokens(server, client, user);
      const answer = await revoke(client, tokens[which]);
      expect(answer.status).toBe(200);
      expect(answer.headers['cache-control']).toBe('no-store');
      expect((await server.api('GET', '/users/@me', { token: tokens.access_token })).status).toBe(401);
      expect((await refresh(client, tokens.refresh_token)).body.error).toBe('invalid_grant');
    }
  });

  it('refuses a revoked or refreshed access token on the very next request, though it authenticated just before', async () => {
    const client = await registerClient(server);
    const user = await registerUser(server);
    const revoked = await grantedTokens(server, client, user);
    expect((await server.api('GET', '/users/@me', { token: revoked.access_token })).status).toBe(200);
    await revoke(client, revoked.access_token);
    expect((await server.api('GET', '/users/@me', { token: revoked.access_token })).status).toBe(401);

    const rotated = await grantedTokens(server, client, user);
    expect((await server.api('GET', '/users/@me', { token: rotated.access_token })).status).toBe(200);
    const next = (await refresh(client, rotated.refresh_token)).body;
    expect((await server.api('GET', '/users/@me', { token: rotated.access_token })).status).toBe(401);
    expect((await server.api('GET', '/users/@me', { token: next.access_token })).status).toBe(200);
  });

  it('answers 200 for a token that is unknown or already revoked (RFC 7009 §2.2), and refuses an unauthenticated client', async () => {
    const client = await registerClient(server);
    const tokens = await grantedTokens(server, client, await registerUser(server));
    await revoke(client, tokens.refresh_token);
    const before = await server.runtime.store.headPosition();
    expect((await revoke(client, tokens.refresh_token)).status).toBe(200);
    expect((await revoke(client, 'never-issued')).status).toBe(200);
    await expectNothingAppendedSince(server, before);
    await expectOAuth2Refusal(
      () => tokenRequest(server, '/oauth2/token/revoke', { token: tokens.access_token, client_id: client.id, client_secret: 'wrong' }),
      401,
      'invalid_client',
    );
    await expectOAuth2Refusal(
      () => tokenRequest(server, '/oauth2/token/revoke', { client_id: client.id, client_secret: client.secret }),
      400,
      'invalid_request',
    );
  });

  it('refuses to revoke another client’s token, which keeps working', async () => {
    const client = await registerClient(server);
    const other = await registerClient(server);
    const tokens = await grantedTokens(server, client, await registerUser(server));
    await expectOAuth2Refusal(() => revoke(other, tokens.access_token), 400, 'invalid_grant');
    expect((await server.api('GET', '/users/@me', { token: tokens.access_token })).status).toBe(200);
  });
});

describe('what an access token may do', () => {
  async function personInGuild() {
    const user = await registerUser(server);
    const guild = await createGuild(server);
    await join(server, guild, user);
    await server.api('POST', `/channels/${guild.channelId}/messages`, { token: guild.owner.token, body: { content: 'hello' } });
    return { user, guild };
  }

  it('identify reads GET /users/@me without the email; email adds it', async () => {
    const client = await registerClient(server);
    const owner = await registerUser(server);
    const email = `${owner.username}@example.com`;
    const user = (await server.api('POST', '/auth/register', { body: { username: `${owner.username}m`, password: PASSWORD, email } })).body;
    const person = { id: user.user_id, token: user.token, username: `${owner.username}m` };
    const identify = await grantedTokens(server, client, person, 'identify');
    const me = await server.api('GET', '/users/@me', { token: identify.access_token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(person.id);
    expect(me.body).not.toHaveProperty('email');
    const withEmail = await grantedTokens(server, client, person, 'identify email');
    expect((await server.api('GET', '/users/@me', { token: withEmail.access_token })).body).toMatchObject({ id: person.id, email });
    // The session itself sees everything, as before.
    expect((await server.api('GET', '/users/@me', { token: person.token })).body.email).toBe(email);
  });

  it('guilds lists the person’s guilds; messages.read reads their channels; each route needs its scope', async () => {
    const client = await registerClient(server);
    const { user, guild } = await personInGuild();
    const both = await grantedTokens(server, client, user, 'guilds messages.read');
    const guilds = await server.api('GET', '/users/@me/guilds', { token: both.access_token });
    expect(guilds.status).toBe(200);
    expect(guilds.body.map((g: { id: string }) => g.id)).toEqual([guild.id]);
    const messages = await server.api('GET', `/channels/${guild.channelId}/messages`, { token: both.access_token });
    expect(messages.status).toBe(200);
    expect(messages.body[0]).toMatchObject({ content: 'hello' });
    expect((await server.api('GET', '/users/@me', { token: both.access_token })).body.code).toBe('MISSING_OAUTH2_SCOPE');

    const identify = await grantedTokens(server, client, user, 'identify');
    await expectRefusedWithoutEvents(server, () => server.api('GET', '/users/@me/guilds', { token: identify.access_token }), 403, 'MISSING_OAUTH2_SCOPE');
    await expectRefusedWithoutEvents(
      server,
      () => server.api('GET', `/channels/${guild.channelId}/messages`, { token: identify.access_token }),
      403,
      'MISSING_OAUTH2_SCOPE',
    );
  });

  it('can do nothing else: no guild creation, no sends, no leaving, no edits, no applications, appending nothing', async () => {
    const client = await registerClient(server);
    const { user, guild } = await personInGuild();
    const tokens = await grantedTokens(server, client, user, 'identify email guilds guilds.join messages.read connections');
    const as = { token: tokens.access_token };
    const refused = (method: string, path: string, body?: unknown) => () => server.api(method, path, { ...as, body });
    await expectRefusedWithoutEvents(server, refused('POST', '/guilds', { name: 'mine' }), 403, 'OAUTH2_ROUTE_NOT_ALLOWED');
    await expectRefusedWithoutEvents(server, refused('POST', `/channels/${guild.channelId}/messages`, { content: 'hi' }), 403, 'OAUTH2_ROUTE_NOT_ALLOWED');
    await expectRefusedWithoutEvents(server, refused('DELETE', `/users/@me/guilds/${guild.id}`), 403, 'OAUTH2_ROUTE_NOT_ALLOWED');
    await expectRefusedWithoutEvents(server, refused('PATCH', '/users/@me', { username: 'renamed' }), 403, 'OAUTH2_ROUTE_NOT_ALLOWED');
    await expectRefusedWithoutEvents(server, refused('POST', '/applications', { name: 'app' }), 403, 'OAUTH2_ROUTE_NOT_ALLOWED');
    await expectRefusedWithoutEvents(server, refused('GET', `/guilds/${guild.id}`), 403, 'OAUTH2_ROUTE_NOT_ALLOWED');
    await expectRefusedWithoutEvents(server, refused('POST', `/invites/${guild.code}`), 403, 'OAUTH2_ROUTE_NOT_ALLOWED');
    // Under /api (latest) too, not only /api/v1.
    const bare = await server.call('POST', '/api/guilds', { ...as, body: { name: 'mine' } });
    expect(bare.status).toBe(403);
    // "Bot" with an access token, or the token on the gateway, is no authentication at all.
    expect((await server.api('GET', '/users/@me', { token: tokens.access_token, scheme: 'Bot' })).status).toBe(401);
    const gateway = await connectGateway(server);
    gateway.send({ op: 2, d: { token: tokens.access_token, intents: 1, properties: {} } });
    expect((await gateway.closed).code).toBe(4004);
  });

  it('leaves session and bot tokens as they were', async () => {
    const { user, guild } = await personInGuild();
    expect((await server.api('POST', `/channels/${guild.channelId}/messages`, { token: user.token, body: { content: 'still me' } })).status).toBe(200);
    const client = await registerClient(server);
    const bot = await addBotUser(server, client);
    await join(server, guild, bot, 'Bot');
    expect((await server.api('POST', `/channels/${guild.channelId}/messages`, { token: bot.token, scheme: 'Bot', body: { content: 'bot here' } })).status).toBe(
      200,
    );
  });
});

describe('PUT /guilds/:guild_id/members/:user_id with guilds.join', () => {
  async function setting() {
    const client = await registerClient(server);
    const bot = await addBotUser(server, client);
    const guild = await createGuild(server);
    await join(server, guild, bot, 'Bot');
    const user = await registerUser(server);
    return { client, bot, guild, user };
  }
  const put = (guildId: string, userId: string, botToken: string, body: unknown) => () =>
    server.api('PUT', `/guilds/${guildId}/members/${userId}`, { token: botToken, scheme: 'Bot', body });

  it('adds the person with their access token, by the application’s bot: 201 and the member, then 204', async () => {
    const { client, bot, guild, user } = await setting();
    const tokens = await grantedTokens(server, client, user, 'identify guilds.join');
    const added = await put(guild.id, user.id, bot.token, { access_token: tokens.access_token })();
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ user: { id: user.id }, roles: [] });
    expect((await server.api('GET', '/users/@me/guilds', { token: user.token })).body.map((g: { id: string }) => g.id)).toContain(guild.id);
    const before = await server.runtime.store.headPosition();
    expect((await put(guild.id, user.id, bot.token, { access_token: tokens.access_token })()).status).toBe(204);
    await expectNothingAppendedSince(server, before);
  });

  it('sets a nick and roles the bot may give, or refuses the whole join when it may not', async () => {
    const { client, bot, guild, user } = await setting();
    const tokens = await grantedTokens(server, client, user, 'guilds.join');
    await expectRefusedWithoutEvents(
      server,
      put(guild.id, user.id, bot.token, { access_token: tokens.access_token, nick: 'Newbie' }),
      403,
      'MISSING_PERMISSIONS',
    );
    // MANAGE_ROLES and MANAGE_NICKNAMES, on a role that "newcomer" (a new role enters at the bottom) stays below.
    await grantRole(server, guild, bot, (1n << 28n) | (1n << 27n), 'helper');
    const role = await server.api('POST', `/guilds/${guild.id}/roles`, { token: guild.owner.token, body: { name: 'newcomer' } });
    const added = await put(guild.id, user.id, bot.token, { access_token: tokens.access_token, nick: 'Newbie', roles: [role.body.id] })();
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ nick: 'Newbie', roles: [role.body.id] });
  });

  it('refuses without appending: a token without guilds.join, another person’s, another application’s, a session caller', async () => {
    const { client, bot, guild, user } = await setting();
    const identify = await grantedTokens(server, client, user, 'identify');
    await expectRefusedWithoutEvents(server, put(guild.id, user.id, bot.token, { access_token: identify.access_token }), 403, 'INVALID_OAUTH2_ACCESS_TOKEN');
    const other = await registerUser(server);
    const joinable = await grantedTokens(server, client, user, 'guilds.join');
    await expectRefusedWithoutEvents(server, put(guild.id, other.id, bot.token, { access_token: joinable.access_token }), 403, 'INVALID_OAUTH2_ACCESS_TOKEN');
    const elsewhere = await registerClient(server);
    const foreign = await grantedTokens(server, elsewhere, user, 'guilds.join');
    await expectRefusedWithoutEvents(server, put(guild.id, user.id, bot.token, { access_token: foreign.access_token }), 403, 'INVALID_OAUTH2_ACCESS_TOKEN');
    await expectRefusedWithoutEvents(server, put(guild.id, user.id, bot.token, { access_token: 'nonsense' }), 403, 'INVALID_OAUTH2_ACCESS_TOKEN');
    await expectRefusedWithoutEvents(server, put(guild.id, user.id, bot.token, {}), 400, 'INVALID_FORM_BODY');
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PUT', `/guilds/${guild.id}/members/${user.id}`, { token: guild.owner.token, body: { access_token: joinable.access_token } }),
      403,
      'BOTS_ONLY',
    );
    // The access token itself cannot call the route.
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PUT', `/guilds/${guild.id}/members/${user.id}`, { token: joinable.access_token, body: { access_token: joinable.access_token } }),
      403,
      'OAUTH2_ROUTE_NOT_ALLOWED',
    );
    const revoked = await revoke(client, joinable.refresh_token);
    expect(revoked.status).toBe(200);
    await expectRefusedWithoutEvents(server, put(guild.id, user.id, bot.token, { access_token: joinable.access_token }), 403, 'INVALID_OAUTH2_ACCESS_TOKEN');
  });
});

describe('secrets at rest', () => {
  async function filesUnder(dir: string): Promise<string[]> {
    const entries = await readdir(dir, { withFileTypes: true });
    const nested = await Promise.all(entries.map((e) => (e.isDirectory() ? filesUnder(joinPath(dir, e.name)) : [joinPath(dir, e.name)])));
    return nested.flat();
  }

  it('keeps no code, token, client secret or password in clear anywhere in the data directory (log, read models, WAL)', async () => {
    const client = await registerClient(server);
    const user = await registerUser(server);
    const code = await authorizedCode(server, client, user, { scope: 'identify guilds' });
    const first = (await exchange(client, code)).body;
    const second = (await refresh(client, first.refresh_token)).body;
    const reset = (await server.api('POST', `/applications/${client.id}/reset`, { token: client.owner.token })).body.client_secret;
    await revoke({ ...client, secret: reset }, second.access_token);
    const secrets = {
      code,
      ...Object.fromEntries(
        ['access_token', 'refresh_token'].flatMap((k) => [
          [`first ${k}`, first[k]],
          [`second ${k}`, second[k]],
        ]),
      ),
      secret: client.secret,
      reset,
      password: PASSWORD,
      session: user.token,
    };
    // The secret parts: a token's prefix is only its grant's id.
    const parts = Object.entries(secrets).map(([name, value]) => [name, String(value).split('.').pop()!] as const);
    expect(parts.every(([, part]) => part.length >= 20)).toBe(true);
    const files = await filesUnder(server.dataDir);
    expect(files.some((f) => f.endsWith('.db'))).toBe(true);
    const contents = await Promise.all(files.map(async (file) => [file, await readFile(file)] as const));
    const found = parts.flatMap(([name, part]) => contents.filter(([, bytes]) => bytes.includes(part)).map(([file]) => `${name} in ${file}`));
    expect(found).toEqual([]);
    // The check can fail: the hashes are there.
    const { createHash } = await import('node:crypto');
    expect(contents.some(([, bytes]) => bytes.includes(createHash('sha256').update(second.access_token).digest('hex')))).toBe(true);
  });
});

describe('expiry', async () => {
  const shortLived: TestServer = await fileServer({ OAUTH2_ACCESS_TOKEN_TTL: '1' });

  it('answers 401 once the access token’s OAUTH2_ACCESS_TOKEN_TTL has passed; the refresh grant still works', async () => {
    const client = await registerClient(shortLived);
    const user = await registerUser(shortLived);
    const tokens = await grantedTokens(shortLived, client, user);
    expect(tokens.expires_in).toBe(1);
    expect((await shortLived.api('GET', '/users/@me', { token: tokens.access_token })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const expired = await shortLived.api('GET', '/users/@me', { token: tokens.access_token });
    expect({ status: expired.status, code: expired.body.code }).toEqual({ status: 401, code: 'UNAUTHORIZED' });
    const refreshed = await tokenRequest(shortLived, '/oauth2/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.id,
      client_secret: client.secret,
    });
    expect(refreshed.status).toBe(200);
    expect((await shortLived.api('GET', '/users/@me', { token: refreshed.body.access_token })).body.id).toBe(user.id);
  });
});
