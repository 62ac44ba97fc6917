// The bytes clients of the widely used API depend on: JSON answers typed `application/json` exactly (discord.py
// compares the whole header), 204s with neither body nor type.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, registerUser, startTestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

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
});
