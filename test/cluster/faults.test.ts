// Processes of a cluster (`npm run cluster`) killed with SIGKILL under a send load, each checked afterwards by reading
// back every acknowledged write: nothing a 2xx acknowledged may be missing, nothing may be there twice. The launcher
// starts a killed process again, as a supervisor would. One cluster for the file, on a database of its own.
import { readFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { Intent } from '../../gateway/protocol.js';
import { RELAY_LEASE } from '../../infra/bus/relay.js';
import { openToolEngines } from '../../infra/compose.js';
import { loadConfig } from '../../infra/config.js';
import { createLogger } from '../../infra/logger.js';
import { PostgresReadStore } from '../../infra/readStore/postgres.js';
import { ProgressBar, rebuildReadModels, snapshotReadModels } from '../../infra/replayTools.js';
import { allProjections } from '../../projections/index.js';
import { type BotProcess, startBotProcess } from '../compat/botProcess.js';
import { allOnPostgres, createTestDatabase, withEngines } from '../contracts/engines.js';
import { createGuild, join as joinGuild } from '../http/guildSupport.js';
import { type Cluster, startCluster } from '../support/cluster.js';
import { type GatewayClient, connectGateway } from '../support/gateway.js';
import { createBot, registerUser } from '../support/server.js';
import { type SendLoad, channelHistory, sendLoad, until } from './clusterLoad.js';

await withEngines(['postgres', 'kafka'], 'a cluster’s processes killed under load', () => {
  let cluster: Cluster;
  const bots: BotProcess[] = [];
  const sessions: GatewayClient[] = [];
  beforeAll(async () => {
    cluster = await startCluster();
  });
  // A test that failed midway leaves no load running against a cluster being stopped.
  const loads = new Set<{ stop(): Promise<void> }>();
  // A failed case prints the launcher's output and each process's last log lines: the cluster's directory goes with it.
  beforeEach(({ onTestFailed }) => onTestFailed(async () => console.error(await cluster.report())));
  afterEach(async () => {
    await Promise.all([...loads].map((load) => load.stop()));
    loads.clear();
  });
  afterAll(async () => {
    for (const bot of bots) bot.child.kill('SIGKILL');
    for (const session of sessions) session.close();
    await cluster?.stop();
  });

  /** The pid of the relay that holds the relay lease, from its holder `{hostname}:{pid}:{uuid}` (null: none). */
  async function relayLeaseHolder(): Promise<number | null> {
    const client = new pg.Client({ connectionString: cluster.postgresUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ holder: string }>('SELECT holder FROM leases WHERE name = $1', [RELAY_LEASE]);
      return rows.length ? Number(rows[0].holder.split(':')[1]) : null;
    } finally {
      await client.end();
    }
  }

  /** A send load through the balanced API, stopped after the test whatever its outcome. */
  function loadOn(token: string, channelId: string, senders = 3): SendLoad {
    const load = sendLoad(cluster.api, token, channelId, senders);
    loads.add(load);
    return load;
  }

  /** A key the launcher generated into the cluster's directory. */
  const keyOf = async (file: string) => (await readFile(join(cluster.dir, file), 'utf8')).trim();

  /** The restarted node's new pid, once the launcher says it listens again. */
  async function restarted(name: string, oldPid: number): Promise<number> {
    const line = await cluster.line(new RegExp(`^cluster: ${name} \\(\\w+, PROCESS_ID \\d+\\) pid (?!${oldPid}\\b)(\\d+) listening`), 120_000);
    return Number(line[1]);
  }

  it('kill -9 of the projector mid-load: restarted, it loses and repeats nothing, and its read models equal a rebuild from the log', async () => {
    const owner = await registerUser(cluster.api);
    const guild = await createGuild(cluster.api, owner);
    const load = loadOn(owner.token, guild.channelId);
    await load.after(30);
    const projector = cluster.node('projector');
    process.kill(projector.pid, 'SIGKILL');
    await load.after(10);
    await restarted('projector', projector.pid);
    // Started again at the first try: the launcher gave up what the killed process held, its PROCESS_ID's lease.
    expect(cluster.output()).not.toMatch(/^cluster: projector .* exited \(1\)/m);
    await load.after(30);
    await load.stop();
    expect(load.refused).toEqual([]);

    // Every acknowledged send is read back, once, through an api node.
    const history = await channelHistory(cluster.node('api-2'), owner.token, guild.channelId);
    const ids = history.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(history).toEqual(expect.arrayContaining(load.acknowledged.map(({ id, content }) => expect.objectContaining({ id, content }))));

    // The projector's read models (caught up: the log is quiet now) against a rebuild of the same log elsewhere.
    const secrets = { SECRET_KEY: await keyOf('secret.key'), MASTER_KEY: await keyOf('master.key') };
    const engines = allOnPostgres(cluster.postgresUrl);
    const served = await openToolEngines(loadConfig({ DATA_DIR: join(cluster.dir, 'check'), ...secrets }), engines, createLogger('silent'));
    const rebuiltDatabase = await createTestDatabase('parley_rebuilt');
    const rebuilt = await PostgresReadStore.connect(rebuiltDatabase.url);
    try {
      await until(async () => (await cluster.node('projector').call('GET', '/readyz')).body.projection_lag === 0);
      await rebuildReadModels(served.store, rebuilt, allProjections, new ProgressBar(new Writable({ write: (_, __, done) => done() }) as never, 'rebuild'));
      const incremental = await snapshotReadModels(served.readStore, allProjections);
      expect(incremental.messages.length).toBeGreaterThanOrEqual(load.acknowledged.length);
      expect(await snapshotReadModels(rebuilt, allProjections)).toEqual(incremental);
    } finally {
      await served.close();
      await rebuilt.close();
      await rebuiltDatabase.drop();
    }
  });

  it('kill -9 of the publishing relay: another takes the lease over, and a gateway session sees every send once, its sequence without a gap', async () => {
    const owner = await registerUser(cluster.api);
    const guild = await createGuild(cluster.api, owner);
    const session = await connectGateway({ origin: cluster.node('gateway-1').origin, cert: cluster.cert });
    sessions.push(session);
    await session.identify(owner.token, Intent.GUILDS | Intent.GUILD_MESSAGES | Intent.MESSAGE_CONTENT);
    const load = loadOn(owner.token, guild.channelId, 2);
    await load.after(10);
    const leader = await relayLeaseHolder();
    if (leader === null) throw new Error('no relay holds the relay lease');
    const relay = ['relay', 'relay-standby'].find((name) => cluster.node(name).pid === leader)!;
    process.kill(leader, 'SIGKILL');
    await restarted(relay, leader);
    await until(async () => ![null, leader].includes(await relayLeaseHolder()));
    await load.after(20);
    await load.stop();
    expect(load.refused).toEqual([]);

    for (const { id } of load.acknowledged) await session.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === id, 60_000);
    const created = session.received.filter((p) => p.t === 'MESSAGE_CREATE').map((p) => p.d.id as string);
    expect(new Set(created).size).toBe(created.length);
    const sequence = session.received.filter((p) => p.s != null).map((p) => p.s);
    expect(sequence).toEqual(sequence.map((_, i) => sequence[0]! + i));
  });

  it('kill -9 of a gateway node: discord.js reconnects through the balancer, on the other node, with the current state and every send from then on', async () => {
    const owner = await registerUser(cluster.api);
    const guild = await createGuild(cluster.api, owner);
    const app = await createBot(cluster.api, owner);
    await joinGuild(cluster.api, guild, app, 'Bot');
    const bot = startBotProcess(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'clusterBots.ts')], {
      PARLEY_ORIGIN: cluster.publicBaseUrl,
      BOT_TOKENS: app.token,
      NODE_EXTRA_CA_CERTS: join(cluster.dir, 'tls', 'self-signed.crt'),
    });
    bots.push(bot);
    const first = await bot.next('ready', undefined, 60_000);
    const gatewayNodes = ['gateway-1', 'gateway-2'].map((name) => ({
      name,
      pid: cluster.node(name).pid,
      url: `${cluster.node(name).origin.replace('https:', 'wss:')}/gateway`,
    }));
    const killed = gatewayNodes.find((node) => node.url === first.data.resumeGatewayUrl)!;
    const load = loadOn(owner.token, guild.channelId, 2);
    await load.after(10);
    for (const { id } of load.acknowledged) await bot.next('messageCreate', (d) => d.id === id, 30_000);
    process.kill(killed.pid, 'SIGKILL');
    // Sessions live on their node: discord.js's RESUME finds none elsewhere, and it identifies again, through the
    // balancer, on the node that still runs (or on the killed one's successor, if that came first).
    const again = await bot.next('ready', (d) => d.sessionId !== first.data.sessionId, 60_000);
    expect(again.data.guilds).toContain(guild.id);
    const resumedAt = gatewayNodes.find((node) => node.url === again.data.resumeGatewayUrl);
    expect(resumedAt).toBeDefined();
    // What was sent once READY had come (a send acknowledged later may have been appended before the session began).
    const afterReady = load.started;
    await load.after(10);
    await load.stop();
    expect(load.refused).toEqual([]);
    for (const { id } of load.acknowledged.filter((m) => m.order >= afterReady)) await bot.next('messageCreate', (d) => d.id === id, 60_000);
  });
});
