// What writes keys.db: the keys made ahead (generated, wrapped by the master key, inserted with one fsync per batch)
// and the key shredder's changes (owners learnt, keys destroyed, its checkpoint). In a server that is a thread of its
// own, so that neither the wrapping, the inserts nor the fsyncs hold up the main thread (measured: together about a
// fifth of a send's time there); an in-memory store, or one opened by a tool, writes in place.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { type Position, encodePosition } from '../../ports/eventStore.js';
import type { DataKey, KeyChanges } from '../../ports/keyStore.js';
import { type KeyBatch, dataKeysOf, newKeyBatch } from './dataKeys.js';

export interface KeyWriter {
  /** `count` new keys, each on disk, wrapped, before the promise resolves. */
  make(count: number): Promise<DataKey[]>;
  /** Applies the shredder's changes with its checkpoint in one transaction; the ids of the keys it destroyed. */
  apply(changes: KeyChanges, checkpoint: Position): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Rows an insert of many takes at once: run a row at a time, each statement's own work outweighed the row's insert
 * (measured on owners, 3072 a batch: 16 rows a statement 14.0 µs a key's three, 64 rows 13.4, 256 rows 14.1).
 */
const ROWS = 64;

/** `sql` once with `(?, ?)` for one row, once with it for ROWS rows. */
function pairInsert(db: Database.Database, sql: string) {
  return {
    one: db.prepare<[string, string]>(`${sql} (?, ?)`),
    many: db.prepare<[string[]]>(`${sql} ${Array<string>(ROWS).fill('(?, ?)').join(', ')}`),
  };
}

/** Inserts `pairs` (two values a row, one after the other), ROWS rows a statement. */
function insertPairs(insert: ReturnType<typeof pairInsert>, pairs: readonly string[]): void {
  let at = 0;
  for (; at + 2 * ROWS <= pairs.length; at += 2 * ROWS) insert.many.run(pairs.slice(at, at + 2 * ROWS));
  for (; at < pairs.length; at += 2) insert.one.run(pairs[at], pairs[at + 1]);
}

export function keyStatements(db: Database.Database) {
  return {
    insert: pairInsert(db, 'INSERT INTO keys (id, wrapped) VALUES'),
    own: pairInsert(db, 'INSERT OR IGNORE INTO owners (subject, key_id) VALUES'),
    owned: db.prepare<[string], { key_id: string }>('SELECT key_id FROM owners WHERE subject = ?'),
    /** The keys a subject owns alone: a key shared with another subject (an auto-moderation record's) is never reused. */
    ownedAlone: db.prepare<[string], { key_id: string }>(
      'SELECT key_id FROM owners o WHERE subject = ? AND NOT EXISTS (SELECT 1 FROM owners x WHERE x.key_id = o.key_id AND x.subject <> o.subject)',
    ),
    destroyKey: db.prepare<[string]>('DELETE FROM keys WHERE id = ?'),
    disown: db.prepare<[string]>('DELETE FROM owners WHERE key_id = ?'),
    setCheckpoint: db.prepare<[string]>(
      "INSERT INTO progress (name, position) VALUES ('shredder', ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position",
    ),
  };
}
export type KeyStatements = ReturnType<typeof keyStatements>;

function makeKeys(db: Database.Database, statements: KeyStatements, seal: (plain: string) => string, count: number): KeyBatch {
  const made = newKeyBatch(count);
  const rows: string[] = [];
  made.ids.forEach((id, i) => rows.push(id, seal(made.material.toString('base64', 32 * i, 32 * (i + 1)))));
  db.transaction(() => insertPairs(statements.insert, rows)).immediate();
  return made;
}

/**
 * What the shredder learnt, as the thread is sent it: the owners flat (subject, key id, subject, key id…), which
 * a message carries at a fraction of the cost of an object an owner.
 */
export interface FlatKeyChanges {
  owned: string[];
  erased: KeyChanges['erased'];
}

function flatKeyChanges(changes: KeyChanges): FlatKeyChanges {
  const owned: string[] = [];
  for (const { subject, keyId } of changes.owned) owned.push(subject, keyId);
  return { owned, erased: changes.erased };
}

function applyChanges(db: Database.Database, statements: KeyStatements, changes: FlatKeyChanges, checkpoint: string): string[] {
  const destroyed: string[] = [];
  const write = db.transaction(() => {
    insertPairs(statements.own, changes.owned);
    for (const { subject, except } of changes.erased) {
      for (const { key_id } of statements.owned.all(subject)) {
        if (key_id === except) continue;
        statements.destroyKey.run(key_id);
        statements.disown.run(key_id);
        destroyed.push(key_id);
      }
    }
    statements.setCheckpoint.run(checkpoint);
  });
  // Only a destruction must be on disk before the shredder moves on; what it learns of owners it learns again.
  db.pragma(`synchronous = ${changes.erased.length > 0 ? 'FULL' : 'NORMAL'}`);
  try {
    // Immediate: the write lock is waited for at the start (busy_timeout). A transaction that read first could not wait
    // for it (SQLite refuses a reader's upgrade at once), and the WAL scrub's checkpoint holds it while waiting for readers.
    write.immediate();
  } finally {
    db.pragma('synchronous = FULL');
  }
  return destroyed;
}

export function inPlaceKeyWriter(db: Database.Database, statements: KeyStatements, seal: (plain: string) => string): KeyWriter {
  return {
    make: async (count) => dataKeysOf(makeKeys(db, statements, seal, count)),
    apply: async (changes, checkpoint) => applyChanges(db, statements, flatKeyChanges(changes), encodePosition(checkpoint)),
    close: async () => {},
  };
}

/** What the thread does for a request; its connection to keys.db and its wrapping are the thread's. */
export function threadWork(db: Database.Database, seal: (plain: string) => string): (request: ToKeyWriter) => FromKeyWriter {
  const statements = keyStatements(db);
  return (request) => {
    try {
      if ('count' in request) return { id: request.id, made: makeKeys(db, statements, seal, request.count) };
      return { id: request.id, destroyed: applyChanges(db, statements, request.changes, request.checkpoint) };
    } catch (error) {
      return { id: request.id, error: error instanceof Error ? error.message : String(error) };
    }
  };
}

const threadEntry = (): URL =>
  new URL(extname(fileURLToPath(import.meta.url)) === '.ts' ? './keyWriterThread.dev.mjs' : './keyWriterThread.js', import.meta.url);

export type ToKeyWriter = { id: number; count: number } | { id: number; changes: FlatKeyChanges; checkpoint: string };
/** Keys made come back in one buffer: an object a key, each with a buffer of its own, made the reply's clone cost more. */
export type FromKeyWriter = { id: number; made: KeyBatch } | { id: number; destroyed: string[] } | { id: number; error: string };

/** A thread with its own connection to `file`, wrapping with `masterKey`; it keeps the process alive only while asked. */
export function threadKeyWriter(file: string, masterKey: Buffer): KeyWriter {
  let worker: Worker | null = null;
  let next = 0;
  const waiting = new Map<number, { resolve: (reply: FromKeyWriter) => void; reject: (error: unknown) => void }>();
  const settle = (id: number) => {
    const waiter = waiting.get(id);
    waiting.delete(id);
    if (waiting.size === 0) worker?.unref();
    return waiter;
  };
  const start = () => {
    const started = new Worker(threadEntry(), { workerData: { file, masterKey } });
    started.on('message', (reply: FromKeyWriter) => {
      if ('error' in reply) settle(reply.id)?.reject(new Error(reply.error));
      else settle(reply.id)?.resolve(reply);
    });
    const failAll = (error: unknown) => {
      for (const id of [...waiting.keys()]) settle(id)?.reject(error);
    };
    started.on('error', failAll);
    started.on('exit', (code) => {
      failAll(new Error(`the key writer thread exited (${code})`));
      if (worker === started) worker = null;
    });
    return started;
  };
  const request = (message: { count: number } | { changes: FlatKeyChanges; checkpoint: string }) => {
    const thread = (worker ??= start());
    const id = (next += 1);
    return new Promise<FromKeyWriter>((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      thread.ref();
      thread.postMessage({ ...message, id });
    });
  };
  return {
    async make(count) {
      const reply = await request({ count });
      return 'made' in reply ? dataKeysOf(reply.made) : [];
    },
    async apply(changes, checkpoint) {
      const reply = await request({ changes: flatKeyChanges(changes), checkpoint: encodePosition(checkpoint) });
      return 'destroyed' in reply ? reply.destroyed : [];
    },
    async close() {
      const thread = worker;
      worker = null;
      await thread?.terminate();
    },
  };
}
