// The distributed key store on PostgreSQL: data keys in tables of the read models' database, apart from the log they
// protect. As in the embedded store (infra/keys/sqlite.ts), each key is stored wrapped by the master key
// (infra/masterKeys.ts: MASTER_KEY, the same in every process), so a dump of the database alone opens nothing.
// Keys are made ahead, a batch at a time with one INSERT whose commit is durable (synchronous_commit), so a key is on
// disk before any event names it. A batch the shredder applies, destructions and its checkpoint, is one transaction.
// What the store keeps in memory, and how long, is infra/keys/sharedKeys.ts's, as MongoDB's is.
// A destroyed key's row is a dead tuple until VACUUM, which runs right after each batch that destroyed keys;
// docs/distributed.md says what PostgreSQL keeps beyond that.
import type pg from 'pg';
import { type Position, decodePosition, encodePosition } from '../../ports/eventStore.js';
import type { DataKey, KeyChanges, KeyStore, Wrapping } from '../../ports/keyStore.js';
import type { SecretBox } from '../../ports/secrets.js';
import { createOnce, inTransaction } from '../postgres.js';
import { BATCH, SharedKeys, type WrappedKey, distinctOwners, erasures } from './sharedKeys.js';

export const DATA_KEYS = 'data_keys';
export const DATA_KEY_OWNERS = 'data_key_owners';
export const DATA_KEY_PROGRESS = 'data_key_progress';

/** The progress row of the key shredder. */
const SHREDDER = 'shredder';

export class PostgresKeyStore implements KeyStore {
  private readonly shared: SharedKeys;

  private constructor(
    private readonly pool: pg.Pool,
    secrets: Pick<SecretBox, 'seal' | 'open'>,
  ) {
    this.shared = new SharedKeys(secrets, async (made) => {
      await this.pool.query(`INSERT INTO ${DATA_KEYS} (id, wrapped) SELECT * FROM unnest($1::text[], $2::text[])`, [
        made.map((key) => key.id),
        made.map((key) => key.wrapped),
      ]);
    });
  }

