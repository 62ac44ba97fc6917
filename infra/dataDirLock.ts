// Who is using DATA_DIR's embedded stores, told by SQLite's own locks on DATA_DIR/server.lock: POSIX advisory locks,
// which the operating system drops with the process however it ends, so a killed server leaves nothing that blocks
// (a pid file would, once its pid is reused). A server holds a shared lock for as long as it runs; the replay tool's
// rebuild, which rewrites the read models a server projects into, holds the exclusive one for as long as it runs:
// neither starts while the other runs.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createPrivateDatabaseFile } from './dataDir.js';
import type { EngineConfig } from './engines.js';

/** Whether a process on these engines keeps its log or read models in DATA_DIR (the embedded default). */
export const usesEmbeddedStores = (engines: Pick<EngineConfig, 'store' | 'readStore'>) =>
  engines.store.kind === 'sqlite' || engines.readStore.kind === 'embedded';

/** A held lock; release() gives it back (closing the connection drops it). */
export interface DataDirLock {
  release(): void;
}

function open(dataDir: string): Database.Database {
  const file = join(dataDir, 'server.lock');
  createPrivateDatabaseFile(file);
  // No busy wait: a lock held by another process is an answer, not a reason to wait.
  return new Database(file, { timeout: 0 });
}

const isBusy = (error: unknown) => (error as { code?: string }).code === 'SQLITE_BUSY';

/** Lets `acquire` take its lock on the connection, or throws `refusal` when another process holds a conflicting one. */
function hold(dataDir: string, acquire: (db: Database.Database) => void, refusal: string): DataDirLock {
  const db = open(dataDir);
  try {
    acquire(db);
  } catch (error) {
    db.close();
    throw isBusy(error) ? new Error(refusal) : error;
  }
  return { release: () => db.close() };
}

/** A server's lock: shared, so it only keeps a rebuild out (and a rebuild under way keeps the server from starting). */
export function holdForServer(dataDir: string): DataDirLock {
  return hold(
    dataDir,
    (db) => {
      // A read inside an open transaction takes SQLite's shared lock and keeps it until the transaction ends.
      db.exec('BEGIN');
      db.prepare('SELECT count(*) FROM sqlite_master').get();
    },
    `the replay tool is rebuilding the read models in ${dataDir}: start the server once the rebuild is done`,
  );
}

/** The replay tool's rebuild lock: exclusive, refused while any server runs on DATA_DIR. */
export function holdForRebuild(dataDir: string): DataDirLock {
  return hold(
    dataDir,
    (db) => db.exec('BEGIN EXCLUSIVE'),
    `a server is running on ${dataDir}: stop it first (a rebuild empties the read models the server reads and projects into; an erasure changes what it keeps in memory; a migration replaces its files)`,
  );
}
