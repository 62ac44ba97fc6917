// Voice states of a gateway node that stopped without its graceful stop (it crashed: it ended none of its sessions):
// every node holds a lease while it runs, and another node, finding the lease run out, ends the voice states the gone
// node's sessions held, which the guild hears as VOICE_STATE_UPDATE with channel_id null. Two gateway nodes on one
// log, read store and lease store, each on its own HTTP server, as the distributed mode runs them.
import { afterAll, describe, expect, it } from 'vitest';
import { Gateway } from '../../gateway/server.js';
import { type RunningHttpServer, startHttpServer } from '../../http/server.js';
import { LEASE_MS } from '../../ports/leases.js';
import { voiceStateOf } from '../../projections/voiceStates.queries.js';
import { createGuild, newMember } from '../http/guildSupport.js';
import { type GatewayClient, connectGateway } from '../support/gateway.js';
import { fileServer } from '../support/server.js';

const GUILDS = 1 << 0;
const GUILD_VOICE_STATES = 1 << 7;

const server = await fileServer();
const started: { http: RunningHttpServer }[] = [];
const clients: GatewayClient[] = [];
afterAll(async () => {
  for (const client of clients) client.close();
  for (const node of started) await node.http.close();
});

/** A gateway node of the distributed mode (not the sole node) on the test server's engines, with a clock of its own. */
async function gatewayNode(clock: { now(): number }) {
  const runtime = { ...server.runtime, clock };
  const gateway = new Gateway(runtime, { heartbeatIntervalMs: 45_000, soleNode: false });
  const http = await startHttpServer(
    runtime,
    null,
    { lag: async () => 0, metrics: async () => '' },
    { beforeListen: (listening) => gateway.start(listening as never), beforeClose: () => gateway.close() },
  );
  started.push({ http });
  return { gateway, origin: `ws://127.0.0.1:${http.port}`, cert: '' };
}

async function connected(node: { origin: string; cert: string }, token: string, intents: number) {
  const client = await connectGateway(node);
  clients.push(client);
  await client.identify(token, intents);
  return client;
}

describe('voice states of a gateway node that crashed', () => {
  it('end once its lease runs out, and the guild hears channel_id null', async () => {
    const guild = await createGuild(server);
    const member = await newMember(server, guild);
    const lounge = (await server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body: { name: 'Lounge', type: 2 } })).body.id;
    // Node B's clock stands still from here: whatever it renews runs out when node A's clock says so.
    const start = Date.now();
    const clockA = { time: start, now: () => clockA.time };
    const a = await gatewayNode(clockA);
    const b = await gatewayNode({ now: () => start });

    const watcher = await connected(a, guild.owner.token, GUILDS | GUILD_VOICE_STATES);
    const sitter = await connected(b, member.token, GUILDS);
    sitter.send({ op: 4, d: { guild_id: guild.id, channel_id: lounge, self_mute: false, self_deaf: false } });
    await watcher.next((p) => p.t === 'VOICE_STATE_UPDATE' && p.d.user_id === member.id && p.d.channel_id === lounge);

    // Node B stops renewing (it crashed); its session is left as a crash leaves it. While its lease holds, nothing ends
    // (what watchNodes ends is in the read models when it returns).
    await a.gateway.watchNodes();
    clockA.time += LEASE_MS - 1000;
    await a.gateway.watchNodes();
    expect((await voiceStateOf(server.runtime.readStore, guild.id, member.id))?.channel_id).toBe(lounge);
    const mark = watcher.received.length;
    clockA.time += 2000;
    await a.gateway.watchNodes();
    expect(await voiceStateOf(server.runtime.readStore, guild.id, member.id)).toBeNull();
    const left = await watcher.next((p) => watcher.received.indexOf(p) >= mark && p.t === 'VOICE_STATE_UPDATE' && p.d.user_id === member.id);
    expect(left.d).toMatchObject({ guild_id: guild.id, channel_id: null });
  });
});
