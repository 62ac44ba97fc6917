// `npm run bench:cluster`: the distributed mode's figures, beside the embedded default and the koa echo measured in
// the same run, on loopback. It starts `npm run cluster` (infra/cluster.ts: two api nodes, two gateway nodes, a
// projector, a relay and its standby, a delivery worker, on PostgreSQL and Kafka behind the launcher's TCP balancers)
// on a database of its own (BENCH_POSTGRES_URL's server, default 127.0.0.1:5432, database parley_bench_cluster_<random>,
// dropped afterwards with the run's Kafka topics and groups), the embedded default (`infra/main.ts` on a temporary
// DATA_DIR) and the ceiling (bench/ceiling.ts), all at once, and measures:
//  1. durable sends, POST /api/v1/channels/:id/messages by four members from BENCH_CONNECTIONS connections (64),
//     against the koa echo, the embedded default, one api node (api-1's own port) and the API's balancer (both api
//     nodes), in BENCH_ROUNDS rounds (2) whose order alternates, so a machine whose load drifts favours none;
//  2. where the time goes over each of those loads: the CPU each process used (/proc/<pid>/stat: every cluster
//     process, the launcher with its balancers, the PostgreSQL backends of the run's database and PostgreSQL's
//     background processes, the Kafka broker's JVM, this process with autocannon), as cores busy and CPU ms a send;
//     and TLS's part: the CPU a request costs the koa echo (TLS, HTTP and JSON, nothing else) and the record
//     encryption of a request and its answer alone (AES-256-GCM, TLS 1.3's default suite, timed here);
//  3. POST → MESSAGE_CREATE p50/p99 at BENCH_CLUSTER_SESSIONS sessions (1000) split over the two gateway nodes (each
//     session connected to a node's own address), BENCH_MESSAGES (100) messages sent one at a time through the API's
//     balancer, beside the same on the embedded default; and the CPU of each process over that phase.
// `npm run bench:cluster -- --quick`: the smoke run test/bench/cluster.test.ts runs (8 connections, 2 s loads, one
// round, 20 sessions, 10 messages). Prints markdown tables and writes bench/results/cluster.json (BENCH_RESULTS
// names another file). Nothing here asserts a figure: it only fails if a step cannot run.
import { type ChildProcess, spawn } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import type WebSocket from 'ws';
import {
  type Load,
  type Process,
  LAUNCHER,
  ROOT,
  apiClient,
  benchGuild,
  connectAll,
  cpuSecondsOf,
  gatewaySession,
  loader,
  markdownTable,
  percentiles,
  rssOf,
  startCeiling,
  startParley,
  stop,
  benchSize,
  loadSizes,
} from './harness.js';

const QUICK = process.argv.includes('--quick');
const size = benchSize(QUICK);
const { connections: CONNECTIONS, duration: DURATION, warmup: WARMUP } = loadSizes(size);
const ROUNDS = size('BENCH_ROUNDS', 2, 1);
const SESSIONS = size('BENCH_CLUSTER_SESSIONS', 1000, 20);
const MESSAGES = size('BENCH_MESSAGES', 100, 10);
const SENDERS = 4;
const INTENTS = (1 << 0) | (1 << 9) | (1 << 15);
const RESULTS = process.env.BENCH_RESULTS ?? join(import.meta.dirname, 'results', 'cluster.json');
const KAFKA_BROKERS = (process.env.KAFKA_BROKERS || '127.0.0.1:9092').split(',');
/**
 * An outer bound only: eight processes starting at once on a loaded 2-core machine take minutes, and the launcher
 * gives each start 180 s and three tries.
 */
const CLUSTER_READY_MS = 900_000;
const load = loader({ connections: CONNECTIONS, duration: DURATION, warmup: WARMUP });

/** The launcher and what it said of each process: name → pid and address. */
interface Cluster {
  launcher: ChildProcess;
  dir: string;
  ca: string;
  apiBalancer: string;
  nodes: Map<string, { pid: number; origin: string }>;
}

