// The embedded log's group commit: a batch of appends written in one transaction, one fsync (synchronous=FULL) for
// all of them. It runs on the log writer's thread (sqliteWriterThread.ts), so the fsync waits there instead of on
// the thread that answers requests; an in-memory log, which no other thread can open, commits where it is.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import type { ExpectedRevision } from '../../ports/eventStore.js';

/** One append, its events already JSON text, so that nothing inside the transaction can fail for one append's data. */
export interface AppendToCommit {
  streamId: string;
  expected: ExpectedRevision;
  rows: { id: string; type: string; data: string; metadata: string; schemaVersion: number }[];
}

/** Committed at these positions, up to `revision`; or refused, the stream being at `wrongExpected`; or failed alone. */
export type AppendOutcome = { positions: number[]; revision: number } | { wrongExpected: number | null } | { error: unknown };

/** To the writer thread: a batch to commit to a log, or the end of its connection to that log. */
export type ToLogWriter = { file: string } & ({ batch: AppendToCommit[] } | { close: true });
/** From the writer thread: the outcomes of the request of that id (none for a close). */
export interface FromLogWriter {
  id: number;
  outcomes: AppendOutcome[];
}

export interface LogWriter {
  /** Commits the batch; each append's outcome, in order. A batch the transaction cannot take is retried append by append, so only a faulty one fails. */
  commit(batch: AppendToCommit[]): Promise<AppendOutcome[]>;
  close(): Promise<void>;
}

/** Opens the log's SQLite file the way every connection to it is opened: WAL, and a commit is fsync'd before it returns. */
export function openLog(db: Database.Database): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.exec(`
    CREATE TABLE IF NOT EXISTS events (
      position INTEGER PRIMARY KEY AUTOINCREMENT,
      stream_id TEXT NOT NULL,
      revision INTEGER NOT NULL,
      id TEXT NOT NULL,
      type TEXT NOT NULL,
      data TEXT NOT NULL,
      metadata TEXT NOT NULL,
      schema_version INTEGER NOT NULL,
      UNIQUE (stream_id, revision)
    );
  `);
}

/** Group commits on `db`, synchronously: what the writer thread runs, and an in-memory log runs in place. */
export function groupCommitter(db: Database.Database): (batch: AppendToCommit[]) => AppendOutcome[] {
  const streamRevision = db.prepare<[string], { revision: number | null }>('SELECT MAX(revision) AS revision FROM events WHERE stream_id = ?');
  const insert = db.prepare('INSERT INTO events (stream_id, revision, id, type, data, metadata, schema_version) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const appendOne = ({ streamId, expected, rows }: AppendToCommit): AppendOutcome => {
    const current = streamRevision.get(streamId)?.revision ?? null;
    const ok =
      expected === 'any' ||
      (expected === 'no_stream' && current === null) ||
      (expected === 'stream_exists' && current !== null) ||
      (typeof expected === 'bigint' && current !== null && BigInt(current) === expected);
    if (!ok) return { wrongExpected: current };
    let revision = current ?? -1;
    const positions = rows.map((row) =>
      Number(insert.run(streamId, (revision += 1), row.id, row.type, row.data, row.metadata, row.schemaVersion).lastInsertRowid),
    );
    return { positions, revision };
  };
  const all = db.transaction((batch: AppendToCommit[]) => batch.map(appendOne));
  const one = db.transaction(appendOne);
  return (batch) => {
    try {
      return all(batch);
    } catch {
      return batch.map((append) => {
        try {
          return one(append);
        } catch (error) {
          return { error };
        }
      });
    }
  };
}

/** Commits on the calling thread (an in-memory log). */
export function inPlaceLogWriter(db: Database.Database): LogWriter {
  const commit = groupCommitter(db);
  return { commit: async (batch) => commit(batch), close: async () => {} };
}

/** The thread's entry beside this file: the compiled JavaScript, or from the TypeScript sources a bootstrap that registers tsx. */
const threadEntry = (): URL =>
  new URL(extname(fileURLToPath(import.meta.url)) === '.ts' ? './sqliteWriterThread.dev.mjs' : './sqliteWriterThread.js', import.meta.url);

/**
 * The process's log writer thread, shared by its logs (one in a server; several in a test run: starting a thread
 * from the TypeScript sources costs a few hundred milliseconds). It keeps the process alive only while a request is
 * under way. A thread that dies fails the requests it held; the next request starts another.
 */
export class WriterThread {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, { resolve: (outcomes: AppendOutcome[]) => void; reject: (error: unknown) => void }>();
  private next = 0;

  request(message: ToLogWriter): Promise<AppendOutcome[]> {
    const worker = (this.worker ??= this.start());
    const id = (this.next += 1);
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ ...message, id });
    });
  }

  private start(): Worker {
    const worker = new Worker(threadEntry());
    worker.on('message', ({ id, outcomes }: FromLogWriter) => this.settle(id)?.resolve(outcomes));
    const failAll = (error: unknown) => {
      for (const id of [...this.waiting.keys()]) this.settle(id)?.reject(error);
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => {
      failAll(new Error(`the log writer thread exited (${code})`));
      if (this.worker === worker) this.worker = null;
    });
    return worker;
  }

  private settle(id: number) {
    const waiting = this.waiting.get(id);
    this.waiting.delete(id);
    if (this.waiting.size === 0) this.worker?.unref();
    return waiting;
  }
}

const writerThread = new WriterThread();

/** Commits on the process's writer thread (or the one given), over a connection of its own to `file`. */
export function threadLogWriter(file: string, thread = writerThread): LogWriter {
  return {
    commit: (batch) => thread.request({ file, batch }),
    // The thread closes its connection to the file (the last connection to close checkpoints the WAL).
    close: async () => void (await thread.request({ file, close: true })),
  };
}
