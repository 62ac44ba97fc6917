// `npm run cluster` as its own process, for the cluster suite: on a database of its own (createTestDatabase) and free
// ports, ready once the launcher says so. Each node's pid and address come from the launcher's lines, and so do its
// restarts; stop() sends SIGTERM, as an operator's Ctrl-C does, and waits for the launcher to exit.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { KAFKA_TEST_BROKERS, type TestDatabase, createTestDatabase } from '../contracts/engines.js';
import { LAUNCHER } from './process.js';
import { type TestServer, apiClient } from './server.js';

/** An outer bound only: eight server processes starting at once on 2 cores take a while. */
const READY_TIMEOUT_MS = 200_000;

export interface ClusterNode extends Pick<TestServer, 'api' | 'call' | 'origin' | 'cert' | 'dispatcher'> {
  name: string;
  pid: number;
  /** Its PROCESS_ID, which the snowflake ids it mints carry. */
  processId: number;
}

export interface Cluster {
  /** The balancers' addresses: what GET /gateway/bot and the API's URLs name. */
  publicBaseUrl: string;
  gatewayUrl: string;
  /** The balanced API, as a client reaches it. */
  api: Pick<TestServer, 'api' | 'call' | 'origin' | 'cert' | 'dispatcher'>;
  node(name: string): ClusterNode;
  cert: string;
  dir: string;
  /** The cluster's database. */
  postgresUrl: string;
  /** The launcher's output so far. */
  output(): string;
  /** The launcher's output and the last `lines` of each process's log: what a failed test prints, the directory going with the cluster. */
  report(lines?: number): Promise<string>;
  /** Resolves with the first line of the launcher (already written or to come) that matches. */
  line(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  launcher: ChildProcess;
  stop(): Promise<void>;
}

/** `database`: the cluster's own (a test's private server's); by default one made on the machine's server, dropped after. */
export async function startCluster(env: Record<string, string> = {}, own?: TestDatabase): Promise<Cluster> {
  const database = own ?? (await createTestDatabase('parley_cluster'));
  const dir = await mkdtemp(join(tmpdir(), 'parley-cluster-'));
  // As `npm run cluster` starts it: through infra/launch.sh, whose allocator its processes inherit.
  const launcher = spawn(LAUNCHER, ['--import', 'tsx', 'infra/cluster.ts'], {
    cwd: join(import.meta.dirname, '../..'),
    env: {
      PATH: process.env.PATH,
      NODE: process.execPath,
      CLUSTER_DIR: dir,
      CLUSTER_BASE_PORT: '0',
      POSTGRES_URL: database.url,
      KAFKA_BROKERS: KAFKA_TEST_BROKERS.join(','),
      LOG_LEVEL: 'info',
      KAFKAJS_NO_PARTITIONER_WARNING: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const waiters = new Set<() => void>();
  const read = (chunk: Buffer) => {
    output += chunk;
    for (const waiter of waiters) waiter();
  };
  launcher.stdout!.on('data', read);
  launcher.stderr!.on('data', read);
  let exited = false;
  const exit = once(launcher, 'exit');
  launcher.once('exit', () => {
    exited = true;
    for (const waiter of waiters) waiter();
  });

  function line(pattern: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = output
          .split('\n')
          .map((text) => pattern.exec(text))
          .find(Boolean);
        if (match) return finish(() => resolve(match));
        if (exited) finish(() => reject(new Error(`the launcher exited before writing ${pattern}:\n${output}`)));
      };
      const timer = setTimeout(() => finish(() => reject(new Error(`no line ${pattern} within ${timeoutMs} ms:\n${output}`))), timeoutMs);
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        waiters.delete(check);
        settle();
      };
      waiters.add(check);
      check();
    });
  }

  const agents: Agent[] = [];
  async function stop() {
    if (!exited) {
      launcher.kill('SIGTERM');
      await exit;
    }
    await Promise.all(agents.map((agent) => agent.close()));
    await database.drop();
    await rm(dir, { recursive: true, force: true });
  }

  try {
    const ready = await line(/^cluster: ready: the API at (\S+)\/api\/v10, the gateway at (\S+);/, READY_TIMEOUT_MS);
    const cert = await readFile(join(dir, 'tls', 'self-signed.crt'), 'utf8');
    const client = (origin: string) => {
      // Idle connections are closed by the client well before the server's keep-alive timeout (65 s): a case that
      // reads through a node after a minute's pause would otherwise race the server closing the same connection.
      const dispatcher = new Agent({ connect: { ca: cert, servername: 'localhost' }, keepAliveTimeout: 5_000, keepAliveMaxTimeout: 10_000 });
      agents.push(dispatcher);
      return { origin, cert, dispatcher, ...apiClient(origin, dispatcher) };
    };
    const clients = new Map<string, ReturnType<typeof client>>();
    return {
      publicBaseUrl: ready[1],
      gatewayUrl: ready[2],
      api: client(ready[1]),
      node(name) {
        // The latest line for the node: a restarted node has a new pid.
        const lines = [...output.matchAll(new RegExp(`^cluster: ${name} \\(\\w+, PROCESS_ID (\\d+)\\) pid (\\d+) listening (\\S+)`, 'gm'))];
        if (!lines.length) throw new Error(`no node ${name}:\n${output}`);
        const [, processId, pid, origin] = lines.at(-1)!;
        if (!clients.has(origin)) clients.set(origin, client(origin));
        return { name, pid: Number(pid), processId: Number(processId), ...clients.get(origin)! };
      },
      cert,
      dir,
      postgresUrl: database.url,
      output: () => output,
      async report(lines = 60) {
        const logs = await readdir(join(dir, 'logs')).catch(() => [] as string[]);
        const tails = await Promise.all(
          logs.sort().map(
            async (file) =>
              `--- ${file}, its last ${lines} lines:\n${(await readFile(join(dir, 'logs', file), 'utf8'))
                .split('\n')
                .slice(-lines - 1)
                .join('\n')}`,
          ),
        );
        return [`--- the launcher:\n${output}`, ...tails].join('\n');
      },
      line,
      launcher,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
