// The authorization page over HTTPS, as a browser without JavaScript uses it (forms, cookies, redirects not followed):
// its security headers, sign-in, consent, authorize and cancel, the CSRF check, bad requests shown and never redirected,
// and the bot flow with its guild picker, audit entry, forged submits and rate limit. test/browser/ drives the same
// page in a real headless browser.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ApiResponse } from '../support/server.js';
import { fileServer, registerUser, expectNothingAppendedSince, startTestServer } from '../support/server.js';
import { createGuild, grantRole, join } from './guildSupport.js';
import { PASSWORD, PageVisitor, REDIRECT_URI, addBotUser, codeQuery, redirectedTo, registerClient, tokenRequest } from './oauth2Support.js';

const server = await fileServer();
const MANAGE_GUILD = 1n << 5n;
const SEND_MESSAGES = 1n << 11n;

/** The response is a page that appended nothing and sent the person nowhere. */
async function expectPageWithoutEvents(request: () => Promise<ApiResponse>, status: number, text: string | RegExp) {
  const before = await server.runtime.store.headPosition();
  const page = await request();
  expect(page.status, page.text.slice(0, 2000)).toBe(status);
  expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(page.headers.location).toBeUndefined();
  expect(page.text).toMatch(text);
  await expectNothingAppendedSince(server, before);
  return page;
}

