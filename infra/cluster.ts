// `npm run cluster`: the distributed mode on one machine, each role a process of its own on PostgreSQL and Kafka —
// two api nodes, two gateway nodes, a projector, a relay and a standby relay, and a delivery worker — on consecutive
// ports from CLUSTER_BASE_PORT, behind two TCP balancers (the API's and the gateway's public addresses), sharing the
// secrets and the certificate generated once into CLUSTER_DIR. It restarts a process that ends without being asked to
// (as a supervisor would: a distributed role ends on a fatal error to be restarted), and SIGINT or SIGTERM stops them
// all gracefully before it exits. docs/distributed.md: "A cluster on one machine".
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { type Server, type Socket, connect, createServer } from 'node:net';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { integer } from './config.js';
import { PRIVATE_DIR } from './dataDir.js';
import type { Role } from './engines.js';
import { LEASES } from './leases/postgres.js';
import { keyFileText } from './secrets.js';
import { loadTls } from './tls.js';

/** One process of the cluster: its name, role, snowflake process id and port. */
export interface ClusterNode {
  name: string;
  role: Exclude<Role, 'all'>;
  processId: number;
  port: number;
}

/** The ports before the nodes': the balancers in front of the api nodes and of the gateway nodes. */
const BALANCERS = 2;

/** The processes `npm run cluster` starts, in start order, on consecutive ports after the balancers'. */
export function clusterNodes(basePort: number): ClusterNode[] {
  const roles: [string, ClusterNode['role']][] = [
    ['projector', 'projector'],
    ['relay', 'relay'],
    ['relay-standby', 'relay'],
    ['delivery', 'delivery'],
    ['api-1', 'api'],
    ['api-2', 'api'],
    ['gateway-1', 'gateway'],
    ['gateway-2', 'gateway'],
  ];
  // Process id 0 is left to a ROLE=all server or a replay tool run beside the cluster.
  return roles.map(([name, role], i) => ({ name, role, processId: i + 1, port: basePort + BALANCERS + i }));
}

/** How long a process may take to say it listens: tsx's first start of eight processes on 2 cores is slow. */
const START_TIMEOUT_MS = 180_000;
/** A process that ended on its own is started again after this long, doubling while it keeps failing to start. */
const RESTART_DELAY_MS = 1000;
const RESTART_DELAY_MAX_MS = 30_000;
/** The last bytes of a process's output kept to explain a start that failed. */
const OUTPUT_TAIL = 4000;

const repoRoot = resolve(import.meta.dirname, '..');
const say = (line: string) => process.stdout.write(`cluster: ${line}\n`);

interface Settings {
  dir: string;
  host: string;
  basePort: number;
  postgresUrl: string;
  kafkaBrokers: string;
}

function loadSettings(env: NodeJS.ProcessEnv): Settings {
  return {
    dir: resolve(env.CLUSTER_DIR || './data/cluster'),
    host: env.HOST || '127.0.0.1',
    // 0: a free block of consecutive ports below the ephemeral range (tests run clusters side by side).
    basePort: integer(env, 'CLUSTER_BASE_PORT', 8443, 0, 65535 - BALANCERS - clusterNodes(0).length),
    postgresUrl: env.POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/parley_cluster',
    kafkaBrokers: env.KAFKA_BROKERS || '127.0.0.1:9092',
  };
}

/**
 * Creates the cluster's database when it is missing, ordering text by its bytes as the read store requires; its name,
 * and the server's max_connections.
 */
async function ensureDatabase(url: string): Promise<{ name: string; maxConnections: number }> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`POSTGRES_URL must name a database of letters, digits and _, got "${name}"`);
  const server = new URL(url);
  server.pathname = '/postgres';
  const client = new pg.Client({ connectionString: server.toString(), connectionTimeoutMillis: 10_000 });
  await client.connect().catch((error: Error) => {
    throw new Error(`PostgreSQL does not answer at ${server.host}: ${error.message}`);
  });
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      await client.query(`CREATE DATABASE ${name} TEMPLATE template0 LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'`);
      say(`created the database ${name}`);
    }
    const { rows } = await client.query<{ max_connections: string }>('SHOW max_connections');
    return { name, maxConnections: Number(rows[0].max_connections) };
  } finally {
    await client.end();
  }
}

