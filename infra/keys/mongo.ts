// The distributed key store: data keys in MongoDB, apart from the log (EventStoreDB, Kafka) they protect. As in the
// embedded store (infra/keys/sqlite.ts), each key is stored wrapped by the master key (infra/masterKeys.ts:
// MASTER_KEY, the same in every process), so a dump of the database alone opens nothing.
// Keys are created ahead, a batch at a time with one insertMany acknowledged by a majority and journaled, so a key is
// durable (and survives a failover) before any event names it. A batch the shredder applies, destructions and its
// checkpoint, is one transaction: the deployment is a replica set, as the read store requires.
// Every process caches the keys it opened, but in distributed mode the shredder of another process may destroy them:
// a cached key lives KEY_TTL_MS at most, and the onDestroyed listeners are also called every KEY_TTL_MS, so what was
// opened with a key destroyed elsewhere is dropped within twice that. Destructions made here are dropped at once.
import { LRUCache } from 'lru-cache';
import { type AnyBulkWriteOperation, type ClientSession, type Db, WriteConcern } from 'mongodb';
import { type Position, decodePosition, encodePosition } from '../../ports/eventStore.js';
import type { DataKey, KeyChanges, KeyStore, Wrapping } from '../../ports/keyStore.js';
import type { SecretBox } from '../../ports/secrets.js';
import { KEY_TTL_MS, KeysMadeAhead, fromCache } from './dataKeys.js';

export const DATA_KEYS = 'dataKeys';
export const DATA_KEY_OWNERS = 'dataKeyOwners';
export const DATA_KEY_PROGRESS = 'dataKeyProgress';

/** Keys made ahead with one durable write. */
const BATCH = 256;
/** Open keys kept in memory: a channel's recent messages are read without a query. */
const CACHED_KEYS = 100_000;
/** Ids per $in, well under the 16 MB a command may hold. */
const CHUNK = 10_000;
/** The progress document of the key shredder. */
const SHREDDER = 'shredder';
/** Majority and journal: a key, or its destruction, survives the loss of the primary. */
const DURABLE = new WriteConcern('majority', undefined, true);

interface KeyDoc {
  _id: string;
  wrapped: string;
}

interface OwnerDoc {
  subject: string;
  keyId: string;
}

interface ProgressDoc {
  _id: string;
  position: string;
}

export class MongoKeyStore implements KeyStore {
  private readonly ahead = new KeysMadeAhead(BATCH, async (made) => {
    await this.keys.insertMany(
      made.map((key) => ({ _id: key.id, wrapped: this.secrets.seal(key.key.toString('base64')) })),
      { writeConcern: DURABLE },
    );
  });
  private readonly cache = new LRUCache<string, Buffer>({ max: CACHED_KEYS, ttl: KEY_TTL_MS });
  private readonly current_ = new LRUCache<string, DataKey>({ max: 10_000, ttl: KEY_TTL_MS });
  /** Counts destructions made here: a read that started before one must not cache what it found. */
  private generation = 0;
  private readonly listeners: (() => void)[] = [];
  private readonly expiry: NodeJS.Timeout;

  private constructor(
    private readonly db: Db,
    private readonly secrets: Pick<SecretBox, 'seal' | 'open'>,
  ) {
    this.expiry = setInterval(() => this.notify(), KEY_TTL_MS);
    this.expiry.unref();
  }

  /** A key store on `db`, whose client stays its owner's to close. */
  static async open(db: Db, secrets: Pick<SecretBox, 'seal' | 'open'>): Promise<MongoKeyStore> {
    const owners = db.collection<OwnerDoc>(DATA_KEY_OWNERS);
    await owners.createIndex({ subject: 1, keyId: 1 }, { unique: true });
    await owners.createIndex({ keyId: 1 });
    return new MongoKeyStore(db, secrets);
  }

  private get keys() {
    return this.db.collection<KeyDoc>(DATA_KEYS);
  }

  private get owners() {
    return this.db.collection<OwnerDoc>(DATA_KEY_OWNERS);
  }

  private get progress() {
    return this.db.collection<ProgressDoc>(DATA_KEY_PROGRESS);
  }

  async create(): Promise<DataKey> {
    const key = await this.ahead.take();
    this.cache.set(key.id, key.key);
    return key;
  }

  createNow(): DataKey | null {
    const key = this.ahead.takeNow();
    if (key) this.cache.set(key.id, key.key);
    return key;
  }

  async current(subject: string): Promise<DataKey | null> {
    const known = this.current_.get(subject);
    if (known) return known;
    const generation = this.generation;
    // Any key the shredder knows the subject owns alone that still exists will do: one it shares goes with the other
    // subject too (an auto-moderation record's, the guild's as well as the member's).
    for await (const { keyId } of this.owners.find({ subject }, { projection: { _id: 0, subject: 1, keyId: 1 }, batchSize: 16 })) {
      if (await this.owners.findOne({ keyId, subject: { $ne: subject } }, { projection: { _id: 1 } })) continue;
      const key = (await this.load([keyId])).get(keyId);
      if (!key) continue;
      const found = { id: keyId, key };
      if (generation === this.generation) this.current_.set(subject, found);
      return found;
    }
    return null;
  }

