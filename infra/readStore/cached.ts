// Documents read by _id on nearly every request (the token behind each Authorization header, a message's author),
// kept in memory by the process whose projectors write them. Every write to those collections is then a bulk write
// through this store, so it drops the documents the write may change in the same step that commits it, before the
// requests waiting on that write are answered: a token reset or revoked is refused from the next request on, and the
// cache needs no list of events to watch (whatever a projection writes invalidates). compose() uses it only where the
// projections of those collections run: elsewhere (the api and gateway roles) no write passes through, and a cache fed
// by the bus would answer a revoked token for as long as the bus lags, which neither the spec (no grace period for a
// revoked token) nor read-your-writes across instances allows.
import { LRUCache } from 'lru-cache';
import type { Checkpoint, Doc, Filter, FindOptions, IndexSpec, ReadStore, WriteOp } from '../../ports/readStore.js';
import { deepFreeze } from '../frozen.js';
import { collectionOf } from './documents.js';

const CAPACITY = 20_000;

/** The one document a filter names by a plain _id equality, if it does. */
const idOf = (filter: Filter): string | null => (typeof filter._id === 'string' ? filter._id : null);

export class CachedReadStore implements ReadStore {
  private readonly documents: LRUCache<string, Doc>;
  /** Per collection, bumped by every write to it: a read that a write overtook does not fill the cache with what it read. */
  private readonly generations: Map<string, number>;

  constructor(
    private readonly inner: ReadStore,
    collections: readonly string[],
    capacity = CAPACITY,
  ) {
    this.documents = new LRUCache({ max: capacity });
    this.generations = new Map(collections.map((collection) => [collection, 0]));
  }

  async findOne<T extends Doc = Doc>(collection: string, filter: Filter): Promise<T | null> {
    const generation = this.generations.get(collection);
    const id = idOf(filter);
    if (generation === undefined || id === null || Object.keys(filter).length !== 1) return this.inner.findOne<T>(collection, filter);
    const key = `${collection}/${id}`;
    const cached = this.documents.get(key);
    if (cached) return cached as T;
    const doc = await this.inner.findOne<T>(collection, filter);
    if (doc && this.generations.get(collection) === generation) this.documents.set(key, deepFreeze(doc));
    return doc;
  }

  find<T extends Doc = Doc>(collection: string, filter: Filter, options?: FindOptions): Promise<T[]> {
    return this.inner.find<T>(collection, filter, options);
  }

  count(collection: string, filter: Filter): Promise<number> {
    return this.inner.count(collection, filter);
  }

  ensureIndexes(indexes: IndexSpec[]): Promise<void> {
    return this.inner.ensureIndexes(indexes);
  }

  getCheckpoint(projection: string) {
    return this.inner.getCheckpoint(projection);
  }

  getCheckpoints(projections: readonly string[]) {
    return this.inner.getCheckpoints(projections);
  }

  async bulkWrite(ops: WriteOp[], checkpoints?: Checkpoint[]): Promise<void> {
    try {
      await this.inner.bulkWrite(ops, checkpoints);
    } finally {
      for (const op of ops) this.invalidate(op);
    }
  }

  async reset(projection: string, collections: string[]): Promise<void> {
    try {
      await this.inner.reset(projection, collections);
    } finally {
      for (const collection of collections) this.forget(collection, null);
    }
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** Drops what the write may change: the document its filter names, or the whole collection for any other filter. */
  private invalidate(op: WriteOp): void {
    if ('insertOne' in op) return this.forget(op.insertOne.collection, [op.insertOne.document._id]);
    if ('replaceOne' in op) {
      const { collection, filter, replacement } = op.replaceOne;
      const id = idOf(filter);
      return this.forget(collection, id === null ? null : [id, replacement._id]);
    }
    const { filter } = Object.values(op)[0] as { filter: Filter };
    const id = idOf(filter);
    this.forget(collectionOf(op), id === null ? null : [id]);
  }

  /** `ids` null: every document of the collection. */
  private forget(collection: string, ids: string[] | null): void {
    const generation = this.generations.get(collection);
    if (generation === undefined) return;
    this.generations.set(collection, generation + 1);
    if (ids) for (const id of ids) this.documents.delete(`${collection}/${id}`);
    else for (const key of [...this.documents.keys()]) if (key.startsWith(`${collection}/`)) this.documents.delete(key);
  }
}
