// The embedded key store: keys.db under DATA_DIR (0600), apart from the log. Each data key is stored wrapped by the
// master key (infra/masterKeys.ts: MASTER_KEY or DATA_DIR/master.key), so a copy of keys.db alone opens nothing.
// Destroyed keys are gone for good: secure_delete zeroes their rows, and the WAL that held their old pages is
// truncated soon after (the same bound as the read models' scrub).
// Keys are made ahead (dataKeys.ts), a batch at a time with one fsync, on a thread of their own in a server
// (keyWriter.ts), so a send takes a durable key without waiting on a disk: a key is on disk before any event names
// it. Keys made ahead and never used (a restart drops the rest of a batch) seal nothing, and the shredder never
// learns an owner for them.
import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { type Position, decodePosition } from '../../ports/eventStore.js';
import type { DataKey, KeyChanges, KeyStore, Wrapping } from '../../ports/keyStore.js';
import type { SecretBox } from '../../ports/secrets.js';
import { createPrivateDatabaseFile } from '../dataDir.js';
import { fromCache } from './dataKeys.js';
import { type KeyWriter, inPlaceKeyWriter, keyStatements, threadKeyWriter } from './keyWriter.js';

/** Keys made ahead with one fsync. */
const BATCH = 1024;
/** When this few are left, the next batch is asked for. */
const LOW = 256;
/** Open keys kept in memory: a channel's recent messages are read without a query. */
const CACHED_KEYS = 100_000;
const CHUNK = 500;

export class SqliteKeyStore implements KeyStore {
  private readonly db: Database.Database;
  private ahead: DataKey[] = [];
  private readonly cache = new LRUCache<string, Buffer>({ max: CACHED_KEYS });
  private readonly current_ = new LRUCache<string, DataKey>({ max: 10_000 });
  private readonly listeners: (() => void)[] = [];
  private scrubTimer: NodeJS.Timeout | null = null;
  /** Counts destructions, so that a lookup a destruction overtook does not remember the key it found. */
  private destructions = 0;
  private readonly statements;

  private readonly writer: KeyWriter;
  /** The batch being made, if any: creations that find none left wait for it. */
  private making: Promise<void> | null = null;