/** `launched` is told of the launcher at once, so that a run stopped while the cluster starts stops it too. */
async function startCluster(postgresUrl: string, launched: (launcher: Pick<Cluster, 'launcher' | 'dir'>) => void): Promise<Cluster> {
  const dir = await mkdtemp(join(tmpdir(), 'parley-bench-cluster-'));
  // As `npm run cluster` starts it: its processes get the launcher's allocator.
  const launcher = spawn(LAUNCHER, ['--import', 'tsx', 'infra/cluster.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE: process.execPath,
      CLUSTER_DIR: dir,
      CLUSTER_BASE_PORT: '0',
      POSTGRES_URL: postgresUrl,
      KAFKA_BROKERS: KAFKA_BROKERS.join(','),
      LOG_LEVEL: 'info',
      GATEWAY_HEARTBEAT_MS: '600000',
      KAFKAJS_NO_PARTITIONER_WARNING: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  launched({ launcher, dir });
  const nodes = new Map<string, { pid: number; origin: string }>();
  let output = '';
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the cluster was not ready within ${CLUSTER_READY_MS / 1000} s:\n${output}`)), CLUSTER_READY_MS);
    const read = (chunk: Buffer) => {
      // Keep reading for as long as it runs (a full pipe would block it); keep only the launcher's own lines' tail.
      output = (output + chunk.toString()).slice(-20_000);
      for (const [, name, pid, origin] of chunk.toString().matchAll(/^cluster: (\S+) \(\w+, PROCESS_ID \d+\) pid (\d+) listening (\S+)/gm))
        nodes.set(name, { pid: Number(pid), origin });
      const match = /^cluster: ready: the API at (\S+)\/api\/v10/m.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    launcher.stdout!.on('data', read);
    launcher.stderr!.on('data', read);
    launcher.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the cluster's launcher exited (${code}) before it was ready:\n${output}`));
    });
  });
  try {
    const apiBalancer = await ready;
    return { launcher, dir, ca: await readFile(join(dir, 'tls', 'self-signed.crt'), 'utf8'), apiBalancer, nodes };
  } catch (error) {
    await stopCluster({ launcher, dir });
    throw error;
  }
}

/** SIGTERM to the launcher, which stops every process gracefully; SIGKILL to it after 60 s. */
async function stopCluster(cluster: Pick<Cluster, 'launcher' | 'dir'>): Promise<void> {
  if (cluster.launcher.exitCode === null && cluster.launcher.signalCode === null) {
    const exited = new Promise((resolve) => cluster.launcher.once('exit', resolve));
    cluster.launcher.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 60_000))]);
    if (cluster.launcher.exitCode === null) cluster.launcher.kill('SIGKILL');
  }
  await rm(cluster.dir, { recursive: true, force: true });
}

async function admin(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The run's topics and consumer groups, all named after its database (infra/cluster.ts's KAFKA_TOPIC and client id). */
async function dropKafkaLeftovers(database: string): Promise<void> {
  const kafkaAdmin = new Kafka({ clientId: 'parley-bench', brokers: KAFKA_BROKERS, logLevel: logLevel.NOTHING }).admin();
  await kafkaAdmin.connect();
  try {
    const prefix = `parley.${database}`;
    const groups = (await kafkaAdmin.listGroups()).groups.map((g) => g.groupId).filter((id) => id.startsWith(prefix));
    if (groups.length) await kafkaAdmin.deleteGroups(groups).catch(() => {});
    const topics = (await kafkaAdmin.listTopics()).filter((topic) => topic === prefix || topic.startsWith(`${prefix}.`));
    if (topics.length) await kafkaAdmin.deleteTopics({ topics });
  } finally {
    await kafkaAdmin.disconnect();
  }
}

/** The processes whose CPU is counted, by name; PostgreSQL's backends are found anew at each sample (pools grow). */
interface Watched {
  pids: Map<string, number>;
  postgres: pg.Client;
  database: string;
}

type CpuSample = { at: number; byName: Map<string, number>; postgres: Map<number, { cpu: number; kind: string }> };