  use(subject: string, key: DataKey): void {
    this.current_.set(subject, key);
  }

  async load(ids: readonly string[]): Promise<Map<string, Buffer>> {
    const { found, missing } = fromCache(ids, this.cache);
    const generation = this.generation;
    for (const chunk of chunks(missing)) {
      for await (const doc of this.keys.find({ _id: { $in: chunk } })) {
        const key = Buffer.from(this.secrets.open(doc.wrapped), 'base64');
        if (generation === this.generation) this.cache.set(doc._id, key);
        found.set(doc._id, key);
      }
    }
    return found;
  }

  async apply(changes: KeyChanges, checkpoint: Position): Promise<boolean> {
    let destroyed: string[] = [];
    await this.db.client.withSession((session) =>
      // withTransaction retries on transient errors (elections, write conflicts): the callback starts afresh each time.
      session.withTransaction(
        async () => {
          await this.own(changes.owned, session);
          destroyed = await this.destroyedBy(changes.erased, session);
          for (const chunk of chunks(destroyed)) {
            await this.keys.deleteMany({ _id: { $in: chunk } }, { session });
            await this.owners.deleteMany({ keyId: { $in: chunk } }, { session });
          }
          await this.progress.updateOne({ _id: SHREDDER }, { $set: { position: encodePosition(checkpoint) } }, { session, upsert: true });
        },
        { writeConcern: DURABLE },
      ),
    );
    if (destroyed.length === 0) return false;
    this.generation++;
    for (const id of destroyed) this.cache.delete(id);
    this.current_.clear();
    this.notify();
    return true;
  }

  private async own(owned: KeyChanges['owned'], session: ClientSession): Promise<void> {
    // A batch names the same owner once per event sealed with its key.
    const distinct = new Map(owned.map((owner) => [`${owner.subject}\u0000${owner.keyId}`, owner]));
    if (distinct.size === 0) return;
    const upserts = [...distinct.values()].map(({ subject, keyId }) => ({
      updateOne: { filter: { subject, keyId }, update: { $setOnInsert: { subject, keyId } }, upsert: true },
    }));
    await this.owners.bulkWrite(upserts, { session, ordered: false });
  }

  /** The keys the erasures destroy: every key an erased subject owns, unless each erasure of that subject spares it. */
  private async destroyedBy(erased: KeyChanges['erased'], session: ClientSession): Promise<string[]> {
    const spared = new Map<string, (string | undefined)[]>();
    for (const { subject, except } of erased) spared.set(subject, [...(spared.get(subject) ?? []), except]);
    const destroyed = new Set<string>();
    for (const subjects of chunks([...spared.keys()])) {
      for await (const { subject, keyId } of this.owners.find({ subject: { $in: subjects } }, { session, projection: { _id: 0, subject: 1, keyId: 1 } })) {
        if (!spared.get(subject)!.every((except) => except === keyId)) destroyed.add(keyId);
      }
    }
    return [...destroyed];
  }

  async checkpoint(): Promise<Position | null> {
    const doc = await this.progress.findOne({ _id: SHREDDER });
    return doc ? decodePosition(doc.position) : null;
  }

  onDestroyed(listener: () => void): void {
    this.listeners.push(listener);
  }

  /**
   * Batch by batch, each update matched on the wrapping it replaces: a key destroyed meanwhile stays destroyed, and one
   * another rotation re-wrapped first is left to it. Keys that processes still on a retired MASTER_KEY create while
   * this runs are left for the next call.
   */
  async rewrap(target: Wrapping): Promise<number> {
    let rewrapped = 0;
    let batch: AnyBulkWriteOperation<KeyDoc>[] = [];
    const write = async () => {
      if (batch.length) rewrapped += (await this.keys.bulkWrite(batch, { ordered: false, writeConcern: DURABLE })).modifiedCount;
      batch = [];
    };
    for await (const doc of this.keys.find({})) {
      if (target.wraps(doc.wrapped)) continue;
      batch.push({ updateOne: { filter: { _id: doc._id, wrapped: doc.wrapped }, update: { $set: { wrapped: target.seal(this.secrets.open(doc.wrapped)) } } } });
      if (batch.length === BATCH) await write();
    }
    await write();
    return rewrapped;
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }

  async close(): Promise<void> {
    clearInterval(this.expiry);
  }
}

function chunks<T>(items: T[]): T[][] {
  const result: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) result.push(items.slice(i, i + CHUNK));
  return result;
}
