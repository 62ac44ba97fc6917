// The cluster's engines out of reach under a send load — PostgreSQL restarted, the Kafka broker restarted — and the
// relay paused past its lease: every process rides an outage out without being restarted (the paused relay ends, to
// be started again as a standby), clients are refused with 503 and Retry-After while the log cannot be written (never
// a hang or a 500), /readyz says why, and afterwards every acknowledged write is read back once and reached the
// gateway's sessions once, in sequence. The cluster runs on a PostgreSQL server and a broker of the file's own: the
// machine's are shared by the files running beside it.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { Intent } from '../../gateway/protocol.js';
import { RELAY_LEASE } from '../../infra/bus/relay.js';
import { LEASE_MS } from '../../ports/leases.js';
import { withEngines } from '../contracts/engines.js';
import { ownBroker } from '../contracts/kafkaBroker.js';
import { type PrivatePostgres, onPrivateServer, startPrivatePostgres, withPrivatePostgres } from '../contracts/postgresPrivateServer.js';
import { createGuild } from '../http/guildSupport.js';
import { type Cluster, startCluster } from '../support/cluster.js';
import { type GatewayClient, connectGateway } from '../support/gateway.js';
import { registerUser } from '../support/server.js';
import { type SendLoad, channelHistory, sendLoad, until } from './clusterLoad.js';

const NODES = ['projector', 'relay', 'relay-standby', 'delivery', 'api-1', 'api-2', 'gateway-1', 'gateway-2'];
const DATABASE = 'parley_cluster';

