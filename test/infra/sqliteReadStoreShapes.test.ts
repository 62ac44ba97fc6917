// The SQL infra/readStore/sqlite.ts keeps by a query's shape: filters of one shape with other values read their own
// documents, and what changes the SQL (an equality with null, a list's length or its null, an $exists's truth, the
// sort, a limit) makes another shape, whichever was seen first.
import { describe, expect, it } from 'vitest';
import { SqliteReadStore } from '../../infra/readStore/sqlite.js';
import type { Doc, Filter, FindOptions } from '../../ports/readStore.js';

const C = 'shapes';
const docs: Doc[] = [
  { _id: 'a', n: 1, tag: 'x', tags: ['p', 'q'] },
  { _id: 'b', n: 2, tag: null, tags: ['q'] },
  { _id: 'c', n: 3, tags: [] },
];

async function store() {
  const read = new SqliteReadStore(':memory:');
  await read.bulkWrite(docs.map((document) => ({ insertOne: { collection: C, document } })));
  return read;
}

const ids = async (read: SqliteReadStore, filter: Filter, options?: FindOptions) => (await read.find(C, filter, options)).map((doc) => doc._id);

describe('SqliteReadStore: SQL kept by shape', () => {
  it('reads each filter of a shape with its own values', async () => {
    const read = await store();
    expect(await ids(read, { n: 1 })).toEqual(['a']);
    expect(await ids(read, { n: 2 })).toEqual(['b']);
    expect(await ids(read, { n: { $gt: 1, $lte: 3 } }, { sort: { n: -1 } })).toEqual(['c', 'b']);
    expect(await ids(read, { n: { $gt: 2, $lte: 3 } }, { sort: { n: -1 } })).toEqual(['c']);
    expect(await ids(read, { tags: { $all: ['q'] } })).toEqual(['a', 'b']);
    expect(await ids(read, { tags: { $all: ['p', 'q'] } })).toEqual(['a']);
    expect(await read.count(C, { n: { $gte: 2 } })).toBe(2);
    expect(await read.count(C, { n: { $gte: 3 } })).toBe(1);
  });

  it('tells apart what changes the SQL, whichever comes first', async () => {
    const read = await store();
    expect(await ids(read, { tag: 'x' })).toEqual(['a']);
    expect(await ids(read, { tag: null })).toEqual(['b', 'c']);
    expect(await ids(read, { n: { $in: [1, 2] } })).toEqual(['a', 'b']);
    expect(await ids(read, { n: { $in: [1] } })).toEqual(['a']);
    expect(await ids(read, { tag: { $in: ['x', null] } })).toEqual(['a', 'b', 'c']);
    expect(await ids(read, { tag: { $in: [null, 'x'] } })).toEqual(['a', 'b', 'c']);
    expect(await ids(read, { tag: { $nin: ['x', null] } })).toEqual([]);
    expect(await ids(read, { tag: { $nin: ['x'] } })).toEqual(['b', 'c']);
    expect(await ids(read, { tag: { $exists: true } })).toEqual(['a']);
    expect(await ids(read, { tag: { $exists: false } })).toEqual(['b', 'c']);
    expect(await ids(read, { n: { $gte: 1 } }, { sort: { n: 1 } })).toEqual(['a', 'b', 'c']);
    expect(await ids(read, { n: { $gte: 1 } }, { sort: { n: -1 } })).toEqual(['c', 'b', 'a']);
    expect(await ids(read, { n: { $gte: 1 } }, { sort: { n: -1 }, limit: 1 })).toEqual(['c']);
    expect(await ids(read, { n: { $gte: 1 } }, { sort: { n: -1 }, skip: 2 })).toEqual(['a']);
  });

  it('refuses an unknown operator and a bad path every time, not only the first', async () => {
    const read = await store();
    for (let i = 0; i < 2; i++) {
      await expect(read.find(C, { n: { $regex: 'x' } as never })).rejects.toThrow(/Unsupported filter operator/);
      await expect(read.find(C, { "n') OR 1 --": 1 })).rejects.toThrow(/Unsupported field path/);
    }
  });
});
