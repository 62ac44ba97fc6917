// A PostgreSQL 15 server of the test's own, in a temporary directory on a free port, for the tests that stop and
// restart the database: the machine's server is shared by the test files running beside them (and by everyone on
// the machine), and must never be restarted. initdb and the server refuse to run as root; as root they are run as the
// `postgres` system user (runuser), which the Debian packages create, and the directory is handed to that user.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { registerUnavailable } from './engines.js';
import { freePort } from './ports.js';

const run = promisify(execFile);

/** Where Debian's PostgreSQL 15 keeps its programs (PARLEY_TEST_POSTGRES_BIN elsewhere). */
const BIN = process.env.PARLEY_TEST_POSTGRES_BIN || '/usr/lib/postgresql/15/bin';

export interface PrivatePostgres {
  port: number;
  /** The URL of `database` on this server, as the superuser `postgres` (trust auth, loopback only). */
  url(database?: string): string;
  /** `pg_ctl stop -m fast`: connections are ended, new ones refused until start(). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** `pg_ctl restart -m fast`. */
  restart(): Promise<void>;
  /** Stops the server (immediately) and removes its directory. */
  remove(): Promise<void>;
}

/** Why no private server can be made here, or null when it can. */
export function privatePostgresMissing(): string | null {
  return existsSync(join(BIN, 'initdb')) && existsSync(join(BIN, 'pg_ctl')) ? null : `no PostgreSQL programs in ${BIN} (set PARLEY_TEST_POSTGRES_BIN)`;
}

/** Registers `suites` when a private server can be made here; else fails or skips as the engine suites do. */
export function withPrivatePostgres(what: string, suites: () => void): void {
  const missing = privatePostgresMissing();
  if (missing === null) suites();
  else registerUnavailable('postgres', 'private PostgreSQL', what, missing);
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const missing = privatePostgresMissing();
  if (missing) throw new Error(missing);
  const dir = await mkdtemp(join(tmpdir(), 'parley-postgres-'));
  const data = join(dir, 'data');
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(group.trim()));
  }
  const pgTool = (tool: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', join(BIN, tool), ...args]) : run(join(BIN, tool), args));
  const port = await freePort();
  // The socket in the test's directory, TCP on the loopback only; fsync off: the data is thrown away after the test,
  // and a fast shutdown writes everything out anyway.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const pgCtl = (...args: string[]) => pgTool('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', ...args]);
  await pgTool('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  // A test process ended before `remove` (a crash, a run cut short) must not leave the server running: SIGQUIT is
  // the server's immediate shutdown.
  const orphaned = () => {
    try {
      process.kill(Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]), 'SIGQUIT');
    } catch {
      // Not running.
    }
  };
  process.once('exit', orphaned);
  await pgCtl('-o', options, 'start');
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    port,
    url,
    stop: async () => void (await pgCtl('-m', 'fast', 'stop')),
    start: async () => void (await pgCtl('-o', options, 'start')),
    restart: async () => void (await pgCtl('-m', 'fast', '-o', options, 'restart')),
    remove: async () => {
      process.off('exit', orphaned);
      await pgCtl('-m', 'immediate', 'stop').catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Runs `sql` on the private server's `postgres` database. */
export async function onPrivateServer<T extends pg.QueryResultRow>(server: PrivatePostgres, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: server.url() });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}
