// Admission (http/admission.ts): past MAX_REQUESTS_IN_FLIGHT a request is answered 503 with Retry-After at once, in
// its API version's error form, before its body is read; the operator's endpoints are never refused; what was admitted
// and answered 2xx is in the log, and a refused send appended nothing.
import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { type ApiResponse, apiClient, appendedByRequestsSince, fileServer } from '../support/server.js';
import { createGuild } from './guildSupport.js';

const server = await fileServer({ MAX_REQUESTS_IN_FLIGHT: '2' });
const guild = await createGuild(server);
// Every request of the burst on a connection of its own, as many clients would send them.
const many = new Agent({ connect: { ca: server.cert, servername: 'localhost' }, pipelining: 1 });
afterAll(() => many.close());
const client = apiClient(server.origin, many);

describe('a process over its admission limit', () => {
  it('refuses what is over it with 503 and Retry-After in each version’s error form, and keeps every send it answered', async () => {
    const before = await server.runtime.store.headPosition();
    const send = async (prefix: string, i: number) => ({
      prefix,
      response: await client.call('POST', `${prefix}/channels/${guild.channelId}/messages`, {
        token: guild.owner.token,
        body: { content: `burst ${prefix} ${i}` },
      }),
    });
    const [sends, health] = await Promise.all([
      Promise.all(Array.from({ length: 120 }, (_, i) => send(i % 2 ? '/api/v10' : '/api/v1', i))),
      Promise.all(Array.from({ length: 20 }, () => client.call('GET', '/healthz'))),
    ]);

    expect(new Set(health.map((h) => h.status))).toEqual(new Set([200]));
    expect(new Set(sends.map((s) => s.response.status))).toEqual(new Set([200, 503]));
    for (const { prefix, response } of sends.filter((s) => s.response.status === 503)) {
      expect(response.headers['retry-after']).toBe('1');
      expect(response.body).toEqual({ code: prefix === '/api/v10' ? 0 : 'SERVICE_UNAVAILABLE', message: expect.any(String) });
    }

    // Every send answered 200 reads back; the refused ones appended nothing.
    const admitted = sends.map((s) => s.response).filter((r) => r.status === 200);
    for (const message of admitted) {
      const read = await server.api('GET', `/channels/${guild.channelId}/messages/${message.body.id}`, { token: guild.owner.token });
      expect(read.body.content).toBe(message.body.content);
    }
    const created = (await appendedByRequestsSince(server, before)).filter((event) => event.type === 'MessageCreated');
    expect(created).toHaveLength(admitted.length);
  });

  it('serves again once the burst is over', async () => {
    const sequential: ApiResponse[] = [];
    for (let i = 0; i < 5; i++) sequential.push(await client.api('GET', '/users/@me', { token: guild.owner.token }));
    expect(sequential.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  });
});
