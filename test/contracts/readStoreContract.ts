// The behaviour every read store adapter must show (embedded SQLite always, MongoDB when a Docker engine is there).
// Each test works in collections and projections named for it alone, so a shared server needs no clean-up.
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Position } from '../../ports/eventStore.js';
import type { Doc, Filter, ReadStore, Update } from '../../ports/readStore.js';

const at = (n: bigint): Position => ({ commit: n, prepare: n });

/** The labels of every collection the tests below use: a store that wraps another is told their names in advance. */
const COLLECTIONS = [
  'a',
  'b',
  'docs',
  'dup',
  'last',
  'many',
  'maxed',
  'mine',
  'never_written',
  'nothing_here',
  'other',
  'people',
  'seen',
  'theirs',
  'things',
  'users',
];

/** `factory` gets the names of the collections the test uses; `bulkLoad`: the adapter implements the port's optional bulkLoad. */
export function describeReadStoreContract(name: string, factory: (collections: string[]) => Promise<ReadStore>, options: { bulkLoad?: boolean } = {}): void {
  describe(`${name}: read store contract`, () => {
    let store: ReadStore;
    let suffix: string;
    /** A collection or projection name of this test alone. */
    const own = (label: string) => `${label}_${suffix}`;
    const insert = (collection: string, ...documents: Doc[]): Promise<void> =>
      store.bulkWrite(documents.map((document) => ({ insertOne: { collection: own(collection), document } })));
    const ids = (docs: Doc[]) => docs.map((d) => d._id);

    beforeEach(async () => {
      suffix = randomUUID().replaceAll('-', '').slice(0, 12);
      store = await factory(COLLECTIONS.map(own));
    });
    afterEach(async () => {
      await store.close();
    });

    describe('queries', () => {
      beforeEach(async () => {
        await insert(
          'people',
          { _id: 'ann', name: 'Ann', age: 31, admin: true, tags: ['a', 'b'], address: { city: 'Oslo', zip: '0150' } },
          { _id: 'bob', name: 'Bob', age: 25, admin: false, tags: ['b'], address: { city: 'Bergen' } },
          { _id: 'cid', name: 'Cid', age: 40, admin: false, tags: [], nickname: null },
          { _id: 'dee', name: 'Dee', age: 25, admin: true, tags: ['a', 'c'], address: { city: 'Oslo' } },
        );
      });

      it('findOne by _id or field, null when nothing matches', async () => {
        expect(await store.findOne(own('people'), { _id: 'bob' })).toEqual({
          _id: 'bob',
          name: 'Bob',
          age: 25,
          admin: false,
          tags: ['b'],
          address: { city: 'Bergen' },
        });
        expect((await store.findOne(own('people'), { name: 'Cid' }))?._id).toBe('cid');
        expect(await store.findOne(own('people'), { _id: 'zed' })).toBeNull();
        expect(await store.findOne(own('nothing_here'), {})).toBeNull();
      });

      it('equality on values, booleans, dotted paths and null (null matches a missing field too)', async () => {
        expect(ids(await store.find(own('people'), { admin: true }, { sort: { _id: 1 } }))).toEqual(['ann', 'dee']);
        expect(ids(await store.find(own('people'), { 'address.city': 'Oslo' }, { sort: { _id: 1 } }))).toEqual(['ann', 'dee']);
        expect(ids(await store.find(own('people'), { age: 25, admin: false }))).toEqual(['bob']);
        expect(ids(await store.find(own('people'), { nickname: null }, { sort: { _id: 1 } }))).toEqual(['ann', 'bob', 'cid', 'dee']);
        expect(ids(await store.find(own('people'), { 'address.zip': null }, { sort: { _id: 1 } }))).toEqual(['bob', 'cid', 'dee']);
      });

      it('comparison operators', async () => {
        const find = async (filter: Filter) => ids(await store.find(own('people'), filter, { sort: { _id: 1 } })).join(',');
        expect(await find({ age: { $eq: 25 } })).toBe('bob,dee');
        expect(await find({ age: { $ne: 25 } })).toBe('ann,cid');
        expect(await find({ age: { $gt: 25 } })).toBe('ann,cid');
        expect(await find({ age: { $gte: 31 } })).toBe('ann,cid');
        expect(await find({ age: { $lt: 31 } })).toBe('bob,dee');
        expect(await find({ age: { $lte: 31 } })).toBe('ann,bob,dee');
        expect(await find({ age: { $gt: 24, $lt: 31 } })).toBe('bob,dee');
        expect(await find({ name: { $in: ['Ann', 'Cid', 'Zed'] } })).toBe('ann,cid');
        expect(await find({ name: { $in: [] } })).toBe('');
        expect(await find({ name: { $nin: ['Ann', 'Cid'] } })).toBe('bob,dee');
        expect(await find({ 'address.zip': { $nin: ['0150'] } })).toBe('bob,cid,dee');
        expect(await find({ address: { $exists: false } })).toBe('cid');
        expect(await find({ 'address.city': { $exists: true } })).toBe('ann,bob,dee');
        expect(await find({ _id: { $gt: 'b' } })).toBe('bob,cid,dee');
      });

      it('null stands for null or missing in $eq, $ne, $in and $nin, as in MongoDB', async () => {
        const find = async (filter: Filter) => ids(await store.find(own('people'), filter, { sort: { _id: 1 } })).join(',');
        const count = (filter: Filter) => store.count(own('people'), filter);
        // nickname: null on cid, missing elsewhere; address.zip: only ann's; address: missing on cid.
        expect(await find({ nickname: { $eq: null } })).toBe('ann,bob,cid,dee');
        expect(await find({ nickname: { $ne: null } })).toBe('');
        expect(await find({ 'address.zip': { $ne: null } })).toBe('ann');
        expect(await find({ 'address.zip': { $in: [null, '0150'] } })).toBe('ann,bob,cid,dee');
        expect(await find({ 'address.zip': { $in: [null] } })).toBe('bob,cid,dee');
        expect(await find({ 'address.city': { $in: [null, 'Bergen'] } })).toBe('bob,cid');
        expect(await find({ 'address.city': { $nin: [null] } })).toBe('ann,bob,dee');
        expect(await find({ 'address.city': { $nin: [null, 'Oslo'] } })).toBe('bob');
        expect(await find({ 'address.city': { $nin: ['Oslo'] } })).toBe('bob,cid');
        expect(await find({ name: { $nin: [] } })).toBe('ann,bob,cid,dee');
        expect(await find({ age: { $in: [null, 25] }, 'address.city': { $in: [null, 'Oslo'] } })).toBe('dee');
        expect(await count({ nickname: { $in: [null] } })).toBe(4);
        // Writes select by the same rules.
        await store.bulkWrite([
          { updateMany: { collection: own('people'), filter: { 'address.city': { $in: [null, 'Bergen'] } }, update: { $set: { far: true } } } },
        ]);
        expect(await find({ far: true })).toBe('bob,cid');
        await store.bulkWrite([{ deleteMany: { collection: own('people'), filter: { 'address.zip': { $nin: [null] } } } }]);
        expect(await find({})).toBe('bob,cid,dee');
      });

      it('$all asks whether an array holds every value', async () => {
        expect(ids(await store.find(own('people'), { tags: { $all: ['a'] } }, { sort: { _id: 1 } }))).toEqual(['ann', 'dee']);
        expect(ids(await store.find(own('people'), { tags: { $all: ['a', 'b'] } }))).toEqual(['ann']);
        expect(ids(await store.find(own('people'), { tags: { $all: ['z'] } }))).toEqual([]);
      });

      it('sort on one or more keys, limit and skip, count', async () => {
        expect(ids(await store.find(own('people'), {}, { sort: { age: -1 } }))[0]).toBe('cid');
        expect(ids(await store.find(own('people'), {}, { sort: { age: 1, name: -1 } }))).toEqual(['dee', 'bob', 'ann', 'cid']);
        expect(ids(await store.find(own('people'), {}, { sort: { _id: 1 }, limit: 2 }))).toEqual(['ann', 'bob']);
        expect(ids(await store.find(own('people'), {}, { sort: { _id: 1 }, skip: 1, limit: 2 }))).toEqual(['bob', 'cid']);
        expect(ids(await store.find(own('people'), {}, { sort: { _id: 1 }, skip: 3 }))).toEqual(['dee']);
        expect(ids(await store.find(own('people'), {}, { sort: { 'address.city': 1, _id: 1 } }))).toEqual(['cid', 'bob', 'ann', 'dee']);
        expect(await store.count(own('people'), {})).toBe(4);
        expect(await store.count(own('people'), { age: 25 })).toBe(2);
        expect(await store.count(own('nothing_here'), {})).toBe(0);
      });
    });

    describe('updates', () => {
      const one = async (id: string) => store.findOne(own('things'), { _id: id });
      const update = (filter: Filter, change: Update, upsert = false) => ({ updateOne: { collection: own('things'), filter, update: change, upsert } });

      beforeEach(async () => {
        await insert('things', {
          _id: 't1',
          count: 1,
          list: [1, 2, 3, 2],
          members: [
            { id: 'a', role: 'x' },
            { id: 'b', role: 'y' },
          ],
          nested: { keep: 1, drop: 2 },
        });
      });

      it('$set (dotted, creating parents) and $unset', async () => {
        await store.bulkWrite([update({ _id: 't1' }, { $set: { title: 'T', 'deep.er.value': 5, 'nested.keep': 9 }, $unset: { 'nested.drop': '' } })]);
        expect(await one('t1')).toMatchObject({ title: 'T', deep: { er: { value: 5 } }, nested: { keep: 9 } });
        expect((await one('t1'))!.nested).toEqual({ keep: 9 });
      });

      it('$inc adds to a number and starts a missing one at zero', async () => {
        await store.bulkWrite([update({ _id: 't1' }, { $inc: { count: 2, 'stats.views': 3 } })]);
        await store.bulkWrite([update({ _id: 't1' }, { $inc: { count: -1 } })]);
        expect(await one('t1')).toMatchObject({ count: 2, stats: { views: 3 } });
      });

      it('$push appends, with $each several; a missing array is created', async () => {
        await store.bulkWrite([update({ _id: 't1' }, { $push: { list: 4, fresh: { $each: ['x', 'y'] } } })]);
        expect(await one('t1')).toMatchObject({ list: [1, 2, 3, 2, 4], fresh: ['x', 'y'] });
      });

      it('$pull removes every equal element, or elements whose listed fields match', async () => {
        await store.bulkWrite([update({ _id: 't1' }, { $pull: { list: 2, members: { id: 'a' } } })]);
        expect(await one('t1')).toMatchObject({ list: [1, 3], members: [{ id: 'b', role: 'y' }] });
      });

      it('$max sets a string field that is missing, null, a number or a smaller string, and leaves the rest; several in a write keep the largest', async () => {
        const fields = { missing: undefined, nul: null, num: 7, less: '099', more: '101', same: '100', flag: true, obj: { a: 1 }, utf8: '\uffff' };
        await insert('maxed', { _id: 'm', ...fields });
        const raise = (path: string, value: string) => ({ updateOne: { collection: own('maxed'), filter: { _id: 'm' }, update: { $max: { [path]: value } } } });
        const expected = {
          _id: 'm',
          missing: '100',
          nul: '100',
          num: '100',
          less: '100',
          more: '101',
          same: '100',
          flag: true,
          obj: { a: 1 },
          utf8: '\u{1F600}',
        };
        // One write per field, and all in one write.
        for (const path of Object.keys(fields)) await store.bulkWrite([raise(path, '100')]);
        await store.bulkWrite([raise('utf8', '\u{1F600}')]);
        expect(await store.findOne(own('maxed'), { _id: 'm' })).toEqual(expected);
        await store.bulkWrite([{ replaceOne: { collection: own('maxed'), filter: { _id: 'm' }, replacement: { _id: 'm', ...fields } } }]);
        await store.bulkWrite([...Object.keys(fields).map((path) => raise(path, '100')), raise('utf8', '\u{1F600}')]);
        expect(await store.findOne(own('maxed'), { _id: 'm' })).toEqual(expected);
        await store.bulkWrite([
          raise('seq', '2'),
          raise('seq', '3'),
          raise('seq', '1'),
          { ...raise('seq', '0'), updateOne: { ...raise('seq', '0').updateOne, filter: { _id: 'nobody' } } },
        ]);
        expect((await store.findOne(own('maxed'), { _id: 'm' }))!.seq).toBe('3');
        // A write between two raises of the document comes between them.
        await store.bulkWrite([
          raise('seq', '9'),
          { deleteOne: { collection: own('maxed'), filter: { _id: 'm' } } },
          { insertOne: { collection: own('maxed'), document: { _id: 'm', seq: '1' } } },
          raise('seq', '5'),
        ]);
        expect(await store.findOne(own('maxed'), { _id: 'm' })).toEqual({ _id: 'm', seq: '5' });
      });

      it('$addToSet adds only values not already there, with $each several', async () => {
        await store.bulkWrite([update({ _id: 't1' }, { $addToSet: { list: 3, tags: { $each: ['a', 'b', 'a'] } } })]);
        await store.bulkWrite([update({ _id: 't1' }, { $addToSet: { list: 7, tags: 'b' } })]);
        expect(await one('t1')).toMatchObject({ list: [1, 2, 3, 2, 7], tags: ['a', 'b'] });
      });

      it('upsert inserts from the filter equalities and the update, with $setOnInsert only on insert', async () => {
        const op = update({ _id: 't2', kind: 'k' }, { $set: { seen: true }, $inc: { hits: 1 }, $setOnInsert: { created: 'first' } }, true);
        await store.bulkWrite([op]);
        expect(await one('t2')).toEqual({ _id: 't2', kind: 'k', seen: true, hits: 1, created: 'first' });
        await store.bulkWrite([update(op.updateOne.filter, { $inc: { hits: 1 }, $setOnInsert: { created: 'again' } }, true)]);
        expect(await one('t2')).toEqual({ _id: 't2', kind: 'k', seen: true, hits: 2, created: 'first' });
      });

      it('an upsert whose filter has no _id gets a string _id', async () => {
        await store.bulkWrite([update({ email: 'x@example.com' }, { $set: { n: 1 } }, true)]);
        const doc = await store.findOne(own('things'), { email: 'x@example.com' });
        expect(doc).toMatchObject({ email: 'x@example.com', n: 1 });
        expect(typeof doc!._id).toBe('string');
      });

      it('updateOne without upsert on no match changes nothing', async () => {
        await store.bulkWrite([update({ _id: 'nobody' }, { $set: { n: 1 } })]);
        expect(await store.count(own('things'), {})).toBe(1);
      });

      it('updateOne changes one match, updateMany all of them', async () => {
        await insert('many', { _id: 'm1', g: 1 }, { _id: 'm2', g: 1 }, { _id: 'm3', g: 2 });
        await store.bulkWrite([{ updateOne: { collection: own('many'), filter: { g: 1 }, update: { $set: { one: true } } } }]);
        expect(await store.count(own('many'), { one: true })).toBe(1);
        await store.bulkWrite([{ updateMany: { collection: own('many'), filter: { g: 1 }, update: { $set: { all: true } } } }]);
        expect(ids(await store.find(own('many'), { all: true }, { sort: { _id: 1 } }))).toEqual(['m1', 'm2']);
      });

      it('replaceOne replaces the whole document, and upserts when asked', async () => {
        await store.bulkWrite([
          { replaceOne: { collection: own('things'), filter: { _id: 't1' }, replacement: { _id: 't1', only: 'this' } } },
          { replaceOne: { collection: own('things'), filter: { _id: 't3' }, replacement: { _id: 't3', made: true }, upsert: true } },
          { replaceOne: { collection: own('things'), filter: { _id: 't4' }, replacement: { _id: 't4', made: true } } },
        ]);
        expect(await one('t1')).toEqual({ _id: 't1', only: 'this' });
        expect(await one('t3')).toEqual({ _id: 't3', made: true });
        expect(await one('t4')).toBeNull();
      });

      it('deleteOne removes one match, deleteMany all of them', async () => {
        await insert('many', { _id: 'm1', g: 1 }, { _id: 'm2', g: 1 }, { _id: 'm3', g: 1 }, { _id: 'm4', g: 2 });
        await store.bulkWrite([{ deleteOne: { collection: own('many'), filter: { g: 1 } } }]);
        expect(await store.count(own('many'), { g: 1 })).toBe(2);
        await store.bulkWrite([{ deleteMany: { collection: own('many'), filter: { g: 1 } } }]);
        expect(ids(await store.find(own('many'), {}))).toEqual(['m4']);
      });

      it('operations of one bulk write apply in order, across collections', async () => {
        await store.bulkWrite([
          { insertOne: { collection: own('a'), document: { _id: 'x', v: 1 } } },
          { updateOne: { collection: own('b'), filter: { _id: 'y' }, update: { $set: { v: 1 } }, upsert: true } },
          { updateOne: { collection: own('a'), filter: { _id: 'x' }, update: { $inc: { v: 10 } } } },
          { deleteOne: { collection: own('b'), filter: { _id: 'y' } } },
          { updateOne: { collection: own('b'), filter: { _id: 'y' }, update: { $inc: { v: 5 } }, upsert: true } },
        ]);
        expect(await store.findOne(own('a'), { _id: 'x' })).toEqual({ _id: 'x', v: 11 });
        expect(await store.findOne(own('b'), { _id: 'y' })).toEqual({ _id: 'y', v: 5 });
      });

      it('updates of one document by id within a bulk write each see the one before, conditions included', async () => {
        await insert('last', { _id: 'c', last: null, n: 0 });
        const seen = (id: string) => ({
          updateOne: { collection: own('last'), filter: { _id: 'c', last: { $lt: id } }, update: { $set: { last: id }, $inc: { n: 1 } } },
        });
        await store.bulkWrite([
          { updateOne: { collection: own('last'), filter: { _id: 'c', last: null }, update: { $set: { last: '105' }, $inc: { n: 1 } } } },
          seen('103'),
          seen('107'),
          seen('106'),
          { updateOne: { collection: own('last'), filter: { _id: 'c', last: null }, update: { $set: { last: '100' } } } },
        ]);
        expect(await store.findOne(own('last'), { _id: 'c' })).toEqual({ _id: 'c', last: '107', n: 2 });
      });

      it('a run of updates of one document by id in a bulk write gives what the same updates give one write at a time', async () => {
        const start = { _id: 'r', n: 1, half: 0.5, name: 'a', last: '100', nested: { n: 1 }, list: [] };
        const by = (update: Update, id = 'r') => ({ updateOne: { collection: own('seen'), filter: { _id: id }, update } });
        const runs = [
          // Counted and stamped message after message, the way a thread's counts are.
          by({ $inc: { n: 1, count: 1 }, $set: { last_id: '1' } }),
          by({ $inc: { n: 1, count: 1 }, $set: { last_id: '2' }, $max: { last: '101' } }),
          by({ $inc: { n: -3 }, $max: { last: '099' } }),
          // One field by two operators, in one update and across two: applied in turn.
          by({ $set: { name: 'b' } }),
          by({ $max: { name: 'c' } }),
          by({ $inc: { name_count: 1 }, $set: { name_count: 5 } }),
          // Fractions, dotted paths and other operators between the updates of a run.
          by({ $inc: { half: 0.25 } }),
          by({ $inc: { half: 0.125, 'nested.n': 1 } }),
          by({ $push: { list: 1 } }),
          by({ $inc: { n: 10 } }),
          // Another document in between, one that does not exist, and an upsert.
          by({ $inc: { n: 100 } }, 'other'),
          by({ $inc: { n: 1000 } }),
          by({ $inc: { n: 1 } }, 'nobody'),
          { updateOne: { collection: own('seen'), filter: { _id: 'r' }, update: { $inc: { n: 1 } }, upsert: true } },
          by({ $inc: { n: 10000 }, $set: { done: true } }),
        ];
        const copy = structuredClone(runs);
        await insert('seen', start, { _id: 'other', n: 0 });
        await store.bulkWrite(runs);
        const together = await store.find(own('seen'), {}, { sort: { _id: 1 } });
        expect(runs).toEqual(copy);
        await store.bulkWrite([{ deleteMany: { collection: own('seen'), filter: {} } }]);
        await insert('seen', start, { _id: 'other', n: 0 });
        for (const op of runs) await store.bulkWrite([op]);
        expect(together).toEqual(await store.find(own('seen'), {}, { sort: { _id: 1 } }));
        expect(together[1]).toMatchObject({ _id: 'r', n: 11011, count: 2, last_id: '2', last: '101', name: 'c', name_count: 6, half: 0.875, done: true });
      });

      it('a query-filtered operation in a bulk write sees the changes made by id before it', async () => {
        await insert('seen', { _id: 's1', g: 1, v: 0 }, { _id: 's2', g: 1, v: 0 });
        await store.bulkWrite([
          { updateOne: { collection: own('seen'), filter: { _id: 's1' }, update: { $set: { g: 2 } } } },
          { updateMany: { collection: own('seen'), filter: { g: 1 }, update: { $inc: { v: 1 } } } },
          { replaceOne: { collection: own('seen'), filter: { _id: 's3' }, replacement: { _id: 's3', g: 2 }, upsert: true } },
          { deleteMany: { collection: own('seen'), filter: { g: 2 } } },
          { updateOne: { collection: own('seen'), filter: { _id: 's3' }, update: { $set: { back: true } } } },
        ]);
        expect(await store.find(own('seen'), {}, { sort: { _id: 1 } })).toEqual([{ _id: 's2', g: 1, v: 1 }]);
      });

      it('an upsert by id whose other conditions do not match an existing document is refused, as a duplicate id', async () => {
        await insert('dup', { _id: 'd', last: '9' });
        const upsert = store.bulkWrite([
          { updateOne: { collection: own('dup'), filter: { _id: 'd', last: { $lt: '5' } }, update: { $set: { last: '5' } }, upsert: true } },
        ]);
        await expect(upsert).rejects.toThrow();
        expect(await store.findOne(own('dup'), { _id: 'd' })).toEqual({ _id: 'd', last: '9' });
      });
    });

    describe('checkpoints', () => {
      it('round-trip with the writes they cover, positions beyond 2^53 included', async () => {
        expect(await store.getCheckpoint(own('proj'))).toBeNull();
        const far = { commit: 2n ** 60n + 7n, prepare: 2n ** 60n + 3n };
        await store.bulkWrite([{ insertOne: { collection: own('docs'), document: { _id: 'd1' } } }], [{ projection: own('proj'), position: far }]);
        expect(await store.getCheckpoint(own('proj'))).toEqual(far);
        await store.bulkWrite(
          [],
          [
            { projection: own('proj'), position: at(9n) },
            { projection: own('other'), position: at(4n) },
          ],
        );
        expect(await store.getCheckpoint(own('proj'))).toEqual(at(9n));
        expect(await store.getCheckpoint(own('other'))).toEqual(at(4n));
        expect(await store.getCheckpoints([own('proj'), own('none'), own('other')])).toEqual(
          new Map([
            [own('proj'), at(9n)],
            [own('none'), null],
            [own('other'), at(4n)],
          ]),
        );
      });

      it('a failing operation rolls back the whole bulk write, its checkpoint included', async () => {
        await store.bulkWrite([{ insertOne: { collection: own('docs'), document: { _id: 'd1', v: 1 } } }], [{ projection: own('proj'), position: at(1n) }]);
        const failing = store.bulkWrite(
          [
            { updateOne: { collection: own('docs'), filter: { _id: 'd1' }, update: { $set: { v: 2 } } } },
            { insertOne: { collection: own('other'), document: { _id: 'o1' } } },
            { insertOne: { collection: own('docs'), document: { _id: 'd1', v: 3 } } },
          ],
          [{ projection: own('proj'), position: at(2n) }],
        );
        await expect(failing).rejects.toThrow();
        expect(await store.findOne(own('docs'), { _id: 'd1' })).toEqual({ _id: 'd1', v: 1 });
        expect(await store.findOne(own('other'), { _id: 'o1' })).toBeNull();
        expect(await store.getCheckpoint(own('proj'))).toEqual(at(1n));
      });
    });

    describe('indexes', () => {
      it('a unique index refuses a second document with the same key, and is declared idempotently', async () => {
        const index = { collection: own('users'), keys: { 'login.name': 1 as const }, unique: true };
        await store.ensureIndexes([index, { collection: own('users'), keys: { age: -1 as const, name: 1 as const } }]);
        await store.ensureIndexes([index]);
        await insert('users', { _id: 'u1', login: { name: 'ann' } });
        await expect(insert('users', { _id: 'u2', login: { name: 'ann' } })).rejects.toThrow();
        await insert('users', { _id: 'u3', login: { name: 'bob' } });
        expect(await store.count(own('users'), {})).toBe(2);
      });

      it('a bulk write of many documents replaced by id writes each in turn, and a unique index refuses it whole', async () => {
        await store.ensureIndexes([{ collection: own('users'), keys: { name: 1 as const }, unique: true }]);
        const put = (id: number, name: string) => {
          const replacement = { _id: `u${id}`, name };
          return { replaceOne: { collection: own('users'), filter: { _id: replacement._id }, replacement, upsert: true } };
        };
        const many = Array.from({ length: 100 }, (_, i) => put(i, `n${i}`));
        // An id given twice ends as its last document, wherever the two stand.
        await store.bulkWrite([...many.slice(0, 10), put(3, 'again'), ...many.slice(10), put(70, 'last')]);
        expect(await store.count(own('users'), {})).toBe(100);
        expect(await store.findOne(own('users'), { _id: 'u3' })).toEqual({ _id: 'u3', name: 'again' });
        expect(await store.findOne(own('users'), { _id: 'u70' })).toEqual({ _id: 'u70', name: 'last' });
        const renamed = Array.from({ length: 100 }, (_, i) => put(i + 100, `m${i}`));
        await expect(store.bulkWrite([...renamed.slice(0, 50), put(150, 'n5'), ...renamed.slice(50)])).rejects.toThrow();
        expect(await store.count(own('users'), {})).toBe(100);
        expect(await store.findOne(own('users'), { _id: 'u5' })).toEqual({ _id: 'u5', name: 'n5' });
      });
    });

    describe.runIf(options.bulkLoad)('bulk load', () => {
      const unique = () => ({ collection: own('users'), keys: { name: 1 as const }, unique: true });
      const byAge = () => ({ collection: own('users'), keys: { age: 1 as const, name: 1 as const } });
      const people = async () => ids(await store.find(own('users'), { age: { $gte: 30 } }, { sort: { age: 1, name: 1 } }));

      it('gives what its load gives, with writes, queries and unique indexes as without it, during the load and after', async () => {
        await store.ensureIndexes([unique(), byAge()]);
        await insert('users', { _id: 'u1', name: 'ann', age: 40 });
        const result = await store.bulkLoad!([own('users')], async () => {
          await store.reset(own('proj'), [own('users')]);
          // Declared again during the load, as a rebuild's start does.
          await store.ensureIndexes([unique(), byAge()]);
          await insert('users', { _id: 'u2', name: 'bob', age: 30 }, { _id: 'u3', name: 'cid', age: 50 }, { _id: 'u4', name: 'dee', age: 20 });
          await expect(insert('users', { _id: 'u5', name: 'bob', age: 60 })).rejects.toThrow();
          expect(await people()).toEqual(['u2', 'u3']);
          return 'loaded';
        });
        expect(result).toBe('loaded');
        expect(await people()).toEqual(['u2', 'u3']);
        await expect(insert('users', { _id: 'u6', name: 'cid', age: 70 })).rejects.toThrow();
        await insert('users', { _id: 'u7', name: 'eve', age: 35 });
        expect(await people()).toEqual(['u2', 'u7', 'u3']);
      });

      it('passes on what its load throws, leaving the store as after a load that resolves', async () => {
        await store.ensureIndexes([unique(), byAge()]);
        const failed = store.bulkLoad!([own('users')], async () => {
          await insert('users', { _id: 'u1', name: 'ann', age: 40 });
          throw new Error('projection failed');
        });
        await expect(failed).rejects.toThrow('projection failed');
        await expect(insert('users', { _id: 'u2', name: 'ann', age: 41 })).rejects.toThrow();
        await insert('users', { _id: 'u3', name: 'bob', age: 30 });
        expect(await people()).toEqual(['u3', 'u1']);
      });
    });

    describe('reset', () => {
      it('empties the projection collections and forgets its checkpoint, leaving the others be', async () => {
        await store.bulkWrite(
          [{ insertOne: { collection: own('mine'), document: { _id: 'a' } } }, { insertOne: { collection: own('theirs'), document: { _id: 'b' } } }],
          [
            { projection: own('me'), position: at(5n) },
            { projection: own('them'), position: at(5n) },
          ],
        );
        await store.reset(own('me'), [own('mine')]);
        expect(await store.count(own('mine'), {})).toBe(0);
        expect(await store.count(own('theirs'), {})).toBe(1);
        expect(await store.getCheckpoint(own('me'))).toBeNull();
        expect(await store.getCheckpoint(own('them'))).toEqual(at(5n));
      });

      it('keeps the indexes of the collections it empties: a unique index still refuses a duplicate', async () => {
        await store.ensureIndexes([{ collection: own('mine'), keys: { name: 1 }, unique: true }]);
        await store.bulkWrite([{ insertOne: { collection: own('mine'), document: { _id: 'a', name: 'x' } } }], [{ projection: own('me'), position: at(5n) }]);
        await store.reset(own('me'), [own('mine'), own('never_written')]);
        await store.bulkWrite([{ insertOne: { collection: own('mine'), document: { _id: 'b', name: 'y' } } }]);
        await expect(store.bulkWrite([{ insertOne: { collection: own('mine'), document: { _id: 'c', name: 'y' } } }])).rejects.toThrow();
        expect(await store.find(own('mine'), {})).toEqual([{ _id: 'b', name: 'y' }]);
      });
    });
  });
}
