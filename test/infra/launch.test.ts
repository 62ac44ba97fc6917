// npm start's launcher (infra/launch.sh): the process it starts is node itself, with jemalloc as its allocator where
// the machine has it (CI installs Debian's libjemalloc2), glibc's when PARLEY_JEMALLOC=0, and an LD_PRELOAD already set
// left as it was. Whether the library is in the process is read from the process's own memory map.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { LAUNCHER, startServerProcess, stopServerProcesses } from '../support/process.js';

/** Where the machine's dynamic linker finds libjemalloc.so.2 (null: it has none). */
const JEMALLOC = /^\s*libjemalloc\.so\.2 .*=> (\S+)$/m.exec(execFileSync('/sbin/ldconfig', ['-p'], { encoding: 'utf8' }))?.[1] ?? null;
const MAPS_JEMALLOC = "process.stdout.write(String(require('fs').readFileSync('/proc/self/maps', 'utf8').includes('libjemalloc')))";

/** What a node started by the launcher with `env` says of its own map: whether jemalloc is in it. */
function launchedWithJemalloc(env: Record<string, string>): { status: number | null; mapped: string; stderr: string } {
  const run = spawnSync(LAUNCHER, ['-e', MAPS_JEMALLOC], { env: { PATH: process.env.PATH, NODE: process.execPath, ...env }, encoding: 'utf8' });
  return { status: run.status, mapped: run.stdout, stderr: run.stderr };
}

describe('infra/launch.sh', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-launch-'));
  afterAll(async () => {
    await stopServerProcesses();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts the server as node itself, with jemalloc in its memory where the machine has it, and it serves', async () => {
    const server = await startServerProcess(dataDir);
    // exec: the pid spawned is node's, so signals and the tests' kills reach the server, not a shell.
    expect(readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8').split('\0')).toContain('infra/main.ts');
    const maps = readFileSync(`/proc/${server.child.pid}/maps`, 'utf8');
    if (JEMALLOC) expect(maps).toContain(JEMALLOC.split('/').pop());
    else expect(maps).not.toContain('libjemalloc');
    const health = await request(`${server.origin}/healthz`, { dispatcher: server.dispatcher });
    expect(health.statusCode).toBe(200);
    await health.body.dump();
  });

  it('keeps glibc’s allocator with PARLEY_JEMALLOC=0', () => {
    expect(launchedWithJemalloc({ PARLEY_JEMALLOC: '0' })).toMatchObject({ status: 0, mapped: 'false' });
    expect(launchedWithJemalloc({})).toMatchObject({ status: 0, mapped: String(JEMALLOC !== null) });
  });

  it('leaves an LD_PRELOAD already set as it is', () => {
    // A library that is not there: the loader says so and goes on, and the launcher has not put jemalloc in its place.
    const run = launchedWithJemalloc({ LD_PRELOAD: '/nonexistent/libother.so' });
    expect(run).toMatchObject({ status: 0, mapped: 'false' });
    expect(run.stderr).toContain('/nonexistent/libother.so');
  });
});
