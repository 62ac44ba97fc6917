// What the PostgreSQL adapters (read store, key store, leases, rate limits, blobs) share: a transaction on a
// connection of the pool, and tables created once however many processes start at the same moment.
import type pg from 'pg';

/** Runs `work` in a transaction on one connection of `pool`: committed when it resolves, rolled back when it throws. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Runs `ddl` (CREATE … IF NOT EXISTS statements) under a transaction-wide advisory lock named `what`: IF NOT EXISTS
 * alone lets two processes starting together both try to create a table, and one of them fail on the catalog's key.
 */
export function createOnce(pool: pg.Pool, what: string, ddl: string): Promise<void> {
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`parley:${what}`]);
    await client.query(ddl);
  });
}
