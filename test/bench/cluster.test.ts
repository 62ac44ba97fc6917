// `npm run bench:cluster -- --quick` as a smoke test: the cluster bench runs against real processes on PostgreSQL and
// Kafka, prints every row, and removes what it made. No figure is asserted: timings belong to the bench, not to tests.
// Without PostgreSQL or the broker it skips with one line, or fails where PARLEY_REQUIRE_ENGINES names them (CI).
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { KAFKA_TEST_BROKERS, POSTGRES_ADMIN_URL, withEngines } from '../contracts/engines.js';

const dir = await mkdtemp(join(tmpdir(), 'parley-bench-cluster-test-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

await withEngines(['postgres', 'kafka'], 'the cluster bench, quick', () => {
  describe('npm run bench:cluster -- --quick', () => {
    it('runs every step, prints every row, and drops its database', async () => {
      const results = join(dir, 'cluster.json');
      const child = spawn(process.execPath, ['--import', 'tsx', 'bench/cluster.ts', '--quick'], {
        cwd: join(import.meta.dirname, '../..'),
        env: { ...process.env, BENCH_RESULTS: results, BENCH_POSTGRES_URL: POSTGRES_ADMIN_URL, KAFKA_BROKERS: KAFKA_TEST_BROKERS.join(',') },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      const code = await new Promise((resolve) => child.once('exit', resolve));
      expect(code, output).toBe(0);
      for (const row of [
        'koa echo',
        'durable sends, embedded default',
        'durable sends, cluster, one api node (api-1)',
        'durable sends, cluster, API balancer (api-1 + api-2)',
        'POST → MESSAGE_CREATE, embedded, 20 sessions',
        'POST → MESSAGE_CREATE, cluster, 20 sessions on 2 gateway nodes',
        'cores busy',
        'CPU ms a request (a delivered dispatch), above idle',
        'api-1',
        'gateway-2',
        'TLS: the koa echo spends',
      ])
        expect(output).toContain(row);
      const json = JSON.parse(await readFile(results, 'utf8'));
      expect(Object.keys(json)).toEqual(expect.arrayContaining(['echo', 'embedded', 'oneNode', 'balancer', 'clusterDelivery', 'embeddedDelivery', 'tls']));
      expect(json.machine.loadavgBefore).toHaveLength(3);
      // Its database is gone.
      const database = /database (parley_bench_cluster_[0-9a-f]+)/.exec(output)![1];
      const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await admin.connect();
      try {
        expect((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])).rowCount).toBe(0);
      } finally {
        await admin.end();
      }
    }, 1_200_000);
  });
});
