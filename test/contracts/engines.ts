// The engines the contract suites run against on this machine and in CI: PostgreSQL (started before every session and
// CI run) and a Kafka broker (`npm run kafka`). Where one is missing, its suites skip with one line saying why — unless
// PARLEY_REQUIRE_ENGINES names it (CI sets `postgres,kafka`), in which case they fail, so a green CI means they ran.
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import pg from 'pg';
import { describe, it } from 'vitest';
import type { EngineConfig } from '../../infra/engines.js';

export type RunnableEngine = 'postgres' | 'kafka';

/** The server every PostgreSQL test makes its own database on (trust auth on this machine and in CI). */
export const POSTGRES_ADMIN_URL = process.env.PARLEY_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';
export const KAFKA_TEST_BROKERS = (process.env.PARLEY_TEST_KAFKA_BROKERS || '127.0.0.1:9092').split(',');

export function engineRequired(engine: RunnableEngine): boolean {
  return (process.env.PARLEY_REQUIRE_ENGINES ?? '')
    .split(',')
    .map((name) => name.trim())
    .includes(engine);
}

/** Why the engine cannot be used here, or null when it answers. */
export async function probeEngine(engine: RunnableEngine, timeoutMs = 3000): Promise<string | null> {
  if (engine === 'postgres') {
    const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: timeoutMs });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return null;
    } catch (error) {
      return `PostgreSQL does not answer at ${POSTGRES_ADMIN_URL} (${(error as Error).message})`;
    } finally {
      await client.end().catch(() => {});
    }
  }
  const [host, port] = KAFKA_TEST_BROKERS[0].split(':');
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port) });
    const finish = (why: string | null) => {
      socket.destroy();
      resolve(why);
    };
    socket.setTimeout(timeoutMs, () => finish(`no Kafka broker answers at ${KAFKA_TEST_BROKERS[0]} (start one with npm run kafka)`));
    socket.on('connect', () => finish(null));
    socket.on('error', (error) => finish(`no Kafka broker at ${KAFKA_TEST_BROKERS[0]} (${error.message}; start one with npm run kafka)`));
  });
}

/**
 * Registers `suites` when the engine answers. When it does not: one skipped test whose title says why, or, when
 * PARLEY_REQUIRE_ENGINES names the engine, one failing test saying the same.
 */
export async function withEngine(engine: RunnableEngine, what: string, suites: () => void): Promise<void> {
  const why = await probeEngine(engine);
  if (why === null) suites();
  else registerUnavailable(engine, `${engine} contract`, what, why);
}

/**
 * In place of suites that cannot run here: one test that fails when PARLEY_REQUIRE_ENGINES names `engine` (as CI
 * does), else one skipped test; either title says why.
 */
export function registerUnavailable(engine: RunnableEngine, label: string, what: string, why: string): void {
  if (engineRequired(engine)) {
    describe(label, () => {
      it(`${what}: ${engine} is required here (PARLEY_REQUIRE_ENGINES) but ${why}`, () => {
        throw new Error(why);
      });
    });
    return;
  }
  const title = `${label}: skipped, ${why}`;
  console.warn(title);
  describe.skip(title, () => {
    it(what, () => {});
  });
}

/** withEngine for suites that need several engines: registered when every one answers, else skipped (or failed) as it says. */
export async function withEngines(engines: RunnableEngine[], what: string, suites: () => void): Promise<void> {
  const [engine, ...rest] = engines;
  if (!engine) return suites();
  let inner: Promise<void> = Promise.resolve();
  await withEngine(engine, what, () => {
    inner = withEngines(rest, what, suites);
  });
  await inner;
}

/** A database of the test's own on the PostgreSQL server, dropped (with its connections) by `drop`. */
export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(label = 'parley'): Promise<TestDatabase> {
  const name = `${label}_${randomBytes(6).toString('hex')}`.toLowerCase();
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A ROLE=all process's engines on the PostgreSQL database at `url`, its bus in-process: a test's server or tool. */
export const allOnPostgres = (url: string): EngineConfig => ({
  role: 'all',
  store: { kind: 'postgres', url },
  readStore: { kind: 'postgres', url },
  bus: { kind: 'local' },
  projections: null,
  settleTimeoutMs: 5000,
});
