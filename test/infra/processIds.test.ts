// Snowflake process ids held as leases (infra/processIds.ts) in the embedded lease store, two connections to one file
// standing for two processes of a deployment: no two running processes ever mint ids with the same pair.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqliteLeases } from '../../infra/leases/sqlite.js';
import { ProcessIdLease } from '../../infra/processIds.js';
import { LEASE_MS, RENEW_MS } from '../../ports/leases.js';
import { describeLeasesContract } from '../contracts/leasesContract.js';

const dirs: string[] = [];
const tempFile = () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-leases-'));
  dirs.push(dir);
  return join(dir, 'leases.db');
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describeLeasesContract('SQLite', async () => {
  const file = tempFile();
  const first = new SqliteLeases(file);
  const second = new SqliteLeases(file);
  return { first, second, close: async () => (await first.close(), await second.close()) };
});

describe('ProcessIdLease', () => {
  let now = 1_700_000_000_000;
  const clock = { now: () => now };
  let first: SqliteLeases;
  let second: SqliteLeases;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const file = tempFile();
    first = new SqliteLeases(file);
    second = new SqliteLeases(file);
  });
  afterEach(async () => {
    vi.useRealTimers();
    await first.close();
    await second.close();
  });

  it('gives replicas without PROCESS_ID the first free ids, one each, and the id of one that stopped to the next', async () => {
    const lost: Error[] = [];
    const a = await ProcessIdLease.take(first, { workerId: 0, processId: null }, 'a', clock, (e) => lost.push(e));
    const b = await ProcessIdLease.take(second, { workerId: 0, processId: null }, 'b', clock, (e) => lost.push(e));
    const c = await ProcessIdLease.take(second, { workerId: 1, processId: null }, 'c', clock, (e) => lost.push(e));
    expect([a.processId, b.processId, c.processId]).toEqual([0, 1, 0]);
    await a.release();
    const d = await ProcessIdLease.take(second, { workerId: 0, processId: null }, 'd', clock, (e) => lost.push(e));
    expect(d.processId).toBe(0);
    expect(lost).toEqual([]);
    await Promise.all([b, c, d].map((lease) => lease.release()));
  });

  it('refuses a PROCESS_ID a running process holds, naming it; takes it once that lease has expired', async () => {
    const a = await ProcessIdLease.take(first, { workerId: 0, processId: 7 }, 'a', clock, () => {});
    await expect(ProcessIdLease.take(second, { workerId: 0, processId: 7 }, 'b', clock, () => {})).rejects.toThrow(
      'PROCESS_ID 7 of WORKER_ID 0 is held by another running process: give each process its own, or leave PROCESS_ID unset to take a free one',
    );
    // Renewed while it runs: still held long after the first expiry would have passed.
    for (let i = 0; i < 6; i++) {
      now += RENEW_MS;
      await a.renew();
    }
    await expect(ProcessIdLease.take(second, { workerId: 0, processId: 7 }, 'b', clock, () => {})).rejects.toThrow(/is held by another/);
    // A process that died renews nothing: its id is free once the lease runs out.
    now += LEASE_MS;
    const b = await ProcessIdLease.take(second, { workerId: 0, processId: 7 }, 'b', clock, () => {});
    expect(b.processId).toBe(7);
    await b.release();
  });

  it('tells a holder whose id was taken (it stalled past its lease), and one that could not renew in time, to stop', async () => {
    const lost: string[] = [];
    const stalled = await ProcessIdLease.take(first, { workerId: 0, processId: 3 }, 'stalled', clock, (e) => lost.push(e.message));
    now += LEASE_MS;
    const next = await ProcessIdLease.take(second, { workerId: 0, processId: 3 }, 'next', clock, () => {});
    await stalled.renew();
    expect(lost).toEqual(['PROCESS_ID 3 of WORKER_ID 0 was taken by another process: this one must stop minting ids']);

    const unreachable = await ProcessIdLease.take(first, { workerId: 0, processId: 4 }, 'cut off', clock, (e) => lost.push(e.message));
    const claim = vi.spyOn(first, 'claim').mockRejectedValue(new Error('connection reset'));
    now += RENEW_MS;
    await unreachable.renew();
    expect(lost).toHaveLength(1);
    now += RENEW_MS + 1;
    await unreachable.renew();
    expect(lost[1]).toBe('the lease of PROCESS_ID 4 could not be renewed before it ran out: this process must stop minting ids');
    claim.mockRestore();
    await next.release();
  });

  it('refuses, naming the setting to change, when every id of the WORKER_ID is held', async () => {
    for (let id = 0; id < 32; id++) await ProcessIdLease.take(first, { workerId: 5, processId: id }, `p${id}`, clock, () => {});
    await expect(ProcessIdLease.take(second, { workerId: 5, processId: null }, 'late', clock, () => {})).rejects.toThrow(
      'every PROCESS_ID of WORKER_ID 5 is held by a running process: give this one another WORKER_ID',
    );
  });
});