  /** `writerThread`: the master key to write keys.db with on a thread of its own (a server's store); else in place. */
  constructor(
    private readonly file: string,
    private readonly secrets: Pick<SecretBox, 'seal' | 'open'>,
    private readonly scrubAfterMs = 1000,
    writerThread: Buffer | null = null,
  ) {
    if (file !== ':memory:') createPrivateDatabaseFile(file);
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('secure_delete = ON');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS keys (id TEXT PRIMARY KEY, wrapped TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS owners (subject TEXT NOT NULL, key_id TEXT NOT NULL, PRIMARY KEY (subject, key_id)) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS owners_by_key ON owners (key_id);
      CREATE TABLE IF NOT EXISTS progress (name TEXT PRIMARY KEY, position TEXT NOT NULL) WITHOUT ROWID;
    `);
    this.statements = {
      ...keyStatements(this.db),
      checkpoint: this.db.prepare<[], { position: string }>("SELECT position FROM progress WHERE name = 'shredder'"),
    };
    // The writer thread's connection may hold the write lock for a batch's fsync; this one waits for it rather than fail.
    this.db.pragma('busy_timeout = 5000');
    this.writer =
      writerThread && file !== ':memory:' ? threadKeyWriter(file, writerThread) : inPlaceKeyWriter(this.db, this.statements, (plain) => secrets.seal(plain));
    // A killed process's WAL may still hold the wrapped form of keys it destroyed last.
    this.scheduleScrub();
  }

  async create(): Promise<DataKey> {
    for (;;) {
      const key = this.createNow();
      if (key) return key;
      await this.makeAhead();
    }
  }

  createNow(): DataKey | null {
    // The next batch is asked for while this one still lasts, so that a send rarely waits for one.
    if (this.ahead.length <= LOW) void this.makeAhead().catch(() => {});
    // Not cached: the embedded log hands this process's own events back as they were appended, so opening them needs
    // no key (infra/eventStore/sealing.ts); a later read from disk loads it.
    return this.ahead.pop() ?? null;
  }

  private makeAhead(): Promise<void> {
    this.making ??= this.writer.make(BATCH).then(
      (made) => {
        this.making = null;
        // Taken from the end: what is left of the last batch first, then this one's lowest id first, so that the
        // owners index by key grows at its edge.
        this.ahead = [...made.reverse(), ...this.ahead];
      },
      (error: unknown) => {
        this.making = null;
        throw error;
      },
    );
    return this.making;
  }

  async current(subject: string): Promise<DataKey | null> {
    const known = this.current_.get(subject);
    if (known) return known;
    // A key the shredder knows the subject owns alone (any one will do: a subject's keys are destroyed together). One it
    // shares goes with the other subject too: sealing the subject's profile with it would let that erasure take it.
    const destructions = this.destructions;
    for (const { key_id } of this.statements.ownedAlone.all(subject)) {
      const key = (await this.load([key_id])).get(key_id);
      if (destructions !== this.destructions) return this.current(subject);
      if (key) return this.remember(subject, { id: key_id, key });
    }
    return null;
  }

  use(subject: string, key: DataKey): void {
    this.remember(subject, key);
  }

  private remember(subject: string, key: DataKey): DataKey {
    this.current_.set(subject, key);
    return key;
  }

  async load(ids: readonly string[]): Promise<Map<string, Buffer>> {
    return loadKeys(this.db, ids, this.cache, this.secrets);
  }

  async apply(changes: KeyChanges, checkpoint: Position): Promise<boolean> {
    const destroyed = await this.writer.apply(changes, checkpoint);
    if (destroyed.length === 0) return false;
    this.destructions += 1;
    for (const id of destroyed) this.cache.delete(id);
    this.current_.clear();
    this.scheduleScrub();
    for (const listener of this.listeners) listener();
    return true;
  }

  async checkpoint(): Promise<Position | null> {
    const row = this.statements.checkpoint.get();
    return row ? decodePosition(row.position) : null;
  }

  onDestroyed(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** In one transaction; then the old wrappings leave the WAL as destroyed keys do (secure_delete zeroes them in the file). */
  async rewrap(target: Wrapping): Promise<number> {
    const page = this.db.prepare<[string], { id: string; wrapped: string }>(`SELECT id, wrapped FROM keys WHERE id > ? ORDER BY id LIMIT ${CHUNK}`);
    const update = this.db.prepare<[string, string]>('UPDATE keys SET wrapped = ? WHERE id = ?');
    let rewrapped = 0;
    this.db.transaction(() => {
      for (let rows = page.all(''); rows.length > 0; rows = page.all(rows[rows.length - 1].id)) {
        for (const row of rows) {
          if (target.wraps(row.wrapped)) continue;
          update.run(target.seal(this.secrets.open(row.wrapped)), row.id);
          rewrapped += 1;
        }
      }
    })();
    // Rebuilt from scratch, so that no page the re-wrapping moved a row off keeps its old wrapping, then the WAL that
    // carried it all truncated: a rotation is rare and offline, and must leave no trace of the old key's work.
    if (this.file !== ':memory:' && rewrapped > 0) {
      this.db.exec('VACUUM');
      const [result] = this.db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      if (result.busy) throw new Error('keys.db is held open by another process: its WAL could not be truncated after the re-wrapping');
    }
    return rewrapped;
  }

  /** The destroyed keys' old pages leave the WAL: copied over (zeroed) into the file, the WAL truncated. */
  private scheduleScrub(): void {
    if (this.scrubTimer || this.file === ':memory:') return;
    this.scrubTimer = setTimeout(() => {
      this.scrubTimer = null;
      const [result] = this.db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      if (result.busy) this.scheduleScrub();
    }, this.scrubAfterMs);
    this.scrubTimer.unref();
  }

  async close(): Promise<void> {
    await this.making?.catch(() => {});
    await this.writer.close();
    if (this.scrubTimer) {
      clearTimeout(this.scrubTimer);
      this.scrubTimer = null;
      if (this.file !== ':memory:') this.db.pragma('wal_checkpoint(TRUNCATE)');
    }
    this.db.close();
  }
}

/**
 * The keys of `ids` that keys.db holds, unwrapped, from `cache` or else read a chunk of ids at a time and remembered
 * there: the store's lookups, and the rebuild's read-ahead thread's on a connection of its own.
 */
export function loadKeys(
  db: Database.Database,
  ids: readonly string[],
  cache: LRUCache<string, Buffer>,
  secrets: Pick<SecretBox, 'open'>,
): Map<string, Buffer> {
  const { found, missing } = fromCache(ids, cache);
  for (let i = 0; i < missing.length; i += CHUNK) {
    const chunk = missing.slice(i, i + CHUNK);
    const rows = db.prepare(`SELECT id, wrapped FROM keys WHERE id IN (${chunk.map(() => '?').join(',')})`).all(...chunk) as {
      id: string;
      wrapped: string;
    }[];
    for (const row of rows) {
      const key = Buffer.from(secrets.open(row.wrapped), 'base64');
      cache.set(row.id, key);
      found.set(row.id, key);
    }
  }
  return found;
}
