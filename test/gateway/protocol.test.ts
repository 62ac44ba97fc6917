// The gateway protocol with raw WebSocket clients: HELLO, IDENTIFY → READY, heartbeats and their timeout, close codes,
// zlib-stream framing, which closes end a session, and RESUME of an unknown session (dispatches.test.ts covers routing
// and RESUME after a drop).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_INTENTS } from '../../gateway/protocol.js';
import { connectGateway } from '../support/gateway.js';
import { type TestServer, createBot, registerUser, startTestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ GATEWAY_HEARTBEAT_MS: '400' });
});
afterAll(async () => {
  await server.close();
});

describe('gateway', () => {
  it('GET /gateway and /gateway/bot point at this server and count session starts', async () => {
    const bot = await createBot(server);
    const gateway = await server.api('GET', '/gateway');
    expect(gateway.body.url).toBe(`${server.origin.replace('https', 'wss')}/gateway`);
    const before = await server.api('GET', '/gateway/bot', { token: bot.token, scheme: 'Bot' });
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ url: gateway.body.url, shards: 1, session_start_limit: { total: 1000, remaining: 1000, max_concurrency: 1 } });
    const client = await connectGateway(server);
    await client.identify(bot.token, 1);
    const after = await server.api('GET', '/gateway/bot', { token: bot.token, scheme: 'Bot' });
    expect(after.body.session_start_limit.remaining).toBe(999);
    expect(after.body.session_start_limit.reset_after).toBeGreaterThan(0);
    client.close();
  });

  it('says HELLO, then answers IDENTIFY with READY carrying the user (without a token), session and application', async () => {
    const bot = await createBot(server);
    const client = await connectGateway(server);
    const hello = await client.next((p) => p.op === 10);
    expect(hello.d.heartbeat_interval).toBe(400);
    expect(hello.d._trace).toEqual([expect.stringMatching(/^parley-gateway-/)]);
    const ready = await client.identify(bot.token, 513);
    expect(ready.d._trace).toEqual(hello.d._trace);
    expect(ready.s).toBe(1);
    expect(ready.d).toMatchObject({ v: 10, user: { id: bot.id, bot: true }, guilds: [], shard: [0, 1], application: { id: bot.applicationId, flags: 0 } });
    expect(ready.d.user.token).toBeUndefined();
    expect(ready.d.session_id).toEqual(expect.any(String));
    expect(ready.d.resume_gateway_url).toBe(`${server.origin.replace('https', 'wss')}/gateway`);
    client.send({ op: 1, d: 1 });
    await client.next((p) => p.op === 11);
    client.close();
  });

  it('closes with 4004 on a bad token, 4013 on invalid intents, 4003 before identifying, 4002 on garbage, 4012 on a bad version', async () => {
    const bot = await createBot(server);
    const bad = await connectGateway(server);
    bad.send({ op: 2, d: { token: 'not-a-token', intents: 1, properties: {} } });
    expect((await bad.closed).code).toBe(4004);

    const intents = await connectGateway(server);
    intents.send({ op: 2, d: { token: bot.token, intents: 1 << 30, properties: {} } });
    expect((await intents.closed).code).toBe(4013);

    const early = await connectGateway(server);
    early.send({ op: 3, d: {} });
    expect((await early.closed).code).toBe(4003);

    const garbage = await connectGateway(server);
    garbage.send('not json');
    expect((await garbage.closed).code).toBe(4002);

    const version = await connectGateway(server, 'v=9&encoding=json');
    expect((await version.closed).code).toBe(4012);
  });

  it('closes with 4013 on intents outside the defined bits, even those whose low 32 bits are defined ones', async () => {
    const bot = await createBot(server);
    for (const intents of [2 ** 64, 2 ** 32 + 1, 2 ** 53 + 2, -1, 1.5, '1', Number.MAX_VALUE]) {
      const client = await connectGateway(server);
      client.send({ op: 2, d: { token: bot.token, intents, properties: {} } });
      expect({ intents, code: (await client.closed).code }).toEqual({ intents, code: 4013 });
    }
    const defined = await connectGateway(server);
    defined.send({ op: 2, d: { token: bot.token, intents: ALL_INTENTS, properties: {} } });
    expect((await defined.next((p) => p.t === 'READY')).d.user.id).toBe(bot.id);
    defined.close();
  });

  it('closes a connection that stops heartbeating (4009)', async () => {
    const user = await registerUser(server);
    const client = await connectGateway(server);
    await client.identify(user.token, 0);
    const closed = await client.closed;
    expect(closed.code).toBe(4009);
  });

  it('sends USER_UPDATE to the sessions of an account whose profile changes', async () => {
    const user = await registerUser(server);
    const client = await connectGateway(server);
    await client.identify(user.token, 0);
    const patched = await server.api('PATCH', '/users/@me', { token: user.token, body: { username: `${user.username}b` } });
    expect(patched.status).toBe(200);
    const update = await client.dispatch('USER_UPDATE');
    expect(update.d).toMatchObject({ id: user.id, username: `${user.username}b` });
    client.close();
  });

  it('answers a RESUME of an unknown session with INVALID_SESSION false', async () => {
    const user = await registerUser(server);
    const client = await connectGateway(server);
    await client.next((p) => p.op === 10);
    client.send({ op: 6, d: { token: user.token, session_id: 'nope', seq: 3 } });
    const invalid = await client.next((p) => p.op === 9);
    expect(invalid.d).toBe(false);
    client.close();
  });

  it("refuses a RESUME of another user's session without ending it: its owner resumes it still", async () => {
    const [owner, stranger] = await Promise.all([registerUser(server), registerUser(server)]);
    const dropped = await connectGateway(server);
    const ready = await dropped.identify(owner.token, 0);
    dropped.drop();
    await dropped.closed;
    const intruding = await connectGateway(server);
    await intruding.next((p) => p.op === 10);
    intruding.send({ op: 6, d: { token: stranger.token, session_id: ready.d.session_id, seq: ready.s } });
    expect((await intruding.next((p) => p.op === 9)).d).toBe(false);
    intruding.close();
    const resuming = await connectGateway(server);
    await resuming.next((p) => p.op === 10);
    resuming.send({ op: 6, d: { token: owner.token, session_id: ready.d.session_id, seq: ready.s } });
    await resuming.dispatch('RESUMED');
    resuming.close();
  });

  it('speaks zlib-stream when asked, each payload one message ending in a sync flush, which discord.py waits for', async () => {
    const user = await registerUser(server);
    const client = await connectGateway(server, 'v=10&encoding=json&compress=zlib-stream');
    const ready = await client.identify(user.token, 0);
    expect(ready.d.user.id).toBe(user.id);
    expect(client.frames).toHaveLength(client.received.length);
    for (const frame of client.frames) expect(frame.subarray(-4)).toEqual(Buffer.from([0x00, 0x00, 0xff, 0xff]));
    client.close();
  });

  it('keeps a session its client closed with another code than 1000 or 1001 for a RESUME, and ends one closed with 1000', async () => {
    const user = await registerUser(server);
    const dropped = await connectGateway(server);
    const ready = await dropped.identify(user.token, 0);
    dropped.drop();
    await dropped.closed;
    const resuming = await connectGateway(server);
    await resuming.next((p) => p.op === 10);
    resuming.send({ op: 6, d: { token: user.token, session_id: ready.d.session_id, seq: ready.s } });
    const resumed = await resuming.dispatch('RESUMED');
    expect(resumed.d).toEqual({ _trace: ready.d._trace });

    resuming.close();
    await resuming.closed;
    const again = await connectGateway(server);
    await again.next((p) => p.op === 10);
    again.send({ op: 6, d: { token: user.token, session_id: ready.d.session_id, seq: resumed.s } });
    expect((await again.next((p) => p.op === 9)).d).toBe(false);
    again.close();
  });
});