describe('the page', () => {
  it('is HTML under a strict Content-Security-Policy, at the origin’s root and under /api/v1, with no script', async () => {
    const client = await registerClient(server);
    for (const base of ['', '/api/v1']) {
      const page = await new PageVisitor(server, base).get(codeQuery(client));
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      const csp = String(page.headers['content-security-policy']);
      expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/);
      // The one inline stylesheet is the one the hash allows.
      const style = /<style>([\s\S]*?)<\/style>/.exec(page.text)![1];
      expect(csp).toContain(`'sha256-${createHash('sha256').update(style).digest('base64')}'`);
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['referrer-policy']).toBe('no-referrer');
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.text).not.toMatch(/<script|javascript:|\son\w+=/i);
      expect(page.text).toContain(`Sign in to continue to ${client.name}`);
    }
  });

  it('sets its cookies HttpOnly, Secure, SameSite=Lax and __Host-', async () => {
    const client = await registerClient(server);
    const visitor = new PageVisitor(server);
    const page = await visitor.get(codeQuery(client));
    const user = await registerUser(server);
    const signedIn = await visitor.post(codeQuery(client), { action: 'signin', login: user.username, password: PASSWORD }, page);
    const cookies = [page.headers['set-cookie'], signedIn.headers['set-cookie']].flat().map(String);
    expect(cookies.map((c) => c.split('=')[0]).sort()).toEqual(['__Host-parley_csrf', '__Host-parley_session']);
    for (const cookie of cookies) expect(cookie).toMatch(/; Path=\/; Secure; HttpOnly; SameSite=Lax$/);
    // The cookie opens the page, never the API.
    expect((await server.api('GET', '/users/@me', { headers: { cookie: `__Host-parley_session=${visitor.cookie('__Host-parley_session')}` } })).status).toBe(
      401,
    );
  });

  it('shows a wrong password as an error and does not sign in', async () => {
    const client = await registerClient(server);
    const user = await registerUser(server);
    const visitor = new PageVisitor(server);
    const page = await visitor.get(codeQuery(client));
    const wrong = await expectPageWithoutEvents(
      () => visitor.post(codeQuery(client), { action: 'signin', login: user.username, password: 'not the password' }, page),
      400,
      'Login or password is invalid.',
    );
    expect(wrong.headers['set-cookie']).toBeUndefined();
    expect(wrong.text).toContain(`value="${user.username}"`);
    expect((await visitor.get(codeQuery(client))).text).toContain('Sign in to continue');
  });

  it('signs in with the email too, then shows the consent: the application, each scope in plain words, Authorize and Cancel', async () => {
    const client = await registerClient(server);
    const username = `${client.name}u`;
    await server.api('POST', '/auth/register', { body: { username, password: PASSWORD, email: `${username}@example.com` } });
    const visitor = new PageVisitor(server);
    const query = codeQuery(client, { scope: 'identify email guilds' });
    const page = await visitor.get(query);
    expect((await visitor.post(query, { action: 'signin', login: `${username}@example.com`, password: PASSWORD }, page)).status).toBe(303);
    const consent = await visitor.get(query);
    expect(consent.text).toContain(`${client.name} wants to access your account`);
    expect(consent.text).toContain(`Signed in as <strong>${username}</strong>`);
    for (const words of ['Know your username, avatar and discriminator', 'Know your email address', 'Know which servers you are in'])
      expect(consent.text).toContain(`<li>${words}</li>`);
    expect(consent.text).toMatch(
      /<button type="submit" name="action" value="cancel">Cancel<\/button>\s*<button type="submit" name="action" value="authorize" class="primary">Authorize<\/button>/,
    );
    // A form that ends at the client's redirect URI: the policy allows that origin as a form target.
    expect(consent.headers['content-security-policy']).toContain("form-action 'self' https://client.example;");
  });

  it('Authorize sends the person back with a code and the state unchanged; the code is this client’s', async () => {
    const client = await registerClient(server);
    const user = await registerUser(server);
    const state = 'a "tricky" state & <more> ünïcode';
    const visitor = new PageVisitor(server);
    const query = codeQuery(client, { state });
    await visitor.signIn(query, user);
    const back = redirectedTo(await visitor.post(query, { action: 'authorize' }));
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
    expect(back.searchParams.get('state')).toBe(state);
    const code = back.searchParams.get('code')!;
    expect(code).toMatch(/^[\w-]+\.[\w-]{43}$/);
    const exchanged = await tokenRequest(server, '/oauth2/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: client.id,
      client_secret: client.secret,
    });
    expect(exchanged.status).toBe(200);
  });

  it('Cancel sends the person back with error=access_denied and the state, no code, appending nothing', async () => {
    const client = await registerClient(server);
    const user = await registerUser(server);
    const visitor = new PageVisitor(server);
    const query = codeQuery(client);
    await visitor.signIn(query, user);
    const before = await server.runtime.store.headPosition();
    const back = redirectedTo(await visitor.post(query, { action: 'cancel' }));
    expect(Object.fromEntries(back.searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'The person declined the authorization',
      state: 'st4te',
    });
    await expectNothingAppendedSince(server, before);
  });

  it('refuses a form without the visitor’s CSRF token (403), appending nothing', async () => {
    const client = await registerClient(server);
    const user = await registerUser(server);
    const visitor = new PageVisitor(server);
    const query = codeQuery(client);
    await visitor.signIn(query, user);
    const forger = new PageVisitor(server);
    const forgedPage = await forger.get(query);
    // A token from another visitor's page, none, or the wrong kind of body.
    await expectPageWithoutEvents(() => visitor.post(query, { action: 'authorize' }, forgedPage), 403, 'did not come from this page');
    await expectPageWithoutEvents(() => visitor.post(query, { action: 'authorize', csrf: '' }), 403, 'did not come from this page');
    await expectPageWithoutEvents(() => server.call('POST', `/oauth2/authorize?${query}`, { body: { action: 'authorize' } }), 400, 'form');
    // A signed-out visitor posting Authorize is asked to sign in.
    await expectPageWithoutEvents(() => forger.post(query, { action: 'authorize' }, forgedPage), 401, 'Sign in first');
  });

  it('shows a bad request on the page and never redirects: client, redirect_uri, response_type, scope', async () => {
    const client = await registerClient(server);
    const user = await registerUser(server);
    const visitor = new PageVisitor(server);
    await visitor.signIn(codeQuery(client), user);
    const cases: [Record<string, string>, string][] = [
      [{ client_id: '123' }, 'Unknown client_id'],
      [{ client_id: 'x' }, 'Unknown client_id'],
      [{ redirect_uri: 'https://evil.example/callback' }, 'redirect_uri is not one of the redirect URIs the application registered'],
      [{ redirect_uri: `${REDIRECT_URI}/` }, 'redirect_uri is not one of'],
      [{ response_type: 'token' }, 'response_type must be code'],
      [{ scope: 'identify admin' }, 'Unknown scope: admin'],
      [{ scope: '' }, 'scope is required'],
    ];
    for (const [over, message] of cases) {
      await expectPageWithoutEvents(() => visitor.get(codeQuery(client, over)), 400, message);
      await expectPageWithoutEvents(() => visitor.post(codeQuery(client, over), { action: 'authorize' }), 400, message);
    }
    await expectPageWithoutEvents(() => visitor.get(`${codeQuery(client)}&state=again`), 400, 'state is given more than once');
  });

  it('escapes what it shows: an application’s name is text, never markup', async () => {
    const owner = await registerUser(server);
    const app = await server.api('POST', '/applications', { token: owner.token, body: { name: '<img src=x>"&', redirect_uris: [REDIRECT_URI] } });
    expect(app.status).toBe(201);
    const page = await new PageVisitor(server).get(codeQuery({ id: app.body.id, secret: '', name: '', owner }));
    expect(page.text).toContain('Sign in to continue to &lt;img src=x&gt;&quot;&amp;');
    expect(page.text).not.toContain('<img');
  });
});

