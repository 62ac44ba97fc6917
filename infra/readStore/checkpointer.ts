// Checkpoints a WAL database from a thread of its own: copying committed pages from the WAL into the database file
// (and syncing it) is taken off the writer's thread, which meanwhile runs with automatic checkpoints off. A PASSIVE
// checkpoint never blocks the writer, and a checkpoint is no part of durability: a crash leaves the WAL to replay.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the thread checkpoints what has been committed since. */
const INTERVAL_MS = 50;

// Plain JavaScript evaluated by the worker, so that it runs the same under tsx and from the build.
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
const timer = setInterval(() => db.pragma('wal_checkpoint(PASSIVE)'), workerData.interval);
parentPort.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export class BackgroundCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  constructor(file: string) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(SOURCE, { eval: true, workerData: { file, driver, interval: INTERVAL_MS } });
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    // A failed checkpoint leaves the pages in the WAL, where the writer's own automatic checkpoints, on again once the
    // thread is stopped, copy them from: nothing to report to the load.
    this.worker.on('error', () => {});
  }

  /** Stops the thread and waits for it to have closed its connection. */
  async stop(): Promise<void> {
    this.worker.postMessage('stop');
    await this.exited;
  }
}
