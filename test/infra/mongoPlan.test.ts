// What a projection batch becomes in MongoDB driver calls, without a server: the plan MongoReadStore.bulkWrite runs
// inside one transaction, and the indexes reset() creates a dropped collection with again.
import type { IndexDescriptionInfo } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { decodePosition } from '../../ports/eventStore.js';
import { CHECKPOINTS, indexesToRecreate, planBulkWrite } from '../../infra/readStore/mongo.js';
import type { WriteOp } from '../../ports/readStore.js';
import { usersProjection } from '../../projections/users.js';

const position = { commit: 2n ** 60n + 1n, prepare: 2n ** 60n };

describe('planBulkWrite', () => {
  it('keeps the order across collections: one ordered bulkWrite per run of the same collection, then the checkpoints', () => {
    const ops: WriteOp[] = [
      { insertOne: { collection: 'users', document: { _id: 'u1', name: 'ann' } } },
      { updateOne: { collection: 'users', filter: { _id: 'u1' }, update: { $set: { name: 'Ann' } } } },
      { deleteMany: { collection: 'tokens', filter: { user_id: 'u1' } } },
      { updateMany: { collection: 'users', filter: { bot: true }, update: { $inc: { n: 1 } } } },
    ];
    const plan = planBulkWrite(ops, [
      { projection: 'users', position },
      { projection: 'applications', position },
    ]);
    expect(plan).toEqual([
      {
        collection: 'users',
        operations: [
          { insertOne: { document: { _id: 'u1', name: 'ann' } } },
          { updateOne: { filter: { _id: 'u1' }, update: { $set: { name: 'Ann' } }, upsert: false } },
        ],
      },
      { collection: 'tokens', operations: [{ deleteMany: { filter: { user_id: 'u1' } } }] },
      { collection: 'users', operations: [{ updateMany: { filter: { bot: true }, update: { $inc: { n: 1 } } } }] },
      {
        collection: CHECKPOINTS,
        operations: [
          { updateOne: { filter: { _id: 'users' }, update: { $set: { position: `${position.commit}/${position.prepare}` } }, upsert: true } },
          { updateOne: { filter: { _id: 'applications' }, update: { $set: { position: `${position.commit}/${position.prepare}` } }, upsert: true } },
        ],
      },
    ]);
    const [checkpoint] = plan[3].operations;
    expect('updateOne' in checkpoint && decodePosition((checkpoint.updateOne.update as { $set: { position: string } }).$set.position)).toEqual(position);
  });

  it('an upsert whose filter does not pin a string _id gets one on insert (MongoDB would make an ObjectId)', () => {
    const plan = planBulkWrite(
      [
        { updateOne: { collection: 'logins', filter: { username_lower: 'ann' }, update: { $set: { n: 1 }, $setOnInsert: { since: 1 } }, upsert: true } },
        { updateOne: { collection: 'logins', filter: { _id: 'fixed' }, update: { $set: { n: 1 } }, upsert: true } },
        { updateOne: { collection: 'logins', filter: { _id: { $eq: 'fixed' } }, update: { $set: { n: 1 } }, upsert: true } },
        { updateOne: { collection: 'logins', filter: { username_lower: 'bob' }, update: { $set: { n: 1 } } } },
      ],
      [],
      () => 'generated-id',
    );
    expect(plan[0].operations.map((o) => (o as { updateOne: { update: unknown } }).updateOne.update)).toEqual([
      { $set: { n: 1 }, $setOnInsert: { since: 1, _id: 'generated-id' } },
      { $set: { n: 1 } },
      { $set: { n: 1 } },
      { $set: { n: 1 } },
    ]);
  });

  it('replace and delete operations map onto their driver models', () => {
    const plan = planBulkWrite(
      [
        { replaceOne: { collection: 'apps', filter: { _id: 'a1' }, replacement: { _id: 'a1', v: 2 }, upsert: true } },
        { replaceOne: { collection: 'apps', filter: { _id: 'a2' }, replacement: { _id: 'a2' } } },
        { deleteOne: { collection: 'apps', filter: { _id: 'a3' } } },
      ],
      [],
    );
    expect(plan).toEqual([
      {
        collection: 'apps',
        operations: [
          { replaceOne: { filter: { _id: 'a1' }, replacement: { _id: 'a1', v: 2 }, upsert: true } },
          { replaceOne: { filter: { _id: 'a2' }, replacement: { _id: 'a2' }, upsert: false } },
          { deleteOne: { filter: { _id: 'a3' } } },
        ],
      },
    ]);
  });

  it("a real projection's batch becomes driver calls with its checkpoint in the same plan", () => {
    const event = {
      id: 'e1',
      streamId: 'user-1',
      revision: 0n,
      position,
      type: 'UserRegistered',
      data: { userId: '1', username: 'ann', discriminator: '0001', email: null, passwordHash: 'h', bot: false, applicationId: null },
      metadata: { actorId: null, createdAt: '2024-01-01T00:00:00.000Z' },
      schemaVersion: 1,
    };
    const ops = usersProjection.project(event);
    expect(ops.length).toBeGreaterThan(0);
    const plan = planBulkWrite(ops, [{ projection: usersProjection.name, position }]);
    expect(plan.flatMap((step) => step.operations)).toHaveLength(ops.length + 1);
    expect(plan[plan.length - 1].collection).toBe(CHECKPOINTS);
    expect(plan.slice(0, -1).every((step) => usersProjection.collections.includes(step.collection))).toBe(true);
  });

  it('nothing to write plans nothing', () => {
    expect(planBulkWrite([], [])).toEqual([]);
  });
});

describe('indexesToRecreate', () => {
  it('gives back every index listIndexes reported but _id_, with its options and nothing of the server’s own', () => {
    // What MongoDB 7.0 answers listIndexes for a collection with a unique compound index and a sparse one.
    const listed: IndexDescriptionInfo[] = [
      { v: 2, key: { _id: 1 }, name: '_id_' },
      { v: 2, key: { guild_id: 1, user_id: 1 }, name: 'guild_id_1_user_id_1', unique: true },
      { v: 2, key: { nick: 1 }, name: 'nick_1', sparse: true },
    ];
    expect(indexesToRecreate(listed)).toEqual([
      { key: { guild_id: 1, user_id: 1 }, name: 'guild_id_1_user_id_1', unique: true },
      { key: { nick: 1 }, name: 'nick_1', sparse: true },
    ]);
  });
});