/**
 * The size of each of a process's two PostgreSQL pools (the log's, the read store's) so that the cluster at its busiest,
 * with each process's LISTEN connection, takes at most half the server's connections, leaving the rest to other
 * clients (psql, the replay tool, another cluster): pg's default of 10 a pool made eight processes under load ask for
 * more than PostgreSQL's default 100, and the requests that met "too many clients" failed.
 */
function poolSizeFor(maxConnections: number, processes: number): number {
  return Math.max(1, Math.floor((maxConnections / 2 - processes) / (2 * processes)));
}

/** Whether `port` can be listened on at `host` now. */
function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, host, () => server.close(() => done(true)));
  });
}

/**
 * How often a process may fail to start before the launcher gives up: a start can fail on what another process is
 * doing at that moment (a topic being created by another had no partition leader yet), as under any supervisor.
 */
const START_ATTEMPTS = 3;

/** Where the system's ephemeral ports start (Linux says; 49152, IANA's, elsewhere). */
function ephemeralPortsFrom(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 49_152;
  } catch {
    return 49_152;
  }
}

/**
 * A base port whose block of `count` ports is free, below the ephemeral range: a block among the ephemeral ports
 * could be handed to another program's connection or port-0 listener while the processes start (it was, in tests).
 */
async function freeBlock(host: string, count: number): Promise<number> {
  const from = 10_000;
  const to = ephemeralPortsFrom() - count;
  for (let attempt = 0; attempt < 50 && to > from; attempt++) {
    const base = from + Math.floor(Math.random() * (to - from));
    let free = true;
    for (let port = base; port < base + count && free; port++) free = await portFree(host, port);
    if (free) return base;
  }
  throw new Error(`no ${count} consecutive free ports found on ${host}: set CLUSTER_BASE_PORT`);
}

/**
 * What a load balancer does in front of a deployment, at its simplest: each connection goes to the next of `ports` in
 * turn, or, when that one does not answer (stopped, restarting), to the one after. TLS passes through: every node
 * serves the cluster's one certificate.
 */
function balance(host: string, port: number, ports: number[]): Promise<Server> {
  let next = 0;
  const server = createServer((client) => {
    client.pause();
    client.on('error', () => {});
    const first = next++ % ports.length;
    const attempt = (tried: number) => {
      if (tried === ports.length || client.destroyed) return void client.destroy();
      const backend: Socket = connect({ host, port: ports[(first + tried) % ports.length] });
      backend.once('error', () => attempt(tried + 1));
      backend.once('connect', () => {
        backend.removeAllListeners('error');
        backend.on('error', () => client.destroy());
        client.on('close', () => backend.destroy());
        backend.on('close', () => client.destroy());
        client.pipe(backend).pipe(client);
        client.resume();
      });
    };
    attempt(0);
  });
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => done(server));
  });
}

/**
 * Gives up the leases (its snowflake process id, the relay's lease) of a process seen to have exited, as its graceful
 * stop would have: a process killed with SIGKILL leaves them held for their 30 s, and the process started in its place
 * would be refused its PROCESS_ID until then, and a standby relay would wait as long. Holders are named
 * `{hostname}:{pid}:{uuid}` (infra/compose.ts, infra/bus/relay.ts): only the exited process's are released.
 */
async function releaseLeasesOf(postgresUrl: string, pid: number): Promise<number> {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const { rowCount } = await client.query(`DELETE FROM ${LEASES} WHERE starts_with(holder, $1)`, [`${hostname()}:${pid}:`]);
    return rowCount ?? 0;
  } finally {
    await client.end();
  }
}

interface Running {
  node: ClusterNode;
  env: NodeJS.ProcessEnv;
  child: ChildProcess | null;
  /** Resolves when the process has exited; null when none runs. */
  exited: Promise<void> | null;
  restartDelay: number;
  /** Starts that ended before the process listened, while it never has: the first start allows a few. */
  failedStarts: number;
  everListened: boolean;
  /** Settled when the process first listens, or when its first starts have all failed. */
  listening: Promise<void>;
  settleListening: { resolve(): void; reject(error: Error): void };
}

