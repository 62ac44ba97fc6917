import { describe, expect, it } from 'vitest';
import { createBot, fileServer, registerUser, uniqueName } from '../support/server.js';

const server = await fileServer();

describe('accounts', () => {
  it('registers, logs in, creates an application and a bot, and the bot token authenticates', async () => {
    const username = uniqueName();
    const registered = await server.api('POST', '/auth/register', { body: { username, password: 'a long password', email: `${username}@example.com` } });
    expect(registered.status).toBe(201);
    expect(registered.body.token).toEqual(expect.any(String));

    const byName = await server.api('POST', '/auth/login', { body: { login: username, password: 'a long password' } });
    expect(byName.status).toBe(200);
    expect(byName.body.user_id).toBe(registered.body.user_id);
    const byEmail = await server.api('POST', '/auth/login', { body: { login: `${username.toUpperCase()}@EXAMPLE.COM`, password: 'a long password' } });
    expect(byEmail.status).toBe(200);

    const app = await server.api('POST', '/applications', { token: byName.body.token, body: { name: 'Helper' } });
    expect(app.status).toBe(201);
    expect(app.body).toMatchObject({ name: 'Helper', owner_id: registered.body.user_id, client_id: app.body.id });
    expect(app.body.client_secret).toEqual(expect.any(String));
    const fetched = await server.api('GET', `/applications/${app.body.id}`, { token: byName.body.token });
    expect(fetched.status).toBe(200);
    expect(fetched.body.client_secret).toBeUndefined();

    const bot = await server.api('POST', `/applications/${app.body.id}/bot`, { token: byName.body.token });
    expect(bot.status).toBe(201);
    const me = await server.api('GET', '/users/@me', { token: bot.body.token, scheme: 'Bot' });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: bot.body.id, username: 'Helper', bot: true });
    expect(me.body.token).toBeUndefined();
  });

  it('refuses a wrong password with a form error, not a 401', async () => {
    const user = await registerUser(server);
    const response = await server.api('POST', '/auth/login', { body: { login: user.username, password: 'not the password' } });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('INVALID_FORM_BODY');
    expect(response.body.errors.map((e: { path: string }) => e.path)).toEqual(['login', 'password']);
  });

  it('refuses a second account with the same email', async () => {
    const email = `${uniqueName()}@example.com`;
    expect((await server.api('POST', '/auth/register', { body: { username: uniqueName(), password: 'a long password', email } })).status).toBe(201);
    const again = await server.api('POST', '/auth/register', { body: { username: uniqueName(), password: 'a long password', email } });
    expect(again.status).toBe(400);
    expect(again.body.errors).toEqual([{ path: 'email', message: 'Email is already registered.' }]);
  });

  it('gives equal usernames distinct discriminators', async () => {
    const username = uniqueName();
    const users = await Promise.all([1, 2, 3, 4].map(() => registerUser(server, username)));
    const discriminators = await Promise.all(users.map(async (u) => (await server.api('GET', `/users/${u.id}`)).body.discriminator));
    expect(new Set(discriminators).size).toBe(4);
    for (const d of discriminators) expect(d).toMatch(/^\d{4}$/);
  });

  it('resetting a bot token makes the old one answer 401', async () => {
    const bot = await createBot(server);
    const reset = await server.api('POST', `/applications/${bot.applicationId}/bot/reset`, { token: bot.owner.token });
    expect(reset.status).toBe(200);
    expect((await server.api('GET', '/users/@me', { token: bot.token, scheme: 'Bot' })).status).toBe(401);
    expect((await server.api('GET', '/users/@me', { token: reset.body.token, scheme: 'Bot' })).status).toBe(200);
  });

  it('refuses a reset bot token on the very next request, though it authenticated just before (tokens are kept in memory)', async () => {
    const bot = await createBot(server);
    for (let i = 0; i < 2; i++) expect((await server.api('GET', '/users/@me', { token: bot.token, scheme: 'Bot' })).status).toBe(200);
    const reset = await server.api('POST', `/applications/${bot.applicationId}/bot/reset`, { token: bot.owner.token });
    expect((await server.api('GET', '/users/@me', { token: bot.token, scheme: 'Bot' })).status).toBe(401);
    expect((await server.api('GET', '/users/@me', { token: reset.body.token, scheme: 'Bot' })).status).toBe(200);
    const again = await server.api('POST', `/applications/${bot.applicationId}/bot/reset`, { token: bot.owner.token });
    expect((await server.api('GET', '/users/@me', { token: reset.body.token, scheme: 'Bot' })).status).toBe(401);
    expect((await server.api('GET', '/users/@me', { token: again.body.token, scheme: 'Bot' })).status).toBe(200);
  });

  it('keeps applications to their owner and bots off session routes', async () => {
    const bot = await createBot(server);
    const stranger = await registerUser(server);
    expect((await server.api('GET', `/applications/${bot.applicationId}`, { token: stranger.token })).status).toBe(404);
    const forbidden = await server.api('POST', `/applications/${bot.applicationId}/bot/reset`, { token: stranger.token });
    expect(forbidden.status).toBe(403);
    const asBot = await server.api('POST', '/applications', { token: bot.token, scheme: 'Bot', body: { name: 'nope' } });
    expect(asBot.status).toBe(403);
    expect(asBot.body.code).toBe('BOTS_NOT_ALLOWED');
  });

  it('does not accept a bot token as Bearer nor a session token as Bot', async () => {
    const bot = await createBot(server);
    expect((await server.api('GET', '/users/@me', { token: bot.token, scheme: 'Bearer' })).status).toBe(401);
    expect((await server.api('GET', '/users/@me', { token: bot.owner.token, scheme: 'Bot' })).status).toBe(401);
  });
});
