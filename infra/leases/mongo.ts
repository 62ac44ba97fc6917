// Leases of the distributed mode, in the read store's database: one document a name, taken in one conditional upsert.
import { type Collection, type Db, MongoServerError, WriteConcern } from 'mongodb';
import type { Leases } from '../../ports/leases.js';

export const LEASES = 'leases';
/** A lease taken must survive the loss of the primary, or two processes could hold it after a failover. */
const DURABLE = new WriteConcern('majority', undefined, true);
const DUPLICATE_KEY = 11000;

interface LeaseDoc {
  _id: string;
  holder: string;
  until: number;
}

export class MongoLeases implements Leases {
  private readonly leases: Collection<LeaseDoc>;

  constructor(db: Db) {
    this.leases = db.collection<LeaseDoc>(LEASES);
  }

  async claim(name: string, holder: string, now: number, until: number): Promise<boolean> {
    try {
      // Matches a lease that is the holder's own or expired; when another holds it, the upsert's insert of the same
      // _id fails on the unique key, which is the answer "taken".
      await this.leases.updateOne(
        { _id: name, $or: [{ holder }, { until: { $lte: now } }] },
        { $set: { holder, until } },
        { upsert: true, writeConcern: DURABLE },
      );
      return true;
    } catch (error) {
      if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) return false;
      throw error;
    }
  }

  async release(name: string, holder: string): Promise<void> {
    await this.leases.deleteOne({ _id: name, holder }, { writeConcern: DURABLE });
  }

  // The client belongs to the read store, which closes it.
  async close(): Promise<void> {}
}