async function sampleCpu(watched: Watched): Promise<CpuSample> {
  const at = performance.now();
  const byName = new Map<string, number>();
  for (const [name, pid] of watched.pids) byName.set(name, (await cpuSecondsOf(pid)) ?? NaN);
  const own = process.cpuUsage();
  byName.set('bench (autocannon, clients)', (own.user + own.system) / 1e6);
  const { rows } = await watched.postgres.query<{ pid: number; datname: string | null; backend_type: string }>(
    `SELECT pid, datname, backend_type FROM pg_stat_activity WHERE (datname = $1 AND pid <> pg_backend_pid()) OR datname IS NULL`,
    [watched.database],
  );
  const postgres = new Map<number, { cpu: number; kind: string }>();
  for (const row of rows) {
    const cpu = await cpuSecondsOf(row.pid);
    if (cpu !== null) postgres.set(row.pid, { cpu, kind: row.datname ? 'PostgreSQL: backends of the run database' : 'PostgreSQL: background (shared)' });
  }
  return { at, byName, postgres };
}

/** Each process's CPU between two samples, as cores busy (CPU s / wall s). A backend born between them counts whole. */
function cpuBetween(before: CpuSample, after: CpuSample): { seconds: number; cores: Record<string, number> } {
  const seconds = (after.at - before.at) / 1000;
  const cores: Record<string, number> = {};
  for (const [name, cpu] of after.byName) cores[name] = (cpu - (before.byName.get(name) ?? NaN)) / seconds;
  for (const [pid, { cpu, kind }] of after.postgres) cores[kind] = (cores[kind] ?? 0) + (cpu - (before.postgres.get(pid)?.cpu ?? 0)) / seconds;
  return { seconds, cores };
}

/** The pid of the JVM running kafka.Kafka on this machine, if any (the broker is shared: its CPU is everyone's). */
async function kafkaPid(): Promise<number | null> {
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes('\0kafka.Kafka\0')) return Number(entry);
  }
  return null;
}

/** An owner, a guild, its text channel, SENDERS members, and bots for `sessions` gateway sessions, all through `origin`. */
async function seed(origin: string, ca: string, sessions: number) {
  const client = apiClient(origin, ca);
  const { json } = client;
  const { ownerToken, channelId, senders, bots } = await benchGuild(json, { senders: SENDERS, sessions, suffix: randomBytes(3).toString('hex') });
  return { client, owner: ownerToken, channelId, senders, bots };
}
type Seeded = Awaited<ReturnType<typeof seed>>;

/**
 * POST → MESSAGE_CREATE at SESSIONS sessions, each on the gateway address `gatewayFor(i)` gives session i, over MESSAGES
 * sends one at a time through the seeded API; arrivals counted by address. `around.connected` runs once every session
 * is connected, `around.sent` after the last send's deliveries, its sessions still connected.
 */
