// The distributed mode's rate-limit buckets, in the read store's database: one document a bucket and key, which
// MongoDB removes once its window has passed (a TTL index on `expire`).
import type { Db } from 'mongodb';
import { RateLimiterMongo } from 'rate-limiter-flexible';
import { SharedRateLimits } from './counters.js';

export const RATE_LIMITS = 'rate_limits';

/** Every bucket in one collection (keys carry their bucket's name), its indexes made once here rather than by each bucket. */
export async function mongoRateLimits(db: Db): Promise<SharedRateLimits> {
  const collection = db.collection(RATE_LIMITS);
  await collection.createIndex({ expire: -1 }, { expireAfterSeconds: 0 });
  await collection.createIndex({ key: 1 }, { unique: true });
  return new SharedRateLimits((options) => new RateLimiterMongo({ ...options, storeClient: db, tableName: RATE_LIMITS, disableIndexesCreation: true }));
}
