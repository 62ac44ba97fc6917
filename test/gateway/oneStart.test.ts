// One start per connection. IDENTIFY and RESUME await (the token, the session start, the snapshots) before a session
// is attached, so two start frames read in one chunk used to both proceed: two sessions on one socket, dispatches
// sent twice, sequence numbers going back. The second start closes the connection with 4005, however the frames come.
import { describe, expect, it } from 'vitest';
import { createGuild } from '../http/guildSupport.js';
import { type GatewayClient, fileGateway } from '../support/gateway.js';

const GUILDS = 1 << 0;
const GUILD_MESSAGES = 1 << 9;
const INTENTS = GUILDS | GUILD_MESSAGES;
const ALREADY_AUTHENTICATED = 4005;

const { server, gateway } = await fileGateway();
const guild = await createGuild(server);

const identify = (token: string) => ({ op: 2, d: { token, intents: INTENTS, properties: { os: 'linux', browser: 'test', device: 'test' }, shard: [0, 1] } });
const resume = (token: string, sessionId: string, seq: number) => ({ op: 6, d: { token, session_id: sessionId, seq } });

/** The close code, or 'open' if the connection is still open after `ms`. */
const closeCode = (client: GatewayClient, ms = 3000) =>
  Promise.race([client.closed.then(({ code }) => code), new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), ms))]);

/** The sequence numbers of the dispatches the clients received, in the order they came. */
const sequences = (...clients: GatewayClient[]) => clients.flatMap((client) => client.received.filter((p) => p.op === 0).map((p) => p.s as number));

/** Each dispatch once and never a step back: the sequence numbers strictly increase. */
function expectEachOnceInOrder(seqs: number[]) {
  expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
}

/** A session whose client dropped (4000, to resume) and missed a message meanwhile: what a RESUME replays. */
async function droppedSession() {
  const first = await gateway.session(guild.owner.token, INTENTS);
  const ready = await first.dispatch('READY');
  await first.dispatch('GUILD_CREATE');
  first.drop();
  await first.closed;
  const sent = await server.api('POST', `/channels/${guild.channelId}/messages`, { token: guild.owner.token, body: { content: 'while away' } });
  expect(sent.status).toBe(200);
  return { first, sessionId: ready.d.session_id as string, seq: first.lastSeq() };
}

async function helloed() {
  const client = await gateway.connect();
  await client.next((p) => p.op === 10);
  return client;
}

describe('two starts on one connection', () => {
  it('closes with 4005 on RESUME and RESUME in one write, and replays nothing twice', async () => {
    const { first, sessionId, seq } = await droppedSession();
    const client = await helloed();
    client.sendInOneWrite([resume(guild.owner.token, sessionId, seq), resume(guild.owner.token, sessionId, seq)]);
    expect(await closeCode(client)).toBe(ALREADY_AUTHENTICATED);
    expectEachOnceInOrder(sequences(first, client));
    // The session is still there for a RESUME on a new connection, which gets what was missed, once.
    const again = await helloed();
    again.send(resume(guild.owner.token, sessionId, Math.max(...sequences(first, client))));
    await again.dispatch('RESUMED');
    expect(again.received.filter((p) => p.op === 0).map((p) => p.t)).toEqual(['MESSAGE_CREATE', 'RESUMED']);
    expectEachOnceInOrder(sequences(first, client, again));
  });

  it('closes with 4005 on RESUME and IDENTIFY in one write: one session, its sequence never going back', async () => {
    const { first, sessionId, seq } = await droppedSession();
    const client = await helloed();
    client.sendInOneWrite([resume(guild.owner.token, sessionId, seq), identify(guild.owner.token)]);
    expect(await closeCode(client)).toBe(ALREADY_AUTHENTICATED);
    expect(client.received.filter((p) => p.t === 'READY')).toEqual([]);
    expectEachOnceInOrder(sequences(first, client));
  });

  it('closes with 4005 on IDENTIFY and IDENTIFY in one write, with at most one READY', async () => {
    const client = await helloed();
    client.sendInOneWrite([identify(guild.owner.token), identify(guild.owner.token)]);
    expect(await closeCode(client)).toBe(ALREADY_AUTHENTICATED);
    expect(client.received.filter((p) => p.t === 'READY').length).toBeLessThanOrEqual(1);
    expectEachOnceInOrder(sequences(client));
  });

  it('closes with 4005 on a start after the session started', async () => {
    const client = await gateway.session(guild.owner.token, INTENTS);
    const ready = await client.dispatch('READY');
    client.send(resume(guild.owner.token, ready.d.session_id, client.lastSeq()));
    expect(await closeCode(client)).toBe(ALREADY_AUTHENTICATED);
  });

  it('lets a client told INVALID_SESSION identify on the same connection: its start started nothing', async () => {
    const client = await helloed();
    client.send(resume(guild.owner.token, 'unknown', 1));
    expect((await client.next((p) => p.op === 9)).d).toBe(false);
    client.send(identify(guild.owner.token));
    expect((await client.dispatch('READY')).s).toBe(1);
  });
});