  /** A key store on `pool`, which stays its owner's to end. */
  static async open(pool: pg.Pool, secrets: Pick<SecretBox, 'seal' | 'open'>): Promise<PostgresKeyStore> {
    await createOnce(
      pool,
      DATA_KEYS,
      `CREATE TABLE IF NOT EXISTS ${DATA_KEYS} (id TEXT COLLATE "C" PRIMARY KEY, wrapped TEXT NOT NULL);
       CREATE TABLE IF NOT EXISTS ${DATA_KEY_OWNERS} (subject TEXT NOT NULL, key_id TEXT COLLATE "C" NOT NULL, PRIMARY KEY (subject, key_id));
       CREATE INDEX IF NOT EXISTS ${DATA_KEY_OWNERS}_by_key ON ${DATA_KEY_OWNERS} (key_id);
       CREATE TABLE IF NOT EXISTS ${DATA_KEY_PROGRESS} (name TEXT PRIMARY KEY, position TEXT NOT NULL);`,
    );
    return new PostgresKeyStore(pool, secrets);
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
      const { rows } = await this.pool.query<WrappedKey>(
        `SELECT k.id, k.wrapped FROM ${DATA_KEY_OWNERS} o JOIN ${DATA_KEYS} k ON k.id = o.key_id WHERE o.subject = $1
           AND NOT EXISTS (SELECT 1 FROM ${DATA_KEY_OWNERS} x WHERE x.key_id = o.key_id AND x.subject <> o.subject) LIMIT 1`,
        [subject],
      );
      return rows.length ? { id: rows[0].id, key: this.shared.unwrap(rows[0].wrapped) } : null;
    });
  }

  use(subject: string, key: DataKey): void {
    this.shared.use(subject, key);
  }

  load(ids: readonly string[]): Promise<Map<string, Buffer>> {
    return this.shared.load(ids, (missing) => this.wrapped(missing));
  }

  private async *wrapped(ids: string[]): AsyncIterable<WrappedKey> {
    yield* (await this.pool.query<WrappedKey>(`SELECT id, wrapped FROM ${DATA_KEYS} WHERE id = ANY($1::text[])`, [ids])).rows;
  }

  async apply(changes: KeyChanges, checkpoint: Position): Promise<boolean> {
    const owned = distinctOwners(changes.owned);
    const destroyed = await inTransaction(this.pool, async (client) => {
      if (owned.length)
        await client.query(`INSERT INTO ${DATA_KEY_OWNERS} (subject, key_id) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING`, [
          owned.map((owner) => owner.subject),
          owned.map((owner) => owner.keyId),
        ]);
      const ids = await this.destroyedBy(client, changes.erased);
      if (ids.length) {
        await client.query(`DELETE FROM ${DATA_KEYS} WHERE id = ANY($1::text[])`, [ids]);
        await client.query(`DELETE FROM ${DATA_KEY_OWNERS} WHERE key_id = ANY($1::text[])`, [ids]);
      }
      await client.query(`INSERT INTO ${DATA_KEY_PROGRESS} (name, position) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET position = excluded.position`, [
        SHREDDER,
        encodePosition(checkpoint),
      ]);
      return ids;
    });
    if (destroyed.length === 0) return false;
    this.shared.destroyed(destroyed);
    // The destroyed keys' rows are dead tuples until VACUUM: now, rather than at autovacuum's leisure. Should it fail,
    // the batch is applied again (the shredder's checkpoint is written), destroying nothing, and autovacuum gets to them.
    await this.pool.query(`VACUUM ${DATA_KEYS}, ${DATA_KEY_OWNERS}`);
    return true;
  }

  /** The keys the erasures destroy: every key an erased subject owns, unless each erasure of that subject spares it. */
  private async destroyedBy(client: pg.PoolClient, erased: KeyChanges['erased']): Promise<string[]> {
    if (erased.length === 0) return [];
    const { subjects, destroys } = erasures(erased);
    const { rows } = await client.query<{ subject: string; key_id: string }>(
      `SELECT subject, key_id FROM ${DATA_KEY_OWNERS} WHERE subject = ANY($1::text[]) FOR UPDATE`,
      [subjects],
    );
    return [...new Set(rows.filter(({ subject, key_id }) => destroys(subject, key_id)).map((row) => row.key_id))];
  }

  async checkpoint(): Promise<Position | null> {
    const { rows } = await this.pool.query<{ position: string }>(`SELECT position FROM ${DATA_KEY_PROGRESS} WHERE name = $1`, [SHREDDER]);
    return rows.length ? decodePosition(rows[0].position) : null;
  }

  onDestroyed(listener: () => void): void {
    this.shared.onDestroyed(listener);
  }

  /**
   * Batch by batch, each update matched on the wrapping it replaces: a key destroyed meanwhile stays destroyed, and one
   * another rotation re-wrapped first is left to it. Then VACUUM FULL rewrites the table, so that no dead tuple keeps an
   * old wrapping in its files (a rotation is rare, and the lock it takes brief on a table of keys).
   */
  async rewrap(target: Wrapping): Promise<number> {
    let rewrapped = 0;
    for (let after = ''; ;) {
      const { rows } = await this.pool.query<{ id: string; wrapped: string }>(`SELECT id, wrapped FROM ${DATA_KEYS} WHERE id > $1 ORDER BY id LIMIT ${BATCH}`, [
        after,
      ]);
      if (rows.length === 0) break;
      after = rows[rows.length - 1].id;
      const stale = rows.filter((row) => !target.wraps(row.wrapped));
      if (stale.length === 0) continue;
      const { rowCount } = await this.pool.query(
        `UPDATE ${DATA_KEYS} AS k SET wrapped = u.rewrapped FROM unnest($1::text[], $2::text[], $3::text[]) AS u(id, wrapped, rewrapped)
          WHERE k.id = u.id AND k.wrapped = u.wrapped`,
        [stale.map((row) => row.id), stale.map((row) => row.wrapped), stale.map((row) => this.shared.rewrapped(row.wrapped, target))],
      );
      rewrapped += rowCount ?? 0;
    }
    if (rewrapped > 0) await this.pool.query(`VACUUM FULL ${DATA_KEYS}`);
    return rewrapped;
  }

  close(): Promise<void> {
    return this.shared.close();
  }
}