async function main() {
  const settings = loadSettings(process.env);
  mkdirSync(settings.dir, { recursive: true, mode: PRIVATE_DIR });
  mkdirSync(join(settings.dir, 'logs'), { recursive: true, mode: PRIVATE_DIR });
  const { name: database, maxConnections } = await ensureDatabase(settings.postgresUrl);
  // What every process must agree on, generated once: the sealing key, the master key and one certificate.
  const secretKey = process.env.SECRET_KEY || keyFileText(join(settings.dir, 'secret.key'));
  const masterKey = process.env.MASTER_KEY || keyFileText(join(settings.dir, 'master.key'));
  const useTls = !(process.env.PLAIN_HTTP === '1' || process.env.PLAIN_HTTP === 'true');
  if (useTls && !process.env.TLS_CERT_FILE) await loadTls(settings.dir, null, settings.host);
  const tls = useTls
    ? {
        TLS_CERT_FILE: process.env.TLS_CERT_FILE || join(settings.dir, 'tls', 'self-signed.crt'),
        TLS_KEY_FILE: process.env.TLS_KEY_FILE || join(settings.dir, 'tls', 'self-signed.key'),
      }
    : {};
  const basePort = settings.basePort || (await freeBlock(settings.host, BALANCERS + clusterNodes(0).length));
  const nodes = clusterNodes(basePort);
  const hostInUrl = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  const gatewayAt = (node: ClusterNode) => `${useTls ? 'wss' : 'ws'}://${hostInUrl}:${node.port}/gateway`;
  const portsOf = (role: Role) => nodes.filter((node) => node.role === role).map((node) => node.port);
  // Clients are sent to the balancers, and READY sends each session back to its own gateway node.
  const publicBaseUrl = `${useTls ? 'https' : 'http'}://${hostInUrl}:${basePort}`;
  const gatewayUrl = `${useTls ? 'wss' : 'ws'}://${hostInUrl}:${basePort + 1}/gateway`;
  const balancers = [await balance(settings.host, basePort, portsOf('api')), await balance(settings.host, basePort + 1, portsOf('gateway'))];
  const shared: NodeJS.ProcessEnv = {
    ...process.env,
    STORE: 'postgres',
    READ_STORE: 'postgres',
    BUS: 'kafka',
    POSTGRES_URL: settings.postgresUrl,
    POSTGRES_POOL_SIZE: process.env.POSTGRES_POOL_SIZE || String(poolSizeFor(maxConnections, nodes.length)),
    KAFKA_BROKERS: settings.kafkaBrokers,
    // One broker holds one copy; and the database names the topic and the consumer groups, so two clusters on one
    // broker (test files side by side) never read each other's events.
    KAFKA_REPLICATION_FACTOR: process.env.KAFKA_REPLICATION_FACTOR || '1',
    KAFKA_MIN_INSYNC_REPLICAS: process.env.KAFKA_MIN_INSYNC_REPLICAS || '1',
    KAFKA_TOPIC: process.env.KAFKA_TOPIC || `parley.${database}`,
    KAFKA_CLIENT_ID: process.env.KAFKA_CLIENT_ID || `parley.${database}`,
    SECRET_KEY: secretKey,
    MASTER_KEY: masterKey,
    HOST: settings.host,
    PUBLIC_BASE_URL: publicBaseUrl,
    GATEWAY_URL: gatewayUrl,
    ...tls,
  };
  const running: Running[] = nodes.map((node) => {
    let settleListening!: Running['settleListening'];
    const listening = new Promise<void>((resolve, reject) => (settleListening = { resolve, reject }));
    return {
      node,
      restartDelay: RESTART_DELAY_MS,
      failedStarts: 0,
      everListened: false,
      listening,
      settleListening,
      child: null,
      exited: null,
      env: {
        ...shared,
        ROLE: node.role,
        PROCESS_ID: String(node.processId),
        PORT: String(node.port),
        DATA_DIR: join(settings.dir, node.name),
        ...(node.role === 'gateway' ? { GATEWAY_NODE_URL: gatewayAt(node) } : {}),
      },
    };
  });

  let stopping = false;
  const stopAll = async (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second Ctrl-C: whatever still runs is killed.
      for (const entry of running) entry.child?.kill('SIGKILL');
      return;
    }
    stopping = true;
    say(`${signal}: stopping every process`);
    // Clients' doors first, the workers behind them last.
    for (const entry of [...running].reverse()) entry.child?.kill('SIGTERM');
    await Promise.all(running.map((entry) => entry.exited));
    for (const balancer of balancers) balancer.close();
    say('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stopAll('SIGINT'));
  process.on('SIGTERM', () => void stopAll('SIGTERM'));

  /** Starts the node's process; resolves once it says where it listens, rejects when it exits before. */
  const start = (entry: Running): Promise<void> => {
    const { node } = entry;
    const log = createWriteStream(join(settings.dir, 'logs', `${node.name}.log`), { flags: 'a', mode: 0o600 });
    const child = spawn(process.execPath, ['--import', 'tsx', 'infra/main.ts'], { cwd: repoRoot, env: entry.env, stdio: ['ignore', 'pipe', 'pipe'] });
    entry.child = child;
    let tail = '';
    let listening = false;
    let exitStatus = '';
    entry.exited = new Promise((done) =>
      child.once('exit', (code, signal) => {
        exitStatus = signal ?? String(code);
        entry.child = null;
        log.end();
        done();
      }),
    );
    return new Promise((ready, fail) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        fail(new Error(`${node.name} did not listen within ${START_TIMEOUT_MS / 1000} s:\n${tail}`));
      }, START_TIMEOUT_MS);
      const read = (chunk: Buffer) => {
        log.write(chunk);
        tail = (tail + chunk.toString()).slice(-OUTPUT_TAIL);
        if (listening) return;
        const match = /"listening":"([^"]+)"/.exec(tail);
        if (!match) return;
        listening = true;
        entry.everListened = true;
        entry.settleListening.resolve();
        clearTimeout(timer);
        entry.restartDelay = RESTART_DELAY_MS;
        const serves = node.role === 'gateway' ? ` ${gatewayAt(node)}` : node.role === 'api' ? '' : ' (/healthz, /readyz, /metrics)';
        say(`${node.name} (${node.role}, PROCESS_ID ${node.processId}) pid ${child.pid} listening ${match[1]}${serves}`);
        ready();
      };
      child.stdout!.on('data', read);
      child.stderr!.on('data', read);
      void entry.exited!.then(() => {
        clearTimeout(timer);
        if (!listening) {
          const error = new Error(`${node.name} exited (${exitStatus}) before listening:\n${tail}`);
          fail(error);
          if (!entry.everListened && ++entry.failedStarts >= START_ATTEMPTS) return entry.settleListening.reject(error);
        }
        if (stopping) return;
        // Ended on its own (a fatal error, a kill): started again, as a supervisor would, from its checkpoints.
        say(`${node.name} (${node.role}) pid ${child.pid} exited (${exitStatus}): starting it again in ${entry.restartDelay / 1000} s`);
        const delay = entry.restartDelay;
        entry.restartDelay = Math.min(delay * 2, RESTART_DELAY_MAX_MS);
        const released = releaseLeasesOf(settings.postgresUrl, child.pid!).then(
          (count) => count && say(`released the ${count} lease(s) pid ${child.pid} held`),
          (error: Error) => say(`could not release the leases of pid ${child.pid} (${error.message}): its successor waits for them to run out`),
        );
        setTimeout(() => {
          void released.then(() => {
            if (!stopping) start(entry).catch((error: Error) => say(error.message.split('\n')[0]));
          });
        }, delay);
      });
    });
  };

  say(`the API at ${publicBaseUrl}/api/v10 and the gateway at ${gatewayUrl}: balancers in front of the api and gateway nodes`);
  say(
    `starting ${nodes.length} processes on ports ${nodes[0].port}-${nodes.at(-1)!.port} of ${settings.host}, database ${database}, Kafka ${settings.kafkaBrokers}`,
  );
  say(`logs in ${join(settings.dir, 'logs')}`);
  const poolSize = Number(shared.POSTGRES_POOL_SIZE);
  say(
    `PostgreSQL: at most ${nodes.length * (2 * poolSize + 1)} connections of its max_connections ${maxConnections} (POSTGRES_POOL_SIZE=${poolSize}: two pools and a LISTEN a process)`,
  );
  try {
    // The projector and the first relay first: they create the read models' tables and the topic, which the others
    // then find made. Processes creating a new topic together failed (its partitions had no leader yet for one of them).
    const [projector, relay, ...rest] = running;
    // A start that failed is started again (below, as any exit is) until START_ATTEMPTS have failed.
    const started = (entries: Running[]) => Promise.all(entries.map((entry) => (start(entry).catch(() => {}), entry.listening)));
    await started([projector, relay]);
    await started(rest);
  } catch (error) {
    if (!stopping) {
      process.stderr.write(`cluster: ${(error as Error).message}\n`);
      stopping = true;
      for (const entry of running) entry.child?.kill('SIGTERM');
      await Promise.all(running.map((entry) => entry.exited));
      process.exit(1);
    }
    return;
  }
  say(`ready: the API at ${publicBaseUrl}/api/v10, the gateway at ${gatewayUrl}; Ctrl-C stops it`);
}

main().catch((error) => {
  process.stderr.write(`cluster: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
