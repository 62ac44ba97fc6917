// The bytes clients of the widely used API depend on: JSON answers typed `application/json` exactly (discord.py
// compares the whole header), 204s with neither body nor type, and rate limits as discord.py 2.x (discord/http.py:
// Ratelimit.update, HTTPClient.request) and @discordjs/rest (SequentialHandler) read them, per the widely used API's
// developers/topics/rate-limits.mdx.
import { describe, expect, it } from 'vitest';
import { fileServer, registerUser } from '../support/server.js';
import { createGuild } from './guildSupport.js';

const server = await fileServer();

describe('wire format', () => {
  it('types every JSON answer application/json exactly: success, refusal and unknown route', async () => {
    const user = await registerUser(server);
    const answers = [
      await server.api('GET', '/users/@me', { token: user.token }),
      await server.api('GET', '/users/@me'),
      await server.api('PATCH', '/users/@me', { token: user.token, body: { username: '' } }),
      await server.api('GET', '/no/such/route'),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 401, 400, 404]);
    for (const answer of answers) expect(answer.headers['content-type']).toBe('application/json');
  });

  it('answers 204 with neither body nor content type', async () => {
    const user = await registerUser(server);
    const guild = await server.api('POST', '/guilds', { token: user.token, body: { name: 'wire' } });
    const deleted = await server.api('DELETE', `/guilds/${guild.body.id}`, { token: user.token });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect(deleted.headers['content-type']).toBeUndefined();
  });

  it('sends the bucket headers on every answer of a limited route, in the forms its clients parse', async () => {
    const user = await registerUser(server);
    const answer = await server.api('PATCH', '/users/@me', { token: user.token, body: {} });
    expect(answer.status).toBe(200);
    const headers = answer.headers as Record<string, string>;
    // discord.py: int(Limit), int(Remaining), float(Reset-After), float(Reset) as epoch seconds.
    expect(headers['x-ratelimit-limit']).toMatch(/^\d+$/);
    expect(headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(headers['x-ratelimit-reset-after'])).toBeGreaterThan(0);
    expect(Number(headers['x-ratelimit-reset']) - Date.now() / 1000).toBeCloseTo(Number(headers['x-ratelimit-reset-after']), 0);
    expect(headers['x-ratelimit-bucket']).toMatch(/^[0-9a-f]+$/);
    // Scope and Global belong to 429s only.
    expect(headers).not.toHaveProperty('x-ratelimit-scope');
    expect(headers).not.toHaveProperty('x-ratelimit-global');
  });

  it('answers a bucket’s 429 with Retry-After, scope user, no global flag, a Via header and {code, message, retry_after, global}', async () => {
    const user = await registerUser(server);
    await server.api('PATCH', '/users/@me', { token: user.token, body: {} });
    const limited = await server.api('PATCH', '/users/@me', { token: user.token, body: {} });
    expect(limited.status).toBe(429);
    expect(limited.headers['content-type']).toBe('application/json');
    expect(limited.body).toEqual({ code: 'RATE_LIMITED', message: 'You are being rate limited.', retry_after: expect.any(Number), global: false });
    expect(limited.body.retry_after).toBeGreaterThan(0);
    expect(limited.headers['retry-after']).toBe(String(Math.ceil(limited.body.retry_after)));
    expect(limited.headers).toMatchObject({ 'x-ratelimit-scope': 'user', 'x-ratelimit-remaining': '0', 'x-ratelimit-bucket': expect.any(String) });
    // @discordjs/rest takes any X-RateLimit-Global, even "false", for a global limit, which Parley does not have.
    expect(limited.headers).not.toHaveProperty('x-ratelimit-global');
    // discord.py raises at once on a 429 without Via, taking it for a ban; with one it waits retry_after and retries.
    expect(limited.headers.via).toEqual(expect.any(String));
  });

  it('reads query booleans as discord.py spells them (1/0, True/False) and as discord.js does (true/false)', async () => {
    const guild = await createGuild(server);
    const webhook = await server.api('POST', `/channels/${guild.channelId}/webhooks`, { token: guild.owner.token, body: { name: 'hook' } });
    const execute = (wait: string) =>
      server.api('POST', `/webhooks/${webhook.body.id}/${webhook.body.token}?wait=${wait}`, { body: { content: `wait=${wait}` } });
    for (const yes of ['1', 'True', 'true']) expect((await execute(yes)).body).toMatchObject({ content: `wait=${yes}` });
    for (const no of ['0', 'False', 'false']) expect((await execute(no)).status).toBe(204);
    expect((await execute('yes')).status).toBe(400);

    const invite = await server.api('GET', `/invites/${guild.code}?with_counts=1&with_expiration=1`, { token: guild.owner.token });
    expect(invite.status).toBe(200);
    const guilds = await server.api('GET', '/users/@me/guilds?with_counts=1', { token: guild.owner.token });
    expect(guilds.body[0]).toHaveProperty('approximate_member_count', 1);
    const plain = await server.api('GET', '/users/@me/guilds?with_counts=0', { token: guild.owner.token });
    expect(plain.body[0]).not.toHaveProperty('approximate_member_count');
  });
});
