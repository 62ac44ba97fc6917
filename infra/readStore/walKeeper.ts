// Keeps a WAL database's log short and scrubbed from a thread of its own, so that the thread that writes it (the main
// thread, which answers requests) never copies pages into the database file nor waits for that file's fsync:
// - it checkpoints what was committed (PASSIVE, which never blocks the writer) an interval after a write;
// - it empties the WAL (wal_checkpoint(TRUNCATE): the scrub, docs/privacy.md) at most `scrubAfterMs` after the first
//   write the WAL holds, right after a checkpoint has copied nearly everything (so the writer, whose next commit waits
//   for it, waits little); never while scrubs are held (a bulk load, which it would make wait), and again an interval
//   later when another connection's read holds it up.
// The writer runs with automatic checkpoints off and tells the thread of a write through shared memory, not a message
// a write. A checkpoint is no part of durability: a crash leaves the WAL to replay.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How long after a write the thread checkpoints it, letting the writes meanwhile go with it. */
const INTERVAL_MS = 50;

/** Slots of the shared Int32Array. */
const WRITTEN = 0;
const HELD = 1;

// Plain JavaScript evaluated by the worker, so that it runs the same under tsx and from the build.
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const { file, interval, scrubAfter, flags } = workerData;
const [WRITTEN, HELD] = [${WRITTEN}, ${HELD}];
const db = new Database(file);
db.pragma('busy_timeout = 0');
let stopped = false;
// Opened: the WAL may hold what a killed process wrote last.
let unscrubbedSince = Date.now() - scrubAfter;
parentPort.once('message', () => {
  stopped = true;
  Atomics.notify(flags, WRITTEN);
});
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
(async () => {
  while (!stopped) {
    if (Atomics.load(flags, WRITTEN) === 0) {
      const due = unscrubbedSince === null ? undefined : Math.max(0, unscrubbedSince + scrubAfter - interval - Date.now());
      const waiting = Atomics.waitAsync(flags, WRITTEN, 0, due);
      if (waiting.async) await waiting.value;
      if (stopped) break;
    }
    await sleep(interval);
    if (stopped) break;
    if (Atomics.exchange(flags, WRITTEN, 0) === 1 && unscrubbedSince === null) unscrubbedSince = Date.now() - interval;
    db.pragma('wal_checkpoint(PASSIVE)');
    if (unscrubbedSince !== null && Atomics.load(flags, HELD) === 0 && Date.now() - unscrubbedSince >= scrubAfter - interval) {
      const [result] = db.pragma('wal_checkpoint(TRUNCATE)');
      if (!result.busy) unscrubbedSince = null;
    }
  }
  db.close();
  parentPort.close();
})();
`;

export class WalKeeper {
  private readonly worker: Worker;
  private readonly flags = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
  private readonly exited: Promise<void>;
  private stopping = false;

  /** `onFailure`: the thread could not open the database or stopped by itself; the writer must checkpoint and scrub again. */
  constructor(file: string, scrubAfterMs: number, onFailure: () => void) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const interval = Math.max(1, Math.min(INTERVAL_MS, Math.floor(scrubAfterMs / 4)));
    this.worker = new Worker(SOURCE, { eval: true, workerData: { file, driver, interval, scrubAfter: scrubAfterMs, flags: this.flags } });
    // As the timer it replaces was: a process that ends without closing its store is not kept alive by the thread.
    this.worker.unref();
    // Its exit, which follows, is what the writer is told: it takes the work back whatever the error was.
    this.worker.on('error', () => {});
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', () => {
        if (!this.stopping) onFailure();
        resolve();
      }),
    );
  }

  /** After a commit: the thread checkpoints it an interval later. Costs a write to shared memory (a wake-up when the thread waits). */
  written(): void {
    if (Atomics.compareExchange(this.flags, WRITTEN, 0, 1) === 0) Atomics.notify(this.flags, WRITTEN);
  }

  /** Holds scrubs (true) while a bulk load runs, checkpoints going on; released, the next due one runs. */
  holdScrubs(held: boolean): void {
    Atomics.store(this.flags, HELD, held ? 1 : 0);
  }

  /** Stops the thread and waits for it to have closed its connection. */
  async stop(): Promise<void> {
    this.stopping = true;
    // Referenced again until it has exited: otherwise a process with nothing else to do would end while awaiting it.
    this.worker.ref();
    this.worker.postMessage('stop');
    await this.exited;
  }
}