await withEngines(['kafka'], 'a cluster’s engines restarted under load', () =>
  withPrivatePostgres('a cluster’s engines restarted under load', () => {
    let postgres: PrivatePostgres;
    let broker: Awaited<ReturnType<typeof ownBroker>>;
    let cluster: Cluster;
    const sessions: GatewayClient[] = [];
    const heartbeats: NodeJS.Timeout[] = [];
    beforeAll(async () => {
      [postgres, broker] = await Promise.all([startPrivatePostgres(), ownBroker()]);
      await onPrivateServer(postgres, `CREATE DATABASE ${DATABASE}`);
      cluster = await startCluster({ KAFKA_BROKERS: broker.brokers.join(',') }, { name: DATABASE, url: postgres.url(DATABASE), drop: async () => {} });
    });
    // A failed case prints the launcher's output and each process's last log lines: the cluster's directory goes with it.
    beforeEach(({ onTestFailed }) => onTestFailed(async () => console.error(await cluster.report())));
    const loads = new Set<SendLoad>();
    afterEach(async () => {
      await Promise.all([...loads].map((load) => load.stop()));
      loads.clear();
    });
    afterAll(async () => {
      for (const beating of heartbeats) clearInterval(beating);
      for (const session of sessions) session.close();
      await cluster?.stop();
      await Promise.all([postgres?.remove(), broker?.remove()]);
    });

    function loadOn(token: string, channelId: string): SendLoad {
      const load = sendLoad(cluster.api, token, channelId);
      loads.add(load);
      return load;
    }

    /** Every node's pid now: a test checks afterwards that none was restarted. */
    const pids = () => Object.fromEntries(NODES.map((name) => [name, cluster.node(name).pid]));

    /** A guild with a load of sends into it and a gateway session on `gateway` following them. */
    async function guildUnderLoad(gateway: string) {
      const owner = await registerUser(cluster.api);
      const guild = await createGuild(cluster.api, owner);
      const session = await connectGateway({ origin: cluster.node(gateway).origin, cert: cluster.cert });
      sessions.push(session);
      await session.identify(owner.token, Intent.GUILDS | Intent.GUILD_MESSAGES | Intent.MESSAGE_CONTENT);
      // An outage outlasts a heartbeat interval: a session that stopped beating would be closed as a zombie.
      const { d: hello } = await session.next((p) => p.op === 10);
      heartbeats.push(setInterval(() => session.send({ op: 1, d: session.lastSeq() }), hello.heartbeat_interval));
      const load = loadOn(owner.token, guild.channelId);
      await load.after(20);
      return { owner, guild, session, load };
    }

    /** Every acknowledged send read back once through each api node, and dispatched once to the session, its sequence without a gap. */
    async function expectEveryAcknowledgedWrite({ owner, guild, session, load }: Awaited<ReturnType<typeof guildUnderLoad>>) {
      for (const node of ['api-1', 'api-2']) {
        const history = await channelHistory(cluster.node(node), owner.token, guild.channelId);
        const ids = history.map((m) => m.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(history).toEqual(expect.arrayContaining(load.acknowledged.map(({ id, content }) => expect.objectContaining({ id, content }))));
      }
      for (const { id } of load.acknowledged) await session.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === id, 60_000);
      const created = session.received.filter((p) => p.t === 'MESSAGE_CREATE').map((p) => p.d.id as string);
      expect(new Set(created).size).toBe(created.length);
      const sequence = session.received.filter((p) => p.s != null).map((p) => p.s);
      expect(sequence).toEqual(sequence.map((_, i) => sequence[0]! + i));
    }

    /** Each node's /readyz comes to say, with 503, that an engine cannot be reached, and why. */
    async function expectUnready(nodes: string[]) {
      for (const node of nodes) {
        await until(async () => (await cluster.node(node).call('GET', '/readyz')).status === 503);
        expect((await cluster.node(node).call('GET', '/readyz')).body).toEqual({ status: 'engine unreachable', reason: expect.any(String) });
      }
    }

    /** Every node's /readyz comes back to 200. */
    async function allReady(timeoutMs?: number) {
      for (const node of NODES) await until(async () => (await cluster.node(node).call('GET', '/readyz')).status === 200, timeoutMs);
    }

    it('PostgreSQL restarted: sends are refused with 503 and Retry-After meanwhile, /readyz says why, and every process serves again unrestarted', async () => {
      const before = pids();
      const run = await guildUnderLoad('gateway-2');
      await postgres.stop();
      try {
        await run.load.refusedMore(10);
        await expectUnready(['api-1', 'api-2', 'projector']);
      } finally {
        await postgres.start();
      }
      await allReady();
      await run.load.after(20);
      await run.load.stop();
      expect(run.load.refused.length).toBeGreaterThan(0);
      for (const refusal of run.load.refused) {
        expect(refusal).toMatchObject({ status: 503, retryAfter: expect.stringMatching(/^\d+$/) });
      }
      await expectEveryAcknowledgedWrite(run);
      expect(pids()).toEqual(before);
    });

    it('the Kafka broker restarted: sends are acknowledged throughout, the relay and gateways say they cannot reach it, and every send reaches the session once it is back', async () => {
      const before = pids();
      const run = await guildUnderLoad('gateway-1');
      await broker.stop();
      try {
        await run.load.after(20);
        await expectUnready(['relay', 'gateway-1', 'gateway-2']);
      } finally {
        await broker.start();
      }
      await allReady(120_000);
      await run.load.after(20);
      await run.load.stop();
      expect(run.load.refused).toEqual([]);
      await expectEveryAcknowledgedWrite(run);
      expect(pids()).toEqual(before);
    });

    it('the publishing relay paused past its lease: the standby takes it over, and the paused one, continued, publishes nothing more', async () => {
      const run = await guildUnderLoad('gateway-2');
      const leader = await leaseHolder(postgres);
      const [paused, standby] = cluster.node('relay').pid === leader ? ['relay', 'relay-standby'] : ['relay-standby', 'relay'];
      process.kill(leader, 'SIGSTOP');
      try {
        await until(async () => (await leaseHolder(postgres)) === cluster.node(standby).pid, LEASE_MS * 3);
      } finally {
        process.kill(leader, 'SIGCONT');
      }
      // The continued relay finds the lease gone, says so and ends, for its supervisor (the launcher) to start it again
      // as a standby: the standby that took over keeps the lease and publishes on.
      const said = /the relay lease may have run out|another relay took the relay lease/;
      await until(async () => said.test(await readFile(join(cluster.dir, 'logs', `${paused}.log`), 'utf8')));
      await cluster.line(new RegExp(`^cluster: ${paused} \\(relay\\) pid ${leader} exited`));
      await run.load.after(20);
      await run.load.stop();
      expect(run.load.refused).toEqual([]);
      expect(await leaseHolder(postgres)).toBe(cluster.node(standby).pid);
      await expectEveryAcknowledgedWrite(run);
    });

    /** The pid of the relay holding the relay lease, from its holder `{hostname}:{pid}:{uuid}`. */
    async function leaseHolder(server: PrivatePostgres): Promise<number> {
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: server.url(DATABASE) });
      await client.connect();
      try {
        const { rows } = await client.query<{ holder: string }>('SELECT holder FROM leases WHERE name = $1', [RELAY_LEASE]);
        if (!rows.length) throw new Error('no relay holds the relay lease');
        return Number(rows[0].holder.split(':')[1]);
      } finally {
        await client.end();
      }
    }
  }),
);
