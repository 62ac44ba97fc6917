// The in-memory documents of infra/readStore/cached.ts: a read by _id is answered from memory, every write through the
// store drops what it may change before it resolves, a read that a write overtook keeps nothing stale, and the cache
// holds at most its capacity.
import { describe, expect, it, vi } from 'vitest';
import { CachedReadStore } from '../../infra/readStore/cached.js';
import { SqliteReadStore } from '../../infra/readStore/sqlite.js';
import type { Doc, WriteOp } from '../../ports/readStore.js';

const T = 'tokens';
const OTHER = 'messages';

function stores(capacity?: number) {
  const inner = new SqliteReadStore(':memory:');
  const reads = vi.spyOn(inner, 'findOne');
  return { inner, reads, store: new CachedReadStore(inner, [T], capacity) };
}

const doc = (id: string, extra: Record<string, unknown> = {}): Doc => ({ _id: id, user_id: 'u1', kind: 'session', ...extra });

describe('CachedReadStore', () => {
  it('answers a repeated read by _id from memory, and only reads by _id of the collections it was given', async () => {
    const { store, reads } = stores();
    await store.bulkWrite([{ insertOne: { collection: T, document: doc('a') } }, { insertOne: { collection: OTHER, document: doc('m') } }]);
    for (let i = 0; i < 3; i++) expect(await store.findOne(T, { _id: 'a' })).toEqual(doc('a'));
    expect(reads).toHaveBeenCalledTimes(1);
    await store.findOne(T, { _id: 'a', kind: 'session' });
    await store.findOne(OTHER, { _id: 'm' });
    await store.findOne(OTHER, { _id: 'm' });
    expect(reads).toHaveBeenCalledTimes(4);
    // An unknown id is not remembered: its document may be written next.
    expect(await store.findOne(T, { _id: 'b' })).toBeNull();
    await store.bulkWrite([{ insertOne: { collection: T, document: doc('b') } }]);
    expect(await store.findOne(T, { _id: 'b' })).toEqual(doc('b'));
  });

  it('shows every kind of write on the next read, whether its filter names the document or not', async () => {
    const { store } = stores();
    const writes: [WriteOp, Doc | null][] = [
      [{ replaceOne: { collection: T, filter: { _id: 'a' }, replacement: doc('a', { kind: 'bot' }), upsert: true } }, doc('a', { kind: 'bot' })],
      [{ updateOne: { collection: T, filter: { _id: 'a' }, update: { $set: { user_id: 'u2' } } } }, doc('a', { kind: 'bot', user_id: 'u2' })],
      [{ updateMany: { collection: T, filter: { user_id: 'u2' }, update: { $set: { kind: 'session' } } } }, doc('a', { user_id: 'u2' })],
      [{ replaceOne: { collection: T, filter: { user_id: 'u2' }, replacement: doc('c'), upsert: false } }, null],
      [{ insertOne: { collection: T, document: doc('a') } }, doc('a')],
      [{ deleteMany: { collection: T, filter: { kind: 'session' } } }, null],
      [{ insertOne: { collection: T, document: doc('a') } }, doc('a')],
      [{ deleteOne: { collection: T, filter: { _id: 'a' } } }, null],
    ];
    await store.bulkWrite([{ insertOne: { collection: T, document: doc('a') } }]);
    for (const [op, after] of writes) {
      await store.findOne(T, { _id: 'a' });
      await store.bulkWrite([op]);
      expect(await store.findOne(T, { _id: 'a' }), JSON.stringify(op)).toEqual(after);
    }
    await store.findOne(T, { _id: 'c' });
    await store.reset('users', [T]);
    expect(await store.findOne(T, { _id: 'c' })).toBeNull();
  });

  it('keeps nothing from a read that a write to the collection overtook', async () => {
    const { inner, store } = stores();
    await store.bulkWrite([{ insertOne: { collection: T, document: doc('a') } }]);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const read = inner.findOne.bind(inner);
    vi.spyOn(inner, 'findOne').mockImplementationOnce(async (collection, filter) => {
      const found = await read(collection, filter);
      await gate;
      return found;
    });
    const slow = store.findOne(T, { _id: 'a' });
    await store.bulkWrite([{ deleteOne: { collection: T, filter: { _id: 'a' } } }]);
    release();
    expect(await slow).toEqual(doc('a'));
    expect(await store.findOne(T, { _id: 'a' })).toBeNull();
  });

  it('holds at most its capacity, dropping the least recently read', async () => {
    const { store, reads } = stores(3);
    await store.bulkWrite(['a', 'b', 'c', 'd'].map((id) => ({ insertOne: { collection: T, document: doc(id) } })));
    for (const id of ['a', 'b', 'c', 'a', 'd']) await store.findOne(T, { _id: id });
    expect(reads).toHaveBeenCalledTimes(4);
    for (const id of ['a', 'c', 'd']) await store.findOne(T, { _id: id });
    expect(reads).toHaveBeenCalledTimes(4);
    await store.findOne(T, { _id: 'b' });
    expect(reads).toHaveBeenCalledTimes(5);
  });

  it('gives out documents no reader can change for the others', async () => {
    const { store } = stores();
    await store.bulkWrite([{ insertOne: { collection: T, document: doc('a', { scopes: ['identify'] }) } }]);
    const first = await store.findOne<Doc & { scopes: string[] }>(T, { _id: 'a' });
    expect(() => first!.scopes.push('guilds')).toThrow(TypeError);
    expect(() => Object.assign(first!, { kind: 'bot' })).toThrow(TypeError);
    expect(await store.findOne(T, { _id: 'a' })).toEqual(doc('a', { scopes: ['identify'] }));
  });
});
