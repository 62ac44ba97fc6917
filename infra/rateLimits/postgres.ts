// The distributed mode's rate-limit buckets on PostgreSQL, in the read models' database: one row a bucket and key
// (rate-limiter-flexible's RateLimiterPostgres), all buckets in one table whose keys carry their bucket's name.
import type pg from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { createOnce } from '../postgres.js';
import { SharedRateLimits } from './counters.js';

export const RATE_LIMITS = 'rate_limits';

/** How often rows whose window has passed are deleted (an hour after it ends, as the library's own clean-up does). */
const CLEAR_EVERY_MS = 5 * 60_000;
const KEEP_EXPIRED_MS = 60 * 60_000;

/** The table is made once here rather than by each bucket's limiter, and one timer clears it rather than one a bucket. */
export class PostgresRateLimits extends SharedRateLimits {
  private readonly clearing: NodeJS.Timeout;

  private constructor(pool: pg.Pool) {
    super(
      (options) =>
        new RateLimiterPostgres({ ...options, storeClient: pool, storeType: 'pool', tableName: RATE_LIMITS, tableCreated: true, clearExpiredByTimeout: false }),
    );
    this.clearing = setInterval(() => {
      // A failed clean-up leaves rows that the next one deletes; counting never reads them (their window has passed).
      pool.query(`DELETE FROM ${RATE_LIMITS} WHERE expire < $1`, [Date.now() - KEEP_EXPIRED_MS]).catch(() => {});
    }, CLEAR_EVERY_MS);
    this.clearing.unref();
  }

  static async open(pool: pg.Pool): Promise<PostgresRateLimits> {
    // RateLimiterPostgres's own table.
    await createOnce(
      pool,
      RATE_LIMITS,
      `CREATE TABLE IF NOT EXISTS ${RATE_LIMITS} (key VARCHAR(255) PRIMARY KEY, points INTEGER NOT NULL DEFAULT 0, expire BIGINT)`,
    );
    return new PostgresRateLimits(pool);
  }

  async close(): Promise<void> {
    clearInterval(this.clearing);
  }
}
