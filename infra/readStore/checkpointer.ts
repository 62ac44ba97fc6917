// Checkpoints a WAL database from a thread of its own: copying committed pages from the WAL into the database file
// (and syncing it) is taken off the writer's thread, which runs with automatic checkpoints off. A PASSIVE checkpoint
// never blocks the writer, and a checkpoint is no part of durability: a crash leaves the WAL to replay. The scrub's
// TRUNCATE runs here too, when asked: after the last PASSIVE one it has little left to copy, and the writer's thread
// never waits on the file's fsync (measured: the read store's checkpoints were a few percent of a send's main thread).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the thread checkpoints what has been committed since. */
const INTERVAL_MS = 50;

// Plain JavaScript evaluated by the worker, so that it runs the same under tsx and from the build. A TRUNCATE finds
// the writer mid-transaction now and then (it never waits for it: busy_timeout 0): it is tried again a few times.
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 0');
const checkpoint = (mode) => {
  try {
    return db.pragma('wal_checkpoint(' + mode + ')')[0].busy === 0;
  } catch {
    return false;
  }
};
const timer = setInterval(() => checkpoint('PASSIVE'), workerData.interval);
const truncate = (id, tries) => {
  const done = checkpoint('TRUNCATE');
  if (done || tries <= 1) parentPort.postMessage({ id, done });
  else setTimeout(() => truncate(id, tries - 1), 5);
};
parentPort.on('message', (message) => {
  if (message.truncate) return truncate(message.id, 20);
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export class BackgroundCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private next = 0;
  private readonly waiting = new Map<number, (done: boolean) => void>();

  /** `failed`: the thread is gone (its connection could not open, or it crashed): the writer must checkpoint again. */
  constructor(file: string, failed: () => void = () => {}) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(SOURCE, { eval: true, workerData: { file, driver, interval: INTERVAL_MS } });
    // It holds the process open only while asked something: a server's own handles do, and a tool that is done may exit.
    this.worker.unref();
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.on('message', ({ id, done }: { id: number; done: boolean }) => {
      this.waiting.get(id)?.(done);
      this.waiting.delete(id);
      if (this.waiting.size === 0) this.worker.unref();
    });
    this.worker.on('error', () => {
      for (const settle of this.waiting.values()) settle(false);
      this.waiting.clear();
      failed();
    });
  }

  /** Copies every page into the database file and truncates the WAL; false when it could not (try again later). */
  truncate(): Promise<boolean> {
    const id = (this.next += 1);
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.worker.ref();
      this.worker.postMessage({ truncate: true, id });
    });
  }

  /** Stops the thread and waits for it to have closed its connection. */
  async stop(): Promise<void> {
    this.worker.ref();
    this.worker.postMessage({ stop: true });
    await this.exited;
    for (const settle of this.waiting.values()) settle(false);
    this.waiting.clear();
  }
}
