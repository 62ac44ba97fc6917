// Leases of the distributed mode on PostgreSQL, in the read models' database: one row a name, taken in one conditional
// upsert. Expiry is judged by the database's clock, not by each process's own: a claim's times are moved by how far
// the process's clock is from the server's (measured by the same statement, to the second), so processes whose clocks
// disagree still agree on when a lease has run out. A commit is durable before a claim answers (synchronous_commit).
import type pg from 'pg';
import type { Leases } from '../../ports/leases.js';
import { createOnce } from '../postgres.js';

export const LEASES = 'leases';

/** The server's clock minus this process's, in whole seconds (the statement's start against Date.now() as it is sent). */
const SKEW = `(round((extract(epoch FROM statement_timestamp()) * 1000 - $5) / 1000) * 1000)::bigint`;

export class PostgresLeases implements Leases {
  private constructor(private readonly pool: pg.Pool) {}

  /** Leases on `pool`, which stays its owner's to end. */
  static async open(pool: pg.Pool): Promise<PostgresLeases> {
    await createOnce(pool, LEASES, `CREATE TABLE IF NOT EXISTS ${LEASES} (name TEXT PRIMARY KEY, holder TEXT NOT NULL, until BIGINT NOT NULL)`);
    return new PostgresLeases(pool);
  }

  async claim(name: string, holder: string, now: number, until: number): Promise<boolean> {
    // The row is written only when it is new, the holder's own or expired: a row returned means it is ours.
    const { rowCount } = await this.pool.query(
      `INSERT INTO ${LEASES} (name, holder, until) VALUES ($1, $2, $4 + ${SKEW})
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until = excluded.until
       WHERE ${LEASES}.holder = excluded.holder OR ${LEASES}.until <= $3 + ${SKEW}`,
      [name, holder, now, until, Date.now()],
    );
    return rowCount === 1;
  }

  async release(name: string, holder: string): Promise<void> {
    await this.pool.query(`DELETE FROM ${LEASES} WHERE name = $1 AND holder = $2`, [name, holder]);
  }

  // The pool belongs to the read store, which ends it.
  async close(): Promise<void> {}
}
