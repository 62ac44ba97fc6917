// An unreachable engine, for real: the service process is started against a loopback port nothing listens on (free
// a moment ago), and must exit by itself, non-zero, having printed one line that names the engine (no hang, no
// stack-trace loop). The bound on that exit is the process's own start deadline; the test's kill is only an outer bound.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../contracts/ports.js';

const dataDir = mkdtempSync(join(tmpdir(), 'parley-unreachable-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Outcome {
  code: number | null;
  /** The signal that ended it: null when it exited by itself, SIGKILL when the test's outer bound had to end it. */
  signal: NodeJS.Signals | null;
  stderr: string;
}

function runService(env: Record<string, string>): Promise<Outcome> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/main.ts'], {
    cwd: join(import.meta.dirname, '../..'),
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  // The test's outer bound: a process still running after 100 s hangs, is killed, and fails the assertions below.
  const killer = setTimeout(() => child.kill('SIGKILL'), 100_000);
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      clearTimeout(killer);
      resolve({ code, signal, stderr });
    });
  });
}

describe('an unreachable engine at start', () => {
  const cases: [engine: string, env: (port: number) => Record<string, string>][] = [
    ['EventStoreDB', (port) => ({ STORE: 'esdb', ESDB_URL: `esdb://127.0.0.1:${port}?tls=false` })],
    ['MongoDB', (port) => ({ READ_STORE: 'mongodb', MONGO_URL: `mongodb://127.0.0.1:${port}/` })],
    ['PostgreSQL', (port) => ({ READ_STORE: 'postgres', POSTGRES_URL: `postgres://postgres@127.0.0.1:${port}/parley` })],
    ['Kafka', (port) => ({ BUS: 'kafka', KAFKA_BROKERS: `127.0.0.1:${port}` })],
  ];

  it.concurrent.each(cases)('%s: one line naming it, and a non-zero exit of its own', async (engine, env) => {
    const outcome = await runService(env(await freePort()));
    expect(outcome.code).not.toBe(0);
    expect(outcome.signal).toBeNull();
    const lines = outcome.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^Parley failed to start: ${engine} is unreachable at .*127\\.0\\.0\\.1:\\d+`));
  });

  it('a node that would send clients to the address it listens on refuses to start, in one line, before any engine', async () => {
    const single = await runService({ HOST: '0.0.0.0' });
    expect(single.code).toBe(1);
    expect(single.stderr.trim()).toBe(
      'Parley failed to start: clients would be sent to https://0.0.0.0:0, which none can reach (HOST is where this server listens): set PUBLIC_BASE_URL to the address clients use',
    );
    const shared = { STORE: 'esdb', ESDB_URL: 'esdb://127.0.0.1:1?tls=false', READ_STORE: 'mongodb', MONGO_URL: 'mongodb://127.0.0.1:1/' };
    const api = await runService({ ...shared, ROLE: 'api', HOST: '0.0.0.0' });
    expect(api.code).toBe(1);
    expect(api.stderr.trim()).toBe('Parley failed to start: ROLE=api needs PUBLIC_BASE_URL: the address clients reach the API and its CDN URLs at');
  });

  it('a role that needs shared engines refuses the embedded ones, in one line', async () => {
    const outcome = await runService({ ROLE: 'api' });
    expect(outcome.code).toBe(1);
    expect(outcome.stderr.trim()).toBe(
      'Parley failed to start: ROLE=api runs beside other processes: it needs a shared log (STORE=postgres with POSTGRES_URL, or STORE=esdb with ESDB_URL)',
    );
  });
});
