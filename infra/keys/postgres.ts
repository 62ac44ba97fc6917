// The distributed key store on PostgreSQL: data keys in tables of the read models' database, apart from the log they
// protect. As in the embedded store (infra/keys/sqlite.ts), each key is stored wrapped by the master key
// (infra/masterKeys.ts: MASTER_KEY, the same in every process), so a dump of the database alone opens nothing.
// Keys are made ahead, a batch at a time with one INSERT whose commit is durable (synchronous_commit), so a key is on
// disk before any event names it. A batch the shredder applies, destructions and its checkpoint, is one transaction.
// Every process caches the keys it opened, but the shredder of another process may destroy them: a cached key lives
// KEY_TTL_MS at most, and the onDestroyed listeners are also called every KEY_TTL_MS (as in infra/keys/mongo.ts).
// A destroyed key's row is a dead tuple until VACUUM, which runs right after each batch that destroyed keys;
// docs/distributed.md says what PostgreSQL keeps beyond that.
import { LRUCache } from 'lru-cache';
import type pg from 'pg';
import { type Position, decodePosition, encodePosition } from '../../ports/eventStore.js';
import type { DataKey, KeyChanges, KeyStore, Wrapping } from '../../ports/keyStore.js';
import type { SecretBox } from '../../ports/secrets.js';
import { createOnce, inTransaction } from '../postgres.js';
import { KEY_TTL_MS, KeysMadeAhead, fromCache } from './dataKeys.js';

export const DATA_KEYS = 'data_keys';
export const DATA_KEY_OWNERS = 'data_key_owners';
export const DATA_KEY_PROGRESS = 'data_key_progress';

/** Keys made ahead with one durable write. */
const BATCH = 256;
/** Open keys kept in memory: a channel's recent messages are read without a query. */
const CACHED_KEYS = 100_000;
/** The progress row of the key shredder. */
const SHREDDER = 'shredder';

export class PostgresKeyStore implements KeyStore {
  private readonly ahead = new KeysMadeAhead(BATCH, async (made) => {
    await this.pool.query(`INSERT INTO ${DATA_KEYS} (id, wrapped) SELECT * FROM unnest($1::text[], $2::text[])`, [
      made.map((key) => key.id),
      made.map((key) => this.secrets.seal(key.key.toString('base64'))),
    ]);
  });
  private readonly cache = new LRUCache<string, Buffer>({ max: CACHED_KEYS, ttl: KEY_TTL_MS });
  private readonly current_ = new LRUCache<string, DataKey>({ max: 10_000, ttl: KEY_TTL_MS });
  /** Counts destructions made here: a read that started before one must not cache what it found. */
  private generation = 0;
  private readonly listeners: (() => void)[] = [];
  private readonly expiry: NodeJS.Timeout;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly secrets: Pick<SecretBox, 'seal' | 'open'>,
  ) {
    this.expiry = setInterval(() => this.notify(), KEY_TTL_MS);
    this.expiry.unref();
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
    const { rows } = await this.pool.query<{ id: string; wrapped: string }>(
      `SELECT k.id, k.wrapped FROM ${DATA_KEY_OWNERS} o JOIN ${DATA_KEYS} k ON k.id = o.key_id WHERE o.subject = $1
         AND NOT EXISTS (SELECT 1 FROM ${DATA_KEY_OWNERS} x WHERE x.key_id = o.key_id AND x.subject <> o.subject) LIMIT 1`,
      [subject],
    );
    if (rows.length === 0) return null;
    const found = { id: rows[0].id, key: this.unwrap(rows[0].wrapped) };
    if (generation === this.generation) {
      this.cache.set(found.id, found.key);
      this.current_.set(subject, found);
    }
    return found;
  }

  use(subject: string, key: DataKey): void {
    this.current_.set(subject, key);
  }

  private unwrap(wrapped: string): Buffer {
    return Buffer.from(this.secrets.open(wrapped), 'base64');
  }

  async load(ids: readonly string[]): Promise<Map<string, Buffer>> {
    const { found, missing } = fromCache(ids, this.cache);
    if (missing.length === 0) return found;
    const generation = this.generation;
    const { rows } = await this.pool.query<{ id: string; wrapped: string }>(`SELECT id, wrapped FROM ${DATA_KEYS} WHERE id = ANY($1::text[])`, [missing]);
    for (const row of rows) {
      const key = this.unwrap(row.wrapped);
      if (generation === this.generation) this.cache.set(row.id, key);
      found.set(row.id, key);
    }
    return found;
  }

  async apply(changes: KeyChanges, checkpoint: Position): Promise<boolean> {
    // A batch names the same owner once per event sealed with its key.
    const owned = [...new Map(changes.owned.map((owner) => [`${owner.subject}\u0000${owner.keyId}`, owner])).values()];
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
    this.generation++;
    for (const id of destroyed) this.cache.delete(id);
    this.current_.clear();
    this.notify();
    // The destroyed keys' rows are dead tuples until VACUUM: now, rather than at autovacuum's leisure. Should it fail,
    // the batch is applied again (the shredder's checkpoint is written), destroying nothing, and autovacuum gets to them.
    await this.pool.query(`VACUUM ${DATA_KEYS}, ${DATA_KEY_OWNERS}`);
    return true;
  }

  /** The keys the erasures destroy: every key an erased subject owns, unless each erasure of that subject spares it. */
  private async destroyedBy(client: pg.PoolClient, erased: KeyChanges['erased']): Promise<string[]> {
    if (erased.length === 0) return [];
    const spared = new Map<string, (string | undefined)[]>();
    for (const { subject, except } of erased) spared.set(subject, [...(spared.get(subject) ?? []), except]);
    const { rows } = await client.query<{ subject: string; key_id: string }>(
      `SELECT subject, key_id FROM ${DATA_KEY_OWNERS} WHERE subject = ANY($1::text[]) FOR UPDATE`,
      [[...spared.keys()]],
    );
    const destroyed = new Set<string>();
    for (const { subject, key_id } of rows) if (!spared.get(subject)!.every((except) => except === key_id)) destroyed.add(key_id);
    return [...destroyed];
  }

  async checkpoint(): Promise<Position | null> {
    const { rows } = await this.pool.query<{ position: string }>(`SELECT position FROM ${DATA_KEY_PROGRESS} WHERE name = $1`, [SHREDDER]);
    return rows.length ? decodePosition(rows[0].position) : null;
  }

  onDestroyed(listener: () => void): void {
    this.listeners.push(listener);
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
        [stale.map((row) => row.id), stale.map((row) => row.wrapped), stale.map((row) => target.seal(this.secrets.open(row.wrapped)))],
      );
      rewrapped += rowCount ?? 0;
    }
    if (rewrapped > 0) await this.pool.query(`VACUUM FULL ${DATA_KEYS}`);
    return rewrapped;
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }

  async close(): Promise<void> {
    clearInterval(this.expiry);
    await this.ahead.settled();
  }
}
