// The embedded log's writer thread (one per process, shared by its logs: sqliteCommit.ts starts it): it holds each
// log's one writing connection and runs its group commits, while the SqliteEventStore keeps its own connection for
// reads. While this thread waits on a commit's fsync, the main thread goes on answering requests, on another core.
import { parentPort } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { type AppendOutcome, type FromLogWriter, type ToLogWriter, groupCommitter, openLog } from './sqliteCommit.js';

const port = parentPort!;
const logs = new Map<string, { db: Database.Database; commit: ReturnType<typeof groupCommitter> }>();

function log(file: string) {
  let opened = logs.get(file);
  if (!opened) {
    const db = new Database(file);
    try {
      openLog(db);
      opened = { db, commit: groupCommitter(db) };
    } catch (error) {
      // Not kept, so the next batch opens the file again: close this connection rather than leave one per batch.
      db.close();
      throw error;
    }
    logs.set(file, opened);
  }
  return opened;
}

port.on('message', (message: ToLogWriter & { id: number }) => {
  const reply = (outcomes: AppendOutcome[]) => port.postMessage({ id: message.id, outcomes } satisfies FromLogWriter);
  if ('close' in message) {
    logs.get(message.file)?.db.close();
    logs.delete(message.file);
    return reply([]);
  }
  let outcomes: AppendOutcome[];
  try {
    outcomes = log(message.file).commit(message.batch);
  } catch (error) {
    // The log could not be opened: every append of the batch fails with that.
    outcomes = message.batch.map(() => ({ error }));
  }
  // A SqliteError does not survive the copy to the other thread (its message is lost): send a plain Error of the same message.
  reply(outcomes.map((outcome) => ('error' in outcome && outcome.error instanceof Error ? { error: new Error(outcome.error.message) } : outcome)));
});