async function delivery(seeded: Seeded, gatewayFor: (i: number) => string, around?: { connected(): Promise<void>; sent(): Promise<void> }) {
  const arrivals = new Map<string, number[]>();
  const byGateway = new Map<string, number>();
  const sockets: WebSocket[] = await connectAll(seeded.bots, SESSIONS, (token, i) => {
    const url = gatewayFor(i);
    return gatewaySession(`${url}?v=10&encoding=json`, token, INTENTS, (t, d) => {
      if (t !== 'MESSAGE_CREATE') return;
      arrivals.set(d.content, [...(arrivals.get(d.content) ?? []), performance.now()]);
      byGateway.set(url, (byGateway.get(url) ?? 0) + 1);
    });
  });
  await around?.connected();
  const deliveries: number[] = [];
  const roundTrips: number[] = [];
  for (let i = 0; i < MESSAGES; i++) {
    const content = `cluster bench ${i}`;
    const sentAt = performance.now();
    await seeded.client.api('POST', `/channels/${seeded.channelId}/messages`, seeded.owner, { content });
    roundTrips.push(performance.now() - sentAt);
    const deadline = Date.now() + 10_000;
    while ((arrivals.get(content)?.length ?? 0) < SESSIONS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
    for (const at of arrivals.get(content) ?? []) deliveries.push(at - sentAt);
  }
  await around?.sent();
  for (const ws of sockets) ws.terminate();
  return {
    sessions: SESSIONS,
    messages: MESSAGES,
    expected: SESSIONS * MESSAGES,
    byGateway: Object.fromEntries(byGateway),
    ...percentiles(deliveries),
    roundTrip: percentiles(roundTrips),
  };
}

/**
 * Microseconds a byte of AES-256-GCM (TLS 1.3's default suite) takes here, in 16 KiB records under one key as a TLS
 * connection seals them: the record encryption's own cost, without Node's TLS stream around it.
 */
function gcmMicrosPerByte(): number {
  const key = randomBytes(32);
  const record = randomBytes(16_384);
  const records = 4096;
  const run = (count: number) => {
    const cipher = createCipheriv('aes-256-gcm', key, randomBytes(12));
    for (let i = 0; i < count; i++) cipher.update(record);
    cipher.final();
  };
  run(256);
  // CPU time, not the clock's: on a loaded machine the clock also counts the time other processes ran.
  const started = process.cpuUsage();
  run(records);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / (records * record.length);
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

async function main() {
  const startedAt = new Date();
  const t0 = performance.now();
  const say = (line: string) => console.error(`[${((performance.now() - t0) / 1000).toFixed(0)} s] ${line}`);
  const loadBefore = loadavg();
  const server = new URL(process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
  const database = `parley_bench_cluster_${randomBytes(4).toString('hex')}`;
  const postgresUrl = Object.assign(new URL(server), { pathname: `/${database}` }).toString();
  const serverUrl = Object.assign(new URL(server), { pathname: '/postgres' }).toString();
  let cluster: Pick<Cluster, 'launcher' | 'dir'> | undefined;
  let embedded: Process | undefined;
  let ceiling: Process | undefined;
  const closers: (() => Promise<unknown>)[] = [];
  let cleaning: Promise<void> | undefined;
  // Everything this run started is stopped, and its database and topics removed, whether it ends, fails or is stopped.
  const cleanUp = () =>
    (cleaning ??= (async () => {
      for (const close of closers) await close().catch(() => {});
      if (cluster) await stopCluster(cluster);
      if (embedded) await stop(embedded);
      if (ceiling) await stop(ceiling);
      await admin(serverUrl, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch((error: Error) => say(`could not drop ${database}: ${error.message}`));
      await dropKafkaLeftovers(database).catch((error: Error) => say(`could not delete the run's Kafka topics: ${error.message}`));
    })());
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      say(`${signal}: stopping what the run started…`);
      void cleanUp().then(() => process.exit(1));
    });
  try {
    say(`starting the cluster (database ${database}), the embedded default and the koa echo…`);
    // One after another: eight processes starting at once on 2 cores keep a ninth from listening within its 30 s.
    embedded = await startParley();
    ceiling = await startCeiling(Buffer.from('[]'));
    const started = await startCluster(postgresUrl, (launcher) => (cluster = launcher));
    cluster = started;
    const node = (name: string) => {
      const found = started.nodes.get(name);
      if (!found) throw new Error(`the launcher named no ${name}`);
      return found;
    };
    const postgres = new pg.Client({ connectionString: postgresUrl });
    await postgres.connect();
    closers.push(() => postgres.end());
    const kafka = await kafkaPid();
    const watched: Watched = {
      pids: new Map([
        ...[...started.nodes].map(([name, { pid }]) => [name, pid] as const),
        ['launcher (the two TCP balancers)', started.launcher.pid!],
        ['embedded default', embedded.child.pid!],
        ['koa echo', ceiling.child.pid!],
        ...(kafka === null ? [] : [['Kafka broker (JVM, shared)', kafka] as const]),
      ]),
      postgres,
      database,
    };

    say('seeding: users, guilds, senders, bots…');
    const onCluster = await seed(started.apiBalancer, started.ca, SESSIONS);
    const onEmbedded = await seed(embedded.origin, embedded.ca, SESSIONS);
    closers.push(onCluster.client.close, onEmbedded.client.close);

    // 1. The four loads, in rounds whose order alternates; each load's CPU, process by process.
    const body = JSON.stringify({ content: 'a benchmark message of ordinary length, sent at 64 concurrent' });
    const sends = (seeded: Seeded) => {
      let turn = 0;
      return { method: 'POST' as const, body, headers: () => ({ authorization: `Bearer ${seeded.senders[turn++ % seeded.senders.length]}` }) };
    };
    const targets = [
      { key: 'echo', run: () => load(ceiling!, '/echo', { method: 'POST', body }) },
      { key: 'embedded', run: () => load(embedded!, `/api/v1/channels/${onEmbedded.channelId}/messages`, sends(onEmbedded)) },
      {
        key: 'oneNode',
        run: () => load({ origin: node('api-1').origin, ca: started.ca }, `/api/v1/channels/${onCluster.channelId}/messages`, sends(onCluster)),
      },
      {
        key: 'balancer',
        run: () => load({ origin: started.apiBalancer, ca: started.ca }, `/api/v1/channels/${onCluster.channelId}/messages`, sends(onCluster)),
      },
    ] as const;
    type Key = (typeof targets)[number]['key'];
    const loads: Record<Key, Load[]> = { echo: [], embedded: [], oneNode: [], balancer: [] };
    const cpu: Record<Key, ReturnType<typeof cpuBetween>[]> = { echo: [], embedded: [], oneNode: [], balancer: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const target of round % 2 ? [...targets].reverse() : targets) {
        say(`round ${round + 1}/${ROUNDS}: ${target.key}, ${CONNECTIONS} connections, ${WARMUP} + ${DURATION} s…`);
        const before = await sampleCpu(watched);
        loads[target.key].push(await target.run());
        cpu[target.key].push(cpuBetween(before, await sampleCpu(watched)));
      }
    }

    // 2. Deliveries: the cluster's sessions alternate between the gateway nodes' own addresses.
    const gateways = ['gateway-1', 'gateway-2'].map((name) => `${node(name).origin.replace('https', 'wss')}/gateway`);
    say(`POST → MESSAGE_CREATE on the cluster: ${SESSIONS} sessions over two gateway nodes, ${MESSAGES} messages…`);
    // Each process's resident memory with the sessions still connected, after all the loads.
    const rssMiB: Record<string, number> = {};
    let beforeDelivery: CpuSample;
    let deliveryCpu!: ReturnType<typeof cpuBetween>;
    const clusterDelivery = await delivery(onCluster, (i) => gateways[i % 2], {
      connected: async () => void (beforeDelivery = await sampleCpu(watched)),
      sent: async () => {
        deliveryCpu = cpuBetween(beforeDelivery, await sampleCpu(watched));
        for (const [name, pid] of watched.pids) rssMiB[name] = (await rssOf(pid).catch(() => NaN)) / 2 ** 20;
      },
    });
    say(`POST → MESSAGE_CREATE on the embedded default: ${SESSIONS} sessions, ${MESSAGES} messages…`);
    const embeddedDelivery = await delivery(onEmbedded, () => `${embedded!.origin.replace('https', 'wss')}/gateway`);

    // 3. TLS's own part of a send: its records sealed (the request and the answer; opening costs the same).
    const requestBytes = 300 + body.length;
    // The answer is the same message object from either deployment; the embedded's loads always complete some.
    const responseBytes = Math.round(mean(loads.embedded.map((l) => l.bytesPerResponse)));
    const tls = { requestBytes, responseBytes, gcmMicrosPerRequest: gcmMicrosPerByte() * (requestBytes + responseBytes) };

    const summary = (key: Key) => ({
      rounds: loads[key],
      // Answers a second are not sends a second: a loaded process refuses what it cannot admit at once (503).
      reqPerS: mean(loads[key].map((l) => (l.total - l.non2xx) / l.durationS)),
      p50Ms: mean(loads[key].map((l) => l.p50Ms)),
      p99Ms: mean(loads[key].map((l) => l.p99Ms)),
      non2xx: loads[key].reduce((sum, l) => sum + l.non2xx, 0),
      refused: loads[key].reduce((sum, l) => sum + (l.statuses['503'] ?? 0), 0),
      errors: loads[key].reduce((sum, l) => sum + l.errors, 0),
      cpu: cpu[key],
    });
    const results = {
      date: startedAt.toISOString(),
      mode: QUICK ? 'quick' : 'default',
      machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, loadavgBefore: loadBefore, loadavgAfter: loadavg() },
      options: { connections: CONNECTIONS, durationS: DURATION, warmupS: WARMUP, rounds: ROUNDS, sessions: SESSIONS, messages: MESSAGES, senders: SENDERS },
      echo: summary('echo'),
      embedded: summary('embedded'),
      oneNode: summary('oneNode'),
      balancer: summary('balancer'),
      clusterDelivery: { ...clusterDelivery, cpu: deliveryCpu },
      rssMiB,
      embeddedDelivery,
      tls,
      runS: (performance.now() - t0) / 1000,
    };
    await mkdir(dirname(RESULTS), { recursive: true });
    await writeFile(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
    console.log(tables(results));
    console.log(
      `\n${results.mode} run, ${results.runS.toFixed(0)} s; load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${results.machine.loadavgAfter.map((l) => l.toFixed(2)).join(' ')} after (${results.machine.cpus} CPUs); JSON in ${RESULTS}`,
    );
  } finally {
    await cleanUp();
  }
}

type Summary = { reqPerS: number; p50Ms: number; p99Ms: number; non2xx: number; refused: number; errors: number; cpu: ReturnType<typeof cpuBetween>[] };
type Delivery = Awaited<ReturnType<typeof delivery>>;
type Results = {
  options: { connections: number; rounds: number };
  echo: Summary;
  embedded: Summary;
  oneNode: Summary;
  balancer: Summary;
  clusterDelivery: Delivery & { cpu: ReturnType<typeof cpuBetween> };
  rssMiB: Record<string, number>;
  embeddedDelivery: Delivery;
  tls: { requestBytes: number; responseBytes: number; gcmMicrosPerRequest: number };
};

/** The throughput and latency rows, then where the CPU went during each cluster phase. */
function tables(r: Results): string {
  const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(v < 10 ? 1 : 0) : '–');
  const x = (v: number) => (Number.isFinite(v) && v > 0 ? `${v.toFixed(2)}×` : '–');
  const sendRow = (figure: string, s: Summary, comparison: string) => [
    figure,
    `${r.options.connections}`,
    s.reqPerS.toFixed(0),
    s.reqPerS > 0 ? ms(s.p50Ms) : '–',
    s.reqPerS > 0 ? ms(s.p99Ms) : '–',
    `${s.refused}`,
    `${s.non2xx - s.refused}`,
    `${s.errors}`,
    comparison,
  ];
  const vs = (s: Summary) => `${x(s.reqPerS / r.embedded.reqPerS)} embedded, ${x(s.reqPerS / r.echo.reqPerS)} echo`;
  const deliveryRow = (figure: string, d: Delivery) => [
    `${figure} (${d.count}/${d.expected} deliveries)`,
    '1',
    '–',
    ms(d.p50Ms),
    ms(d.p99Ms),
    '–',
    '–',
    '–',
    `POST round trip p50 ${ms(d.roundTrip.p50Ms)}, p99 ${ms(d.roundTrip.p99Ms)} ms`,
  ];
  const split = Object.values(r.clusterDelivery.byGateway).join(' + ');
  const figures = markdownTable([
    ['figure (mean of rounds)', 'conc.', '2xx/s', 'p50 ms', 'p99 ms', '503', 'other non-2xx', 'errors', 'vs (same run)'],
    sendRow('koa echo `POST /echo` (ceiling)', r.echo, 'ceiling'),
    sendRow('durable sends, embedded default', r.embedded, `${x(r.embedded.reqPerS / r.echo.reqPerS)} echo`),
    sendRow('durable sends, cluster, one api node (api-1)', r.oneNode, vs(r.oneNode)),
    sendRow('durable sends, cluster, API balancer (api-1 + api-2)', r.balancer, `${vs(r.balancer)}, ${x(r.balancer.reqPerS / r.oneNode.reqPerS)} one node`),
    deliveryRow(`POST → MESSAGE_CREATE, embedded, ${r.embeddedDelivery.sessions} sessions`, r.embeddedDelivery),
    deliveryRow(`POST → MESSAGE_CREATE, cluster, ${r.clusterDelivery.sessions} sessions on 2 gateway nodes (${split})`, r.clusterDelivery),
  ]);
  // Cores busy per process, averaged over the rounds. A request's CPU counts what each process used above its idle,
  // its least busy phase (the cluster idles while the echo and the embedded default are loaded, and they meanwhile).
  const deliveredPerS = r.clusterDelivery.count / r.clusterDelivery.cpu.seconds;
  const phases: [string, ReturnType<typeof cpuBetween>[], number][] = [
    ['echo', r.echo.cpu, r.echo.reqPerS],
    ['embedded', r.embedded.cpu, r.embedded.reqPerS],
    ['one api node', r.oneNode.cpu, r.oneNode.reqPerS],
    ['balancer', r.balancer.cpu, r.balancer.reqPerS],
    ['deliveries', [r.clusterDelivery.cpu], deliveredPerS],
  ];
  const coresOf = (samples: ReturnType<typeof cpuBetween>[], name: string) => mean(samples.map((s) => s.cores[name] ?? 0));
  const names = [...new Set(phases.flatMap(([, samples]) => samples.flatMap((s) => Object.keys(s.cores))))];
  const idle = new Map(names.map((name) => [name, Math.min(...phases.map(([, samples]) => coresOf(samples, name)))]));
  const msPerRequest = (samples: ReturnType<typeof cpuBetween>[], perS: number, of: string[]) =>
    perS > 0 ? ((of.reduce((sum, name) => sum + coresOf(samples, name) - idle.get(name)!, 0) / perS) * 1000).toFixed(2) : '–';
  const outside = ['embedded default', 'koa echo', 'bench (autocannon, clients)'];
  const clusterSide = names.filter((name) => !outside.includes(name));
  const servers = [['koa echo'], ['embedded default'], ['api-1'], ['api-1', 'api-2'], ['gateway-1', 'gateway-2']];
  const behind = [['koa echo'], ['embedded default'], clusterSide, clusterSide, clusterSide];
  const rss = (name: string) => (Number.isFinite(r.rssMiB[name]) ? r.rssMiB[name].toFixed(0) : '–');
  const rows = names.map((name) => [name, ...phases.map(([, samples]) => coresOf(samples, name)).map((c) => (c < 0.005 ? '·' : c.toFixed(2))), rss(name)]);
  const cpuTable = markdownTable([
    ['cores busy', ...phases.map(([phase]) => phase), 'RSS MiB, sessions connected'],
    ...rows.filter((row) => row.slice(1, -1).some((c) => c !== '·')),
    [
      'CPU ms a request (a delivered dispatch), above idle: the server(s)',
      ...phases.map(([, samples, perS], p) => msPerRequest(samples, perS, servers[p])),
      '–',
    ],
    ['the same with every process behind them and the engines', ...phases.map(([, samples, perS], p) => msPerRequest(samples, perS, behind[p])), '–'],
  ]);
  const echoCpuMs = msPerRequest(r.echo.cpu, r.echo.reqPerS, ['koa echo']);
  const tlsLine =
    `TLS: the koa echo spends ${echoCpuMs} CPU ms a request on TLS, HTTP and JSON together; AES-256-GCM, sealing a ` +
    `${r.tls.requestBytes} B request and its ${r.tls.responseBytes} B answer in 16 KiB records, takes ` +
    `${r.tls.gcmMicrosPerRequest.toFixed(2)} µs here (opening them about as much); the handshakes are ${r.options.connections} ` +
    `a load (keep-alive). The balancers pass TLS through; PostgreSQL and Kafka are reached without TLS on loopback.`;
  return `${figures}\n\n${cpuTable}\n\n${tlsLine}`;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
