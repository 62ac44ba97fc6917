// MongoDB adapter of the read store port. The port speaks MongoDB's filter and update language, so queries pass
// through; what this file adds is the bulk write: the port's operations (which may span collections) and the
// projectors' checkpoints are applied in ONE multi-document transaction. A crash before the commit leaves neither the
// documents nor the checkpoint, so the batch is projected again; after it, both — never an event applied twice or
// skipped. (An idempotent scheme, with a last-applied position guard in every document, would also work without
// transactions, but would make every projection write its guards; transactions keep projections engine-agnostic.
// They need a replica set: compose runs a one-node one, and connect() refuses a standalone server up front.)
import { randomUUID } from 'node:crypto';
import {
  type AnyBulkWriteOperation,
  type ClientSession,
  type Db,
  type IndexDescription,
  type IndexDescriptionInfo,
  MongoClient,
  MongoServerError,
  type Filter as MongoFilter,
  type UpdateFilter,
} from 'mongodb';
import { EngineUnreachableError, withDeadline } from '../engines.js';
import { type Position, decodePosition, encodePosition } from '../../ports/eventStore.js';
import { equalityFields } from './documents.js';
import type { Checkpoint, Doc, Filter, FindOptions, IndexSpec, ReadStore, Update, WriteOp } from '../../ports/readStore.js';

/** Where checkpoints live; the leading underscore keeps it apart from read-model collections ([a-z][a-z0-9_]*). */
export const CHECKPOINTS = '_checkpoints';

export interface CollectionWrite {
  collection: string;
  operations: AnyBulkWriteOperation<Doc>[];
}

// The port's filters and updates are a subset of MongoDB's language: they pass through as they are.
const filterOf = (filter: Filter) => filter as MongoFilter<Doc>;
const updateOf = (update: Update) => update as UpdateFilter<Doc>;

/**
 * The driver calls a bulk write becomes: one ordered bulkWrite per run of consecutive operations on the same
 * collection (so the order across collections holds), then the checkpoint upserts.
 */
export function planBulkWrite(ops: WriteOp[], checkpoints: Checkpoint[], newId: () => string = randomUUID): CollectionWrite[] {
  const plan: CollectionWrite[] = [];
  const add = (collection: string, operation: AnyBulkWriteOperation<Doc>) => {
    const last = plan[plan.length - 1];
    if (last?.collection === collection) last.operations.push(operation);
    else plan.push({ collection, operations: [operation] });
  };
  for (const op of ops) {
    if ('insertOne' in op) add(op.insertOne.collection, { insertOne: { document: op.insertOne.document } });
    else if ('replaceOne' in op) {
      const { collection, filter, replacement, upsert } = op.replaceOne;
      add(collection, { replaceOne: { filter: filterOf(filter), replacement, upsert: upsert ?? false } });
    } else if ('updateOne' in op) {
      const { collection, filter, update, upsert } = op.updateOne;
      add(collection, {
        updateOne: { filter: filterOf(filter), update: updateOf(upsert ? withStringId(filter, update, newId) : update), upsert: upsert ?? false },
      });
    } else if ('updateMany' in op)
      add(op.updateMany.collection, { updateMany: { filter: filterOf(op.updateMany.filter), update: updateOf(op.updateMany.update) } });
    else if ('deleteOne' in op) add(op.deleteOne.collection, { deleteOne: { filter: filterOf(op.deleteOne.filter) } });
    else add(op.deleteMany.collection, { deleteMany: { filter: filterOf(op.deleteMany.filter) } });
  }
  for (const { projection, position } of checkpoints) {
    add(CHECKPOINTS, { updateOne: { filter: { _id: projection }, update: { $set: { position: encodePosition(position) } }, upsert: true } });
  }
  return plan;
}

/** MongoDB would give an upserted document an ObjectId; the port's documents have string ids, as the embedded store's. */
function withStringId(filter: Filter, update: Update, newId: () => string): Update {
  if (typeof equalityFields(filter)._id === 'string' || update.$setOnInsert?._id !== undefined || update.$set?._id !== undefined) return update;
  return { ...update, $setOnInsert: { ...update.$setOnInsert, _id: newId() } };
}

/** The indexes a collection is created again with, from what listIndexes gave: all but the implicit one on _id. */
export function indexesToRecreate(listed: IndexDescriptionInfo[]): IndexDescription[] {
  return listed
    .filter((index) => index.name !== '_id_')
    .map(({ key, name, unique, sparse, partialFilterExpression, expireAfterSeconds, collation }) => {
      const options = { name, unique, sparse, partialFilterExpression, expireAfterSeconds, collation };
      return { key, ...Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) } as IndexDescription;
    });
}

