// The distributed key store: data keys in MongoDB, apart from the log (EventStoreDB, Kafka) they protect. As in the
// embedded store (infra/keys/sqlite.ts), each key is stored wrapped by the master key (infra/masterKeys.ts:
// MASTER_KEY, the same in every process), so a dump of the database alone opens nothing.
// Keys are created ahead, a batch at a time with one insertMany acknowledged by a majority and journaled, so a key is
// durable (and survives a failover) before any event names it. A batch the shredder applies, destructions and its
// checkpoint, is one transaction: the deployment is a replica set, as the read store requires.
// What the store keeps in memory, and how long, is infra/keys/sharedKeys.ts's, as PostgreSQL's is.
import { type AnyBulkWriteOperation, type ClientSession, type Db, WriteConcern } from 'mongodb';
import { type Position, decodePosition, encodePosition } from '../../ports/eventStore.js';
import type { DataKey, KeyChanges, KeyStore, Wrapping } from '../../ports/keyStore.js';
import type { SecretBox } from '../../ports/secrets.js';
import { BATCH, SharedKeys, type WrappedKey, distinctOwners, erasures } from './sharedKeys.js';

export const DATA_KEYS = 'dataKeys';
export const DATA_KEY_OWNERS = 'dataKeyOwners';
export const DATA_KEY_PROGRESS = 'dataKeyProgress';

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
  private readonly shared: SharedKeys;

  private constructor(
    private readonly db: Db,
    secrets: Pick<SecretBox, 'seal' | 'open'>,
  ) {
    this.shared = new SharedKeys(secrets, async (made) => {
      await this.keys.insertMany(
        made.map(({ id, wrapped }) => ({ _id: id, wrapped })),
        { writeConcern: DURABLE },
      );
    });
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

  create(): Promise<DataKey> {
    return this.shared.create();
  }

  createNow(): DataKey | null {
    return this.shared.createNow();
  }

  current(subject: string): Promise<DataKey | null> {
    return this.shared.current(subject, async () => {
      // Any key the shredder knows the subject owns alone that still exists will do: one it shares goes with the other
      // subject too (an auto-moderation record's, the guild's as well as the member's).
      for await (const { keyId } of this.owners.find({ subject }, { projection: { _id: 0, subject: 1, keyId: 1 }, batchSize: 16 })) {
        if (await this.owners.findOne({ keyId, subject: { $ne: subject } }, { projection: { _id: 1 } })) continue;
        const key = (await this.load([keyId])).get(keyId);
        if (key) return { id: keyId, key };
      }
      return null;
    });
  }

  use(subject: string, key: DataKey): void {
    this.shared.use(subject, key);
  }

  load(ids: readonly string[]): Promise<Map<string, Buffer>> {
    return this.shared.load(ids, (missing) => this.wrapped(missing));
  }

  private async *wrapped(ids: string[]): AsyncIterable<WrappedKey> {
    for (const chunk of chunks(ids)) for await (const { _id, wrapped } of this.keys.find({ _id: { $in: chunk } })) yield { id: _id, wrapped };
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
    this.shared.destroyed(destroyed);
    return true;
  }

  private async own(owned: KeyChanges['owned'], session: ClientSession): Promise<void> {
    const distinct = distinctOwners(owned);
    if (distinct.length === 0) return;
    const upserts = distinct.map(({ subject, keyId }) => ({
      updateOne: { filter: { subject, keyId }, update: { $setOnInsert: { subject, keyId } }, upsert: true },
    }));
    await this.owners.bulkWrite(upserts, { session, ordered: false });
  }

  /** The keys the erasures destroy: every key an erased subject owns, unless each erasure of that subject spares it. */
  private async destroyedBy(erased: KeyChanges['erased'], session: ClientSession): Promise<string[]> {
    const { subjects, destroys } = erasures(erased);
    const destroyed = new Set<string>();
    for (const chunk of chunks(subjects)) {
      for await (const { subject, keyId } of this.owners.find({ subject: { $in: chunk } }, { session, projection: { _id: 0, subject: 1, keyId: 1 } })) {
        if (destroys(subject, keyId)) destroyed.add(keyId);
      }
    }
    return [...destroyed];
  }

  async checkpoint(): Promise<Position | null> {
    const doc = await this.progress.findOne({ _id: SHREDDER });
    return doc ? decodePosition(doc.position) : null;
  }

  onDestroyed(listener: () => void): void {
    this.shared.onDestroyed(listener);
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
      batch.push({ updateOne: { filter: { _id: doc._id, wrapped: doc.wrapped }, update: { $set: { wrapped: this.shared.rewrapped(doc.wrapped, target) } } } });
      if (batch.length === BATCH) await write();
    }
    await write();
    return rewrapped;
  }

  close(): Promise<void> {
    return this.shared.close();
  }
}

function chunks<T>(items: T[]): T[][] {
  const result: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) result.push(items.slice(i, i + CHUNK));
  return result;
}