describe('the bot flow', () => {
  async function botApplication() {
    const client = await registerClient(server);
    const bot = await addBotUser(server, client);
    return { client, bot };
  }
  const botQuery = (clientId: string, over: Record<string, string> = {}) =>
    new URLSearchParams({ client_id: clientId, scope: 'bot', permissions: SEND_MESSAGES.toString(), ...over }).toString();

  it('offers only the guilds where the person has MANAGE_GUILD, and Authorize adds the bot with its managed role, audited', async () => {
    const { client, bot } = await botApplication();
    const person = await registerUser(server);
    const owned = await createGuild(server, person, 'Owned guild');
    const managed = await createGuild(server, undefined, 'Managed guild');
    await join(server, managed, person);
    await grantRole(server, managed, person, MANAGE_GUILD | SEND_MESSAGES, 'managers');
    const memberOnly = await createGuild(server, undefined, 'Member-only guild');
    await join(server, memberOnly, person);

    const visitor = new PageVisitor(server);
    const query = botQuery(client.id);
    const picker = await visitor.signIn(query, person);
    expect(picker.text).toContain(`Add ${client.name} to a server`);
    const options = [...picker.text.matchAll(/<option value="(\d+)">([^<]+)<\/option>/g)].map((m) => [m[1], m[2]]);
    expect(options).toEqual([
      [managed.id, 'Managed guild'],
      [owned.id, 'Owned guild'],
    ]);
    expect(picker.text).toContain('<li>Send messages</li>');

    // A forged submit for a guild the person only belongs to adds nothing.
    await expectPageWithoutEvents(() => visitor.post(query, { action: 'authorize', guild_id: memberOnly.id }), 403, 'Missing Permissions');
    await expectPageWithoutEvents(() => visitor.post(query, { action: 'authorize', guild_id: '42' }), 404, 'Unknown Guild');
    await expectPageWithoutEvents(() => visitor.post(query, { action: 'authorize' }), 400, 'Choose a server first.');

    const done = await visitor.post(query, { action: 'authorize', guild_id: managed.id });
    expect(done.status).toBe(200);
    expect(done.text).toContain(`${client.name} was added to Managed guild`);
    const member = await server.api('GET', `/guilds/${managed.id}/members/${bot.id}`, { token: managed.owner.token });
    expect(member.status).toBe(200);
    const roles = await server.api('GET', `/guilds/${managed.id}/roles`, { token: managed.owner.token });
    const role = roles.body.find((r: { id: string }) => r.id === member.body.roles[0]);
    expect(role).toMatchObject({ name: bot.username, managed: true, tags: { bot_id: bot.id }, permissions: SEND_MESSAGES.toString() });
    const audit = await server.api('GET', `/guilds/${managed.id}/audit-logs?action_type=28`, { token: managed.owner.token });
    expect(audit.body.audit_log_entries).toEqual([expect.objectContaining({ action_type: 28, target_id: bot.id, user_id: person.id })]);
    expect(audit.body.users.map((u: { id: string }) => u.id).sort()).toEqual([bot.id, person.id].sort());

    const again = await visitor.post(query, { action: 'authorize', guild_id: managed.id });
    expect(again.text).toContain(`${client.name} is already in Managed guild`);
  });

  it('with guild_id shows that guild alone; one the person cannot manage is refused on sight', async () => {
    const { client, bot } = await botApplication();
    const person = await registerUser(server);
    const owned = await createGuild(server, person, 'Mine');
    const other = await createGuild(server);
    await join(server, other, person);
    const visitor = new PageVisitor(server);
    const fixed = await visitor.signIn(botQuery(client.id, { guild_id: owned.id, permissions: '0' }), person);
    expect(fixed.text).toContain('Server: <strong>Mine</strong>');
    expect(fixed.text).not.toContain('<select');
    expect(fixed.text).toContain('no permissions beyond those of everyone');
    await expectPageWithoutEvents(() => visitor.get(botQuery(client.id, { guild_id: other.id })), 403, 'Manage Server');
    await expectPageWithoutEvents(
      () => visitor.post(botQuery(client.id, { guild_id: owned.id }), { action: 'authorize', guild_id: other.id }),
      400,
      'guild_id differs',
    );
    expect((await visitor.post(botQuery(client.id, { guild_id: owned.id, permissions: '0' }), { action: 'authorize' })).status).toBe(200);
    expect((await server.api('GET', `/guilds/${owned.id}/members/${bot.id}`, { token: person.token })).body.roles).toEqual([]);
  });

  it('refuses permissions the person could not grant themselves, and an application without a bot', async () => {
    const { client } = await botApplication();
    const person = await registerUser(server);
    const managed = await createGuild(server);
    await join(server, managed, person);
    await grantRole(server, managed, person, MANAGE_GUILD, 'managers');
    const visitor = new PageVisitor(server);
    const query = botQuery(client.id, { permissions: String(1n << 2n) });
    await visitor.signIn(query, person);
    await expectPageWithoutEvents(() => visitor.post(query, { action: 'authorize', guild_id: managed.id }), 403, 'cannot grant permissions you do not have');
    const botless = await registerClient(server);
    await expectPageWithoutEvents(() => visitor.get(botQuery(botless.id)), 400, 'This application has no bot to add');
    await expectPageWithoutEvents(() => visitor.get(botQuery(client.id, { permissions: '-1' })), 400, 'permissions is a permission bitfield');
  });

  it('with a user scope beside bot, ends at the redirect URI with a code, the guild and the permissions', async () => {
    const { client, bot } = await botApplication();
    const person = await registerUser(server);
    const owned = await createGuild(server, person);
    const visitor = new PageVisitor(server);
    const query = botQuery(client.id, { scope: 'bot identify', redirect_uri: REDIRECT_URI, response_type: 'code', state: 's' });
    await visitor.signIn(query, person);
    const back = redirectedTo(await visitor.post(query, { action: 'authorize', guild_id: owned.id }));
    expect(back.searchParams.get('guild_id')).toBe(owned.id);
    expect(back.searchParams.get('permissions')).toBe(SEND_MESSAGES.toString());
    expect(back.searchParams.get('state')).toBe('s');
    const tokens = await tokenRequest(server, '/oauth2/token', {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: REDIRECT_URI,
      client_id: client.id,
      client_secret: client.secret,
    });
    expect(tokens.body.scope).toBe('bot identify');
    expect((await server.api('GET', `/guilds/${owned.id}/members/${bot.id}`, { token: person.token })).status).toBe(200);
  });

  it('limits the bot authorization URL to 10 per minute per application (429 with Retry-After)', async () => {
    const { client } = await botApplication();
    const other = await botApplication();
    const visitor = new PageVisitor(server);
    for (let i = 0; i < 10; i++) expect((await visitor.get(botQuery(client.id))).status).toBe(200);
    const limited = await expectPageWithoutEvents(() => visitor.get(botQuery(client.id)), 429, 'You are being rate limited.');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Through the other mount too: one limit per application, not per path.
    expect((await new PageVisitor(server, '/api/v1').get(botQuery(client.id))).status).toBe(429);
    expect((await visitor.get(botQuery(other.client.id))).status).toBe(200);
  });
});

describe('sign-in through the page', () => {
  it('is limited to 60 a minute per address across both mounts, and only a sign-in spends it (429 page with Retry-After)', async () => {
    // A server of its own: this uses up the test address's sign-ins.
    const own = await startTestServer();
    try {
      const client = await registerClient(own);
      const visitors = [new PageVisitor(own), new PageVisitor(own, '/api/v1')];
      const pages = await Promise.all(visitors.map((visitor) => visitor.get(codeQuery(client))));
      const signIn = (i: number) => visitors[i % 2].post(codeQuery(client), { action: 'signin', login: '', password: '' }, pages[i % 2]);
      for (let i = 0; i < 60; i++) expect((await signIn(i)).status).toBe(400);
      const limited = await signIn(60);
      expect(limited.status).toBe(429);
      expect(limited.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(limited.text).toContain('You are being rate limited.');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      // Showing the page spends no sign-in.
      expect((await visitors[0].get(codeQuery(client))).status).toBe(200);
    } finally {
      await own.close();
    }
  });
});