/** A collection that was never written is nothing to drop or read indexes of (servers before 7.0 report it as code 26). */
const ignoreNamespaceNotFound =
  <T>(value: T) =>
  (error: unknown): T => {
    if (error instanceof MongoServerError && error.code === 26) return value;
    throw error;
  };

/** Leaves out the port's optional bulkLoad: a rebuild keeps MongoDB's indexes up to date as it writes. */
export class MongoReadStore implements ReadStore {
  private constructor(
    private readonly client: MongoClient,
    readonly db: Db,
  ) {}

  /** Connects, and refuses a server that cannot run transactions, so a wrong MONGO_URL fails at start. */
  static async connect(url: string, database: string, timeoutMs = 10_000): Promise<MongoReadStore> {
    let client: MongoClient;
    try {
      client = new MongoClient(url, { serverSelectionTimeoutMS: timeoutMs, connectTimeoutMS: timeoutMs, appName: 'parley' });
    } catch (error) {
      throw new EngineUnreachableError('MongoDB', url, error);
    }
    try {
      const hello = await withDeadline(
        client.connect().then((c) => c.db('admin').command({ hello: 1 })),
        timeoutMs + 1000,
        'MongoDB',
        url,
      );
      if (!hello.setName && hello.msg !== 'isdbgrid') {
        throw new Error(`MongoDB at ${url} is a standalone server; read-model writes need transactions: run it as a replica set (--replSet)`);
      }
    } catch (error) {
      await client.close().catch(() => {});
      throw error;
    }
    return new MongoReadStore(client, client.db(database));
  }

  async ensureIndexes(indexes: IndexSpec[]): Promise<void> {
    for (const index of indexes) await this.db.collection(index.collection).createIndex(index.keys, { unique: index.unique ?? false });
  }

  async findOne<T extends Doc = Doc>(collection: string, filter: Filter): Promise<T | null> {
    return (await this.db.collection<T>(collection).findOne(filterOf(filter) as MongoFilter<T>)) as T | null;
  }

  async find<T extends Doc = Doc>(collection: string, filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const cursor = this.db.collection<T>(collection).find(filterOf(filter) as MongoFilter<T>);
    if (options.sort) cursor.sort(options.sort);
    if (options.skip) cursor.skip(options.skip);
    if (options.limit !== undefined) cursor.limit(options.limit);
    return (await cursor.toArray()) as T[];
  }

  count(collection: string, filter: Filter): Promise<number> {
    return this.db.collection<Doc>(collection).countDocuments(filterOf(filter));
  }

  async bulkWrite(ops: WriteOp[], checkpoints: Checkpoint[] = []): Promise<void> {
    const plan = planBulkWrite(ops, checkpoints);
    if (plan.length === 0) return;
    await this.inTransaction(async (session) => {
      for (const step of plan) await this.db.collection<Doc>(step.collection).bulkWrite(step.operations, { session, ordered: true });
    });
  }

  async getCheckpoint(projection: string): Promise<Position | null> {
    const doc = await this.db.collection<{ _id: string; position: string }>(CHECKPOINTS).findOne({ _id: projection });
    return doc ? decodePosition(doc.position) : null;
  }

  async getCheckpoints(projections: readonly string[]): Promise<Map<string, Position | null>> {
    const docs = await this.db
      .collection<{ _id: string; position: string }>(CHECKPOINTS)
      .find({ _id: { $in: [...projections] } })
      .toArray();
    const found = new Map(docs.map((doc) => [doc._id, decodePosition(doc.position)]));
    return new Map(projections.map((name) => [name, found.get(name) ?? null]));
  }

  /**
   * Drops each collection and creates it again with the indexes it had: a drop takes a moment whatever the collection
   * holds, where one deleteMany({}) transaction over a large read model outlived MongoDB's 60 s transaction limit.
   * The checkpoint goes first: a reset cut short leaves documents without a checkpoint, whose replay fails loudly on
   * them (and a second reset finishes the job), never a checkpoint over collections emptied behind its back.
   */
  async reset(projection: string, collections: string[]): Promise<void> {
    await this.db.collection<{ _id: string }>(CHECKPOINTS).deleteOne({ _id: projection });
    for (const name of collections) {
      const indexes = indexesToRecreate(await this.db.collection(name).indexes().catch(ignoreNamespaceNotFound([])));
      await this.db.dropCollection(name).catch(ignoreNamespaceNotFound(false));
      await this.db.createCollection(name);
      if (indexes.length) await this.db.collection(name).createIndexes(indexes);
    }
  }

  /** withTransaction retries on transient errors (elections, write conflicts), so the callback must be repeatable. */
  private inTransaction(work: (session: ClientSession) => Promise<void>): Promise<void> {
    return this.client.withSession((session) => session.withTransaction(() => work(session)));
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
