// What the PostgreSQL adapters (read store, key store, leases, rate limits, blobs) share: a transaction on a
// connection of the pool, and tables created once however many processes start at the same moment.
import type pg from 'pg';

/** Runs `work` in a transaction on one connection of `pool`: committed when it resolves, rolled back when it throws. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A connection the server ends while it is checked out (a restart, an administrator's command) fails its query and
  // also emits 'error' on the client, which the pool listens for only while the client is idle: unheard, that event
  // ended the process. Heard here, the transaction fails as its query did, and the dead connection leaves the pool.
  let lost: Error | undefined;
  const onLost = (error: Error) => void (lost = error);
  client.on('error', onLost);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    if (!lost) await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.off('error', onLost);
    client.release(lost);
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
