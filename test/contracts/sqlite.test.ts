// The contract suites against the embedded adapters: a fresh SQLite file (or blob folder) per test. These always run.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { FileBlobStore } from '../../infra/blobs/files.js';
import { SqliteKeyStore } from '../../infra/keys/sqlite.js';
import { MasterKeys } from '../../infra/masterKeys.js';
import { SecretBox } from '../../infra/secrets.js';
import { type NewEvent, type RecordedEvent, WrongExpectedVersionError } from '../../ports/eventStore.js';
import { SqliteEventStore } from '../../infra/eventStore/sqlite.js';
import { type AppendToCommit, WriterThread, threadLogWriter } from '../../infra/eventStore/sqliteCommit.js';
import { CachedReadStore } from '../../infra/readStore/cached.js';
import { SqliteReadStore } from '../../infra/readStore/sqlite.js';
import type { IndexSpec, WriteOp } from '../../ports/readStore.js';
import { describeBlobStoreContract } from './blobStoreContract.js';
import { describeEventStoreContract } from './eventStoreContract.js';
import { describeKeyStoreContract } from './keyStoreContract.js';
import { describeReadStoreContract } from './readStoreContract.js';

const dir = mkdtempSync(join(tmpdir(), 'parley-contract-'));
let files = 0;
const file = (name: string) => join(dir, `${name}-${++files}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeEventStoreContract('SQLite', async () => new SqliteEventStore(file('events')), { startsEmpty: true });
describeReadStoreContract('SQLite', async () => new SqliteReadStore(file('read')), { bulkLoad: true });
// The cache the projectors' process puts in front of it, keeping every collection's documents read by _id.
describeReadStoreContract('SQLite, cached', async (collections) => new CachedReadStore(new SqliteReadStore(file('read')), collections));
describeBlobStoreContract('Files', async () => ({ blobs: new FileBlobStore(file('blobs')), close: async () => {} }));
describeKeyStoreContract('SQLite', async () => {
  const path = file('keys');
  const secrets = SecretBox.fromKey(randomBytes(32));
  const keys = new SqliteKeyStore(path, secrets);
  return {
    keys,
    close: () => keys.close(),
    reopen: async () => new SqliteKeyStore(path, secrets),
    stored: async () => Buffer.concat([path, `${path}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f))),
    breakCheckpointWrite: () => {
      vi.spyOn(keys['statements'].setCheckpoint, 'run').mockImplementationOnce(() => {
        throw new Error('disk I/O error');
      });
    },
  };
});

