// The contract suites against the embedded adapters: a fresh SQLite file (or blob folder) per test. These always run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { FileBlobStore } from '../../infra/blobs/files.js';
import { type NewEvent, WrongExpectedVersionError } from '../../infra/eventStore/port.js';
import { SqliteEventStore } from '../../infra/eventStore/sqlite.js';
import { SqliteReadStore } from '../../infra/readStore/sqlite.js';
import { describeBlobStoreContract } from './blobStoreContract.js';
import { describeEventStoreContract } from './eventStoreContract.js';
import { describeReadStoreContract } from './readStoreContract.js';

const dir = mkdtempSync(join(tmpdir(), 'parley-contract-'));
let files = 0;
const file = (name: string) => join(dir, `${name}-${++files}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeEventStoreContract('SQLite', async () => new SqliteEventStore(file('events')), { startsEmpty: true });
describeReadStoreContract('SQLite', async () => new SqliteReadStore(file('read')));
describeBlobStoreContract('Files', async () => ({ blobs: new FileBlobStore(file('blobs')), close: async () => {} }));

describe('SQLite event store: group commit', () => {
  const event: NewEvent = { type: 'Noted', data: {}, metadata: { actorId: null, createdAt: '2024-01-01T00:00:00.000Z' } };

  it('appends issued together share one transaction (one fsync), and each still gets its own outcome', async () => {
    const store = new SqliteEventStore(file('group'));
    await store.appendToStream('taken', [event]);
    // Every flush of the queue is one db.transaction(...) call, i.e. one commit and one fsync.
    const transactions = vi.spyOn(store['db'], 'transaction');
    const appends = Array.from({ length: 500 }, (_, i) => store.appendToStream(`stream-${i}`, [event, event], { expectedRevision: 'no_stream' }));
    const conflicting = store.appendToStream('taken', [event], { expectedRevision: 'no_stream' });
    const results = await Promise.all(appends);
    await expect(conflicting).rejects.toBeInstanceOf(WrongExpectedVersionError);
    expect(transactions).toHaveBeenCalledTimes(1);
    expect(results.every((r) => r.nextExpectedRevision === 1n)).toBe(true);
    expect(new Set(results.map((r) => r.position.commit)).size).toBe(500);
    expect(await store.readAll({ maxCount: 2000 })).toHaveLength(1 + 1000);
    await store.close();
  });

  it('appends arriving while a commit is under way are written together in the next one', async () => {
    const store = new SqliteEventStore(file('group'));
    const transactions = vi.spyOn(store['db'], 'transaction');
    const waves = [];
    for (let wave = 0; wave < 5; wave++) {
      waves.push(...Array.from({ length: 100 }, (_, i) => store.appendToStream(`w${wave}-${i}`, [event])));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(waves);
    expect(transactions.mock.calls.length).toBeLessThanOrEqual(5);
    expect(await store.readAll({ maxCount: 1000 })).toHaveLength(500);
    await store.close();
  });
});
