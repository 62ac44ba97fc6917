// `npm run bench -- --quick` as CI's smoke test: every step of the benchmark runs against real processes and the
// table and JSON carry every figure. No figure is asserted: timings belong to the bench, not to tests.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dir = await mkdtemp(join(tmpdir(), 'parley-bench-quick-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('npm run bench -- --quick', () => {
  it('runs every step and reports every figure beside its ceiling', async () => {
    const results = join(dir, 'latest.json');
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--quick'], {
      cwd: join(import.meta.dirname, '../..'),
      env: { ...process.env, BENCH_RESULTS: results },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code, output).toBe(0);
    for (const row of [
      'koa echo',
      'durable sends',
      'the same sends under auto-moderation',
      'message pages',
      'POST → MESSAGE_CREATE',
      'idle sessions',
      'erasure: 100 messages deleted',
      'overload: durable sends past admission',
      'read the log alone',
      'rebuild every read model',
      "gateway node's consumer",
      'cold start',
    ])
      expect(output).toContain(row);
    const json = JSON.parse(await readFile(results, 'utf8'));
    expect(Object.keys(json)).toEqual(
      expect.arrayContaining([
        'echoCeiling',
        'sends',
        'moderatedSends',
        'pageCeiling',
        'pages',
        'singleSend',
        'delivery',
        'idleSessions',
        'sendsMemory',
        'erasure',
        'overload',
        'log',
        'consumer',
      ]),
    );
    expect(json.sends.non2xx + json.moderatedSends.non2xx + json.pages.non2xx).toBe(0);
    expect(json.delivery.count).toBe(json.delivery.expected);
    // Grown to at least that: on a fast machine the quick run's sends alone may leave more.
    expect(json.log.events).toBeGreaterThanOrEqual(20_000);
    expect(json.log.readAlonePerS).toBeGreaterThan(0);
    expect(json.consumer.events).toBe(2000);
    expect({ erased: json.erasure.messages, answered: json.erasure.count }).toEqual({ erased: 100, answered: 100 });
    expect(json.overload.connections).toBe(50);
    expect(json.overload.admitted).toBeGreaterThan(0);
  }, 180_000);
});