// A server's key store: its keys made and its owners learnt on the key writer thread, wrapped by a master key.
describeKeyStoreContract('SQLite, written on its thread', async () => {
  const path = file('keys');
  const master = randomBytes(32);
  const wrapping = MasterKeys.of(master, [], SecretBox.fromKey(randomBytes(32)));
  const keys = new SqliteKeyStore(path, wrapping, 1000, master);
  return {
    keys,
    close: () => keys.close(),
    reopen: async () => new SqliteKeyStore(path, wrapping, 1000, master),
    stored: async () => Buffer.concat([path, `${path}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f))),
  };
});

describe('SQLite event store: group commit', () => {
  const event: NewEvent = { type: 'Noted', data: {}, metadata: { actorId: null, createdAt: '2024-01-01T00:00:00.000Z' } };

  it('appends issued together share one transaction (one fsync) on the writer thread, and each still gets its own outcome', async () => {
    const store = new SqliteEventStore(file('group'));
    await store.appendToStream('taken', [event]);
    // Every group commit is reported once, with its appends: one transaction, one fsync, on the writer thread.
    const commits: number[] = [];
    store.observe({ commit: (appends) => commits.push(appends) });
    const appends = Array.from({ length: 500 }, (_, i) => store.appendToStream(`stream-${i}`, [event, event], { expectedRevision: 'no_stream' }));
    const conflicting = store.appendToStream('taken', [event], { expectedRevision: 'no_stream' });
    const results = await Promise.all(appends);
    await expect(conflicting).rejects.toBeInstanceOf(WrongExpectedVersionError);
    expect(commits).toEqual([501]);
    // The main thread's connection only reads: the writer thread wrote every row (and waited for the fsync).
    expect(store['db'].prepare('SELECT total_changes() AS n').get()).toEqual({ n: 0 });
    expect(results.every((r) => r.nextExpectedRevision === 1n)).toBe(true);
    expect(new Set(results.map((r) => r.position.commit)).size).toBe(500);
    expect(await store.readAll({ maxCount: 2000 })).toHaveLength(1 + 1000);
    await store.close();
  });

  it('appends arriving while a commit is under way are written together in the next one', async () => {
    const store = new SqliteEventStore(file('group'));
    const commits: number[] = [];
    store.observe({ commit: (appends) => commits.push(appends) });
    const waves = [];
    for (let wave = 0; wave < 5; wave++) {
      waves.push(...Array.from({ length: 100 }, (_, i) => store.appendToStream(`w${wave}-${i}`, [event])));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(waves);
    expect(commits.length).toBeLessThanOrEqual(5);
    expect(commits.reduce((sum, appends) => sum + appends, 0)).toBe(500);
    expect(await store.readAll({ maxCount: 1000 })).toHaveLength(500);
    await store.close();
  });

  it('refuses an append that cannot be written alone, and commits the rest of its batch', async () => {
    const store = new SqliteEventStore(file('group'));
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = { nested: deep };
    const good = Array.from({ length: 20 }, (_, i) => store.appendToStream(`good-${i}`, [event]));
    const tooDeep = store.appendToStream('deep', [{ ...event, data: deep as Record<string, unknown> }]);
    const unserializable = store.appendToStream('bigint', [{ ...event, data: { n: 1n } as Record<string, unknown> }]);
    await expect(tooDeep).rejects.toBeInstanceOf(RangeError);
    await expect(unserializable).rejects.toBeInstanceOf(TypeError);
    expect(await Promise.all(good)).toHaveLength(20);
    const stored = await store.readAll({ maxCount: 100 });
    expect(stored.map((e) => e.streamId).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `good-${i}`).sort());
    await store.close();
  });

  it('commits each append alone when the batch transaction fails, so only the faulty append is refused', async () => {
    const store = new SqliteEventStore(file('group'));
    const good = Array.from({ length: 10 }, (_, i) => store.appendToStream(`fine-${i}`, [event]));
    // A failure only one append's rows cause inside the writer thread's transaction: a NOT NULL column given null.
    const faulty = store.appendToStream('faulty', [{ ...event, type: null as unknown as string }]);
    await expect(faulty).rejects.toThrow('NOT NULL constraint failed');
    expect(await Promise.all(good)).toHaveLength(10);
    expect(await store.readAll({ maxCount: 100 })).toHaveLength(10);
    await store.close();
  });
});

describe('SQLite event store: the writer thread', () => {
  const append = (id: string): AppendToCommit => ({
    streamId: 'thread',
    expected: 'any',
    rows: [{ id, type: 'Noted', data: '{}', metadata: '{}', schemaVersion: 1 }],
  });

  it('a thread that dies fails the batch it held, and the next batch starts another', async () => {
    const thread = new WriterThread();
    const path = file('thread');
    const writer = threadLogWriter(path, thread);
    expect(await writer.commit([append('first')])).toEqual([{ positions: [1], revision: 0 }]);
    // A batch handed to a thread that is dying (killed before it could take it).
    const dying = thread['worker']!.terminate();
    const held = writer.commit([append('held')]);
    await dying;
    await expect(held).rejects.toThrow('the log writer thread exited');
    expect(await writer.commit([append('next')])).toEqual([{ positions: [2], revision: 1 }]);
    const db = new Database(path, { readonly: true });
    expect(db.prepare('SELECT id FROM events ORDER BY position').all()).toEqual([{ id: 'first' }, { id: 'next' }]);
    db.close();
    await writer.close();
  });
});

describe('SQLite event store: where streams end', () => {
  const event: NewEvent = { type: 'Noted', data: {}, metadata: { actorId: null, createdAt: '2024-01-01T00:00:00.000Z' } };

  it('answers a read from past the end of a stream it wrote or read without a query, and reads every later append', async () => {
    const store = new SqliteEventStore(file('ends'));
    await store.appendToStream('written', [event, event]);
    const queries = vi.spyOn(store['statements'].forwards, 'all');
    expect(await store.readStream('written', { fromRevision: 2n })).toEqual([]);
    expect(await store.readStream('unseen', { fromRevision: 0n })).toEqual([]);
    expect(await store.readStream('unseen', { fromRevision: 0n })).toEqual([]);
    expect(queries).toHaveBeenCalledTimes(1);
    await store.appendToStream('written', [event]);
    await store.appendToStream('unseen', [event]);
    expect((await store.readStream('written', { fromRevision: 2n })).map((e) => e.revision)).toEqual([2n]);
    expect((await store.readStream('unseen', { fromRevision: 0n })).map((e) => e.revision)).toEqual([0n]);
    // A read that stops at maxCount has not seen the end.
    expect(await store.readStream('written', { maxCount: 1 })).toHaveLength(1);
    expect((await store.readStream('written', { fromRevision: 1n })).map((e) => e.revision)).toEqual([1n, 2n]);
    await expect(store.appendToStream('written', [event], { expectedRevision: 1n })).rejects.toBeInstanceOf(WrongExpectedVersionError);
    expect(await store.readStream('written', { fromRevision: 3n })).toEqual([]);
    await store.close();
  });
});

describe('SQLite read store: top-level $set in place', () => {
  it('stores the very text a read, update and write back would, and leaves alone what the filter does not match', async () => {
    const store = new SqliteReadStore(file('set'));
    const text = (id: string) => store['db'].prepare('SELECT doc FROM c_things WHERE id = ?').pluck().get(id);
    const original = { _id: 'a', n: 1, s: 'x', nested: { k: 1 }, last: '5' };
    await store.bulkWrite([
      { insertOne: { collection: 'things', document: original } },
      { insertOne: { collection: 'things', document: { ...original, _id: 'b' } } },
    ]);
    const set = { s: 'é\u2028\ud800', n: 1.5, nested: { k: 2 }, list: [1, { b: null }, 1e21], t: true, z: null };
    await store.bulkWrite([
      { updateOne: { collection: 'things', filter: { _id: 'a', last: { $lt: '6' } }, update: { $set: set } } },
      { updateOne: { collection: 'things', filter: { _id: 'b', last: null }, update: { $set: set } } },
      { updateMany: { collection: 'things', filter: { n: 1 }, update: { $set: { many: 'yes', gone: undefined } } } },
    ]);
    expect(text('a')).toBe(JSON.stringify({ ...original, ...set }));
    expect(text('b')).toBe(JSON.stringify({ ...original, _id: 'b', many: 'yes' }));
    await store.close();
  });
});

describe('SQLite read store: bulk load', () => {
  const declared: IndexSpec[] = [
    { collection: 'things', keys: { kind: 1, _id: -1 } },
    { collection: 'things', keys: { code: 1 }, unique: true },
  ];
  const indexesOf = (path: string) => {
    const db = new Database(path, { readonly: true });
    const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'c_things' AND sql IS NOT NULL ORDER BY name").pluck().all();
    db.close();
    return names;
  };
  const both = ['ix_things_code_a', 'ix_things_kind_a__id_d'];

  it('builds the secondary indexes of the loaded tables at the end, whether the load resolves or throws, keeping unique ones throughout', async () => {
    const path = file('bulk');
    const store = new SqliteReadStore(path);
    await store.ensureIndexes(declared);
    const during: unknown[] = [];
    await store.bulkLoad(['things'], async () => {
      await store.ensureIndexes(declared);
      during.push(indexesOf(path));
    });
    expect(during).toEqual([['ix_things_code_a']]);
    expect(indexesOf(path)).toEqual(both);
    await expect(store.bulkLoad(['things'], async () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    expect(indexesOf(path)).toEqual(both);
    await store.close();
  });

  it('has WAL checkpoints made by another thread during the load, its scrubs held: the database file grows with the writes while its writer checkpoints none', async () => {
    const path = file('bulk');
    const store = new SqliteReadStore(path);
    await store.bulkWrite([{ insertOne: { collection: 'things', document: { _id: 'first' } } }]);
    store['db'].pragma('wal_checkpoint(TRUNCATE)');
    const empty = statSync(path).size;
    await store.bulkLoad(['things'], async () => {
      expect(store['db'].pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      expect(store['keeper']!['flags'][1]).toBe(1);
      const things = Array.from({ length: 2000 }, (_, i) => ({ insertOne: { collection: 'things', document: { _id: String(i), text: 'x'.repeat(1000) } } }));
      await store.bulkWrite(things);
      await vi.waitFor(() => expect(statSync(path).size).toBeGreaterThan(empty + 2_000_000), { timeout: 5000 });
    });
    expect(store['keeper']!['flags'][1]).toBe(0);
    expect(await store.count('things', {})).toBe(2001);
    await store.close();
  });

  it('refuses a second load of a table being loaded', async () => {
    const store = new SqliteReadStore(file('bulk'));
    await store.bulkLoad(['things'], async () => {
      await expect(store.bulkLoad(['other', 'things'], async () => {})).rejects.toThrow('c_things is already being loaded');
    });
    await store.close();
  });

  it('leaves, when the process is killed during the load, a store that ensureIndexes at the next start makes whole again', async () => {
    const path = file('bulk');
    const store = new SqliteReadStore(path);
    await store.ensureIndexes(declared);
    await store.close();
    const script = `
      const { SqliteReadStore } = await import(${JSON.stringify(new URL('../../infra/readStore/sqlite.ts', import.meta.url).href)});
      const store = new SqliteReadStore(${JSON.stringify(path)});
      await store.bulkLoad(['things'], async () => {
        const things = Array.from({ length: 500 }, (_, i) => ({ insertOne: { collection: 'things', document: { _id: String(i).padStart(3, '0'), kind: i % 2 ? 'odd' : 'even', code: i } } }));
        await store.bulkWrite(things, [{ projection: 'p', position: { commit: 500n, prepare: 500n } }]);
        process.stdout.write('loading');
        await new Promise(() => setInterval(() => {}, 1000));
      });`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => child.stdout.once('data', resolve));
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(indexesOf(path)).toEqual(['ix_things_code_a']);
    const restarted = new SqliteReadStore(path);
    await restarted.ensureIndexes(declared);
    expect(indexesOf(path)).toEqual(both);
    expect(await restarted.getCheckpoint('p')).toEqual({ commit: 500n, prepare: 500n });
    expect((await restarted.find('things', { kind: 'odd' }, { sort: { _id: -1 }, limit: 2 })).map((d) => d._id)).toEqual(['499', '497']);
    await expect(restarted.bulkWrite([{ insertOne: { collection: 'things', document: { _id: 'x', code: 7 } } }])).rejects.toThrow();
    await restarted.close();
  }, 30_000);
});

describe('SQLite read store: its WAL checkpointed and scrubbed by a thread of its own', () => {
  const walSize = (path: string) => (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);
  const filesHold = (path: string, text: string) => [path, `${path}-wal`].some((f) => existsSync(f) && readFileSync(f).includes(Buffer.from(text)));
  const replaced = async (store: SqliteReadStore) => {
    await store.bulkWrite([{ insertOne: { collection: 'things', document: { _id: 'a', text: 'words to be replaced' } } }]);
    await store.bulkWrite([{ replaceOne: { collection: 'things', filter: { _id: 'a' }, replacement: { _id: 'a', text: 'the words after' } } }]);
  };

  it('empties the WAL soon after writes, text replaced gone from the files, while this thread checkpoints none and arms no timer', async () => {
    const path = file('kept');
    const store = new SqliteReadStore(path, 100);
    expect(store['db'].pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    await replaced(store);
    expect(store['scrubTimer']).toBeNull();
    await vi.waitFor(() => expect(walSize(path)).toBe(0), { timeout: 10_000 });
    expect(filesHold(path, 'words to be replaced')).toBe(false);
    expect(filesHold(path, 'the words after')).toBe(true);
    await store.close();
  });

  // A script file: a process that evaluates its code from -e ends with a running thread all the same.
  const exitOf = async (name: string, end: string) => {
    const script = join(dir, `${name}.mts`);
    writeFileSync(
      script,
      `const { SqliteReadStore } = await import(${JSON.stringify(new URL('../../infra/readStore/sqlite.ts', import.meta.url).href)});
      const store = new SqliteReadStore(${JSON.stringify(file('kept'))});
      await store.bulkWrite([{ insertOne: { collection: 'things', document: { _id: 'a' } } }]);
      ${end}`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'ignore', 'inherit'] });
    // Kept alive, it would outlast the test that timed out waiting for it.
    onTestFinished(() => void child.kill('SIGKILL'));
    const [code] = await once(child, 'exit');
    return code as number;
  };

  it('does not keep alive a process that ends without closing its store', async () => {
    expect(await exitOf('ends', '')).toBe(0);
  }, 30_000);

  it('keeps a process alive while it closes its store, to the end of the close', async () => {
    // 13: the process ended with its last await unsettled.
    expect(await exitOf('closes', 'await store.close();')).toBe(0);
  }, 30_000);

  it("begins its writes IMMEDIATE: a TRUNCATE by another connection between a write's read and its update does not refuse it", async () => {
    const path = file('kept');
    const store = new SqliteReadStore(path);
    await store.bulkWrite([{ insertOne: { collection: 'things', document: { _id: 'a', kind: 'k', n: 1 } } }]);
    const keeper = new Database(path);
    keeper.pragma('busy_timeout = 0');
    keeper.pragma('wal_checkpoint(PASSIVE)');
    // A deferred transaction's read would have taken a snapshot that the restarted WAL invalidates (SQLITE_BUSY_SNAPSHOT).
    const write = store['write'].bind(store);
    vi.spyOn(store as unknown as { write: typeof write }, 'write').mockImplementationOnce((name, doc) => {
      keeper.pragma('wal_checkpoint(TRUNCATE)');
      write(name, doc);
    });
    await store.bulkWrite([{ updateOne: { collection: 'things', filter: { kind: 'k' }, update: { $inc: { n: 1 } } } }]);
    expect((await store.findOne('things', { _id: 'a' }))?.n).toBe(2);
    keeper.close();
    await store.close();
  });

  it('checkpoints and scrubs on this thread again when that thread fails', async () => {
    const path = file('kept');
    const store = new SqliteReadStore(path, 100);
    await store['keeper']!['worker'].terminate();
    await vi.waitFor(() => expect(store['keeper']).toBeNull());
    expect(store['db'].pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    await replaced(store);
    expect(store['scrubTimer']).not.toBeNull();
    await vi.waitFor(() => expect(walSize(path)).toBe(0), { timeout: 10_000 });
    expect(filesHold(path, 'words to be replaced')).toBe(false);
    await store.close();
  });
});

describe('SQLite read store: query results', () => {
  it('are kept until the next write to their table, whatever writes it, and each caller gets its own array', async () => {
    const store = new SqliteReadStore(file('results'));
    const page = () => store.find('things', { kind: 'k' }, { sort: { _id: -1 }, limit: 2 });
    await store.bulkWrite(['a', 'b', 'c'].map((_id) => ({ insertOne: { collection: 'things', document: { _id, kind: 'k' } } })));
    const queries = vi.spyOn(store['db'], 'prepare');
    const statements = [...store['statements'].values()];
    const runs = statements.map((statement) => vi.spyOn(statement, 'all'));
    const ids = async () => (await page()).map((doc) => doc._id);
    expect(await ids()).toEqual(['c', 'b']);
    const first = await page();
    first.reverse();
    expect(await ids()).toEqual(['c', 'b']);
    expect(runs.reduce((n, run) => n + run.mock.calls.length, 0) + queries.mock.calls.length).toBe(1);
    const writes: WriteOp[] = [
      { insertOne: { collection: 'things', document: { _id: 'd', kind: 'k' } } },
      { updateOne: { collection: 'things', filter: { _id: 'd' }, update: { $set: { kind: 'other' } } } },
      { deleteOne: { collection: 'things', filter: { _id: 'c' } } },
      { insertOne: { collection: 'others', document: { _id: 'z', kind: 'k' } } },
    ];
    const expected = [
      ['d', 'c'],
      ['c', 'b'],
      ['b', 'a'],
      ['b', 'a'],
    ];
    for (const [i, op] of writes.entries()) {
      await store.bulkWrite([op]);
      expect(await ids(), JSON.stringify(op)).toEqual(expected[i]);
    }
    // What a rolled back write read inside its transaction (the $inc that fails reads the document the $push changed) is not kept.
    await store.ensureIndexes([{ collection: 'things', keys: { n: 1 }, unique: true }]);
    await store.bulkWrite([{ updateOne: { collection: 'things', filter: { _id: 'b' }, update: { $inc: { n: 1 } } } }]);
    const failing: WriteOp[] = [
      { updateOne: { collection: 'things', filter: { _id: 'a' }, update: { $push: { seen: 1 } } } },
      { updateOne: { collection: 'things', filter: { _id: 'a' }, update: { $inc: { n: 1 } } } },
    ];
    await expect(store.bulkWrite(failing)).rejects.toThrow();
    expect(await store.findOne('things', { _id: 'a' })).toEqual({ _id: 'a', kind: 'k' });
    await store.reset('things', ['things']);
    expect(await ids()).toEqual([]);
    await store.close();
  });
});

describe('SQLite read store: parsed documents', () => {
  it('gives a row read again with the same text the object parsed before (frozen), and a changed row a new one', async () => {
    const store = new SqliteReadStore(file('parsed'));
    await store.bulkWrite([{ insertOne: { collection: 'things', document: { _id: 'a', tags: ['x'] } } }]);
    const parse = vi.spyOn(JSON, 'parse');
    const first = await store.findOne('things', { _id: 'a' });
    const [again] = await store.find('things', {});
    expect(again).toBe(first);
    expect(parse).toHaveBeenCalledTimes(1);
    expect(() => (first!.tags as string[]).push('y')).toThrow(TypeError);
    await store.bulkWrite([{ updateOne: { collection: 'things', filter: { _id: 'a' }, update: { $push: { tags: 'y' } } } }]);
    const changed = await store.findOne('things', { _id: 'a' });
    expect(changed).toEqual({ _id: 'a', tags: ['x', 'y'] });
    expect(first).toEqual({ _id: 'a', tags: ['x'] });
    parse.mockRestore();
    await store.close();
  });
});

describe('SQLite read store: what a write removed or replaced', () => {
  it('is kept in memory by neither the parsed documents nor the query results', async () => {
    const store = new SqliteReadStore(file('forget'));
    await store.bulkWrite(['a', 'b', 'c'].map((_id) => ({ insertOne: { collection: 'things', document: { _id, kind: 'k', text: `secret ${_id}` } } })));
    await store.find('things', { kind: 'k' });
    await store.find('others', {});
    const held = () => JSON.stringify([...store['parsed'].values(), ...store['results'].values()]);
    expect(held()).toContain('secret a');
    await store.bulkWrite([
      { deleteMany: { collection: 'things', filter: { text: 'secret a' } } },
      { updateOne: { collection: 'things', filter: { _id: 'b' }, update: { $set: { text: 'edited' } } } },
      { replaceOne: { collection: 'things', filter: { _id: 'c' }, replacement: { _id: 'c', kind: 'k', text: 'replaced' } } },
    ]);
    expect(held()).not.toMatch(/secret/);
    await store.close();
  });
});

describe('SQLite event store: the events it committed last', () => {
  const event = (n: number): NewEvent => ({
    type: 'Noted',
    data: { n, nested: { list: [n] } },
    metadata: { actorId: null, createdAt: '2024-01-01T00:00:00.000Z' },
  });

  it('are handed to subscribers from memory, parsed once for all and frozen, equal to what the log reads; older events come from the log', async () => {
    const path = file('tail');
    const before = new SqliteEventStore(path);
    for (let i = 0; i < 5; i++) await before.appendToStream('earlier', [event(i)]);
    await before.close();

    const store = new SqliteEventStore(path);
    const seen: [RecordedEvent[], RecordedEvent[]] = [[], []];
    const subscriptions = seen.map((into) => store.subscribeToAll({}, async (batch) => void into.push(...batch)));
    await Promise.all(subscriptions.map((s) => s.caughtUp()));
    const queries = vi.spyOn(store['statements'].allForwards, 'all');
    await Promise.all(Array.from({ length: 30 }, (_, i) => store.appendToStream(`later-${i % 3}`, [event(100 + i), event(200 + i)])));
    await Promise.all(subscriptions.map((s) => s.caughtUp()));
    expect(queries).not.toHaveBeenCalled();
    const logged = await store.readAll({ maxCount: 100 });
    expect(logged).toHaveLength(65);
    for (const into of seen) expect(into).toEqual(logged);
    expect(seen[0][64]).toBe(seen[1][64]);
    expect(Object.isFrozen((seen[0][64].data as { nested: object }).nested)).toBe(true);
    for (const s of subscriptions) await s.stop();
    await store.close();
  });
});

describe('SQLite key store: destroyed keys', () => {
  it('leave not even their wrapped form in keys.db or its WAL once the scrub ran, while the store stays open', async () => {
    const path = file('keys');
    const keys = new SqliteKeyStore(path, SecretBox.fromKey(randomBytes(32)), 50);
    const created = await Promise.all(Array.from({ length: 600 }, () => keys.create()));
    const db = new Database(path, { readonly: true });
    const wrapped = db.prepare('SELECT id, wrapped FROM keys').all() as { id: string; wrapped: string }[];
    db.close();
    const wrappedOf = new Map(wrapped.map((row) => [row.id, row.wrapped]));
    const [gone, kept] = [created.slice(0, 300), created.slice(300)];
    const stored = () => Buffer.concat([path, `${path}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f)));
    const left = (list: typeof created) => list.filter((key) => stored().includes(wrappedOf.get(key.id)!)).length;
    expect(left(created)).toBe(600);
    await keys.apply({ owned: gone.map((key) => ({ keyId: key.id, subject: 'channel:9' })), erased: [{ subject: 'channel:9' }] }, { commit: 1n, prepare: 1n });
    await vi.waitFor(() => expect(statSync(`${path}-wal`).size).toBe(0), { timeout: 5000 });
    expect(left(gone)).toBe(0);
    expect(left(kept)).toBe(300);
    await keys.close();
  });
});

describe('SQLite key store: another connection writing keys.db', () => {
  // The WAL scrub's checkpoint holds keys.db's write lock while it waits for readers: the key writer thread, had it
  // read before it wrote, could not take the lock (SQLite refuses a reader's upgrade at once, without waiting), and
  // the shredder would stop.
  it('makes an erasure wait for the lock, not fail', async () => {
    const path = file('keys');
    const master = randomBytes(32);
    const keys = new SqliteKeyStore(path, MasterKeys.of(master, [], SecretBox.fromKey(randomBytes(32))), 60_000, master);
    const key = await keys.create();
    await keys.apply({ owned: [{ keyId: key.id, subject: 'message:1' }], erased: [] }, { commit: 1n, prepare: 1n });
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    setTimeout(() => other.exec('ROLLBACK'), 200);
    // Owners already known: the thread's first statement is the read of the erased subject's keys.
    await expect(keys.apply({ owned: [], erased: [{ subject: 'message:1' }] }, { commit: 2n, prepare: 2n })).resolves.toBe(true);
    expect(await keys.load([key.id])).toEqual(new Map());
    other.close();
    await keys.close();
  });
});
