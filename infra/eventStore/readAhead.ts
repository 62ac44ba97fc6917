// A rebuild's read of the embedded log (the replay tool's `rebuild`, the bench's): its subscriptions read the log from
// disk on a thread of their own, which decrypts the sealed fields too (readAheadThread.ts) and stays a few pages ahead,
// so that the main thread only parses, puts the values in place and projects. Reading the rows and decrypting took
// about a third of a rebuild's main-thread CPU, and the rebuild is bound by that thread (docs/benchmarks.md).
// Everything else, and any read but a subscription's, goes to the log it is made over, which a subscription's `head`
// also asks. For an offline rebuild only: the thread opens with the keys it reads then, and knows nothing of a key
// destroyed after it read a page (the rebuild holds DATA_DIR against servers, whose shredders destroy keys).
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Config } from '../../ports/config.js';
import type {
  AppendResult,
  BatchHandler,
  EventStore,
  ExpectedRevision,
  NewEvent,
  Position,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  SubscribeToAllOptions,
  Subscription,
} from '../../ports/eventStore.js';
import type { FieldPath } from '../../domain/personalData.js';
import { CatchUpSubscription } from './catchUp.js';
import { withOpened } from './sealing.js';
import { type EventRow, toRecorded } from './sqlite.js';

/** Where the thread finds the log, keys.db and the keys that unwrap them (as openEmbeddedLog opens them). */
export type ReadAheadSource = Pick<Config, 'dataDir' | 'secretKey' | 'masterKey' | 'masterKeysRetired'>;

/** From the position `after` (exclusive), with room for `pages`; or room for `pages` more of the same generation. */
export type ToReadAhead = { generation: number; after: number; pages: number } | { generation: number; pages: number };
/**
 * A row of the log; a sealed one's data without its envelopes, then the envelopes' paths as JSON text and what each
 * decrypted to, as JSON text (null: its key is gone).
 */
export type ReadAheadRow = EventRow | [...EventRow, paths: string, opened: (string | null)[]];
/** A page; an empty one when the thread has caught up with the log. */
export interface FromReadAhead {
  generation: number;
  rows: ReadAheadRow[];
}

/** Pages the thread may be ahead of the main thread by (250 events each: CATCH_UP_PAGE). */
const AHEAD = 8;

const threadEntry = (): URL =>
  new URL(extname(fileURLToPath(import.meta.url)) === '.ts' ? './readAheadThread.dev.mjs' : './readAheadThread.js', import.meta.url);

export class ReadAheadLog implements EventStore {
  constructor(
    private readonly log: EventStore,
    private readonly source: ReadAheadSource,
  ) {}

  subscribeToAll(options: SubscribeToAllOptions, handler: BatchHandler, onError?: (error: unknown) => void): Subscription {
    const pages = new ReadAheadPages(this.source);
    const subscription = new CatchUpSubscription({
      from: options.fromPosition ?? null,
      excludeTypePrefix: options.excludeTypePrefix,
      readPage: (after) => pages.after(after),
      head: () => this.log.headPosition(),
      handler,
      onError,
      onStop: () => void pages.close(),
    });
    subscription.start();
    return subscription;
  }

  appendToStream(streamId: string, events: NewEvent[], options?: { expectedRevision?: ExpectedRevision }): Promise<AppendResult> {
    return this.log.appendToStream(streamId, events, options);
  }

  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.log.readStream(streamId, options);
  }

  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.log.readAll(options);
  }

  headPosition(): Promise<Position | null> {
    return this.log.headPosition();
  }

  /** The log it reads beside is its opener's to close; a subscription's thread ends with the subscription. */
  async close(): Promise<void> {}
}

/** The envelopes' paths by their JSON text: a log's events are sealed alike by type, so a few texts serve them all. */
const pathsByText = new Map<string, FieldPath[][]>();
const PATHS_KEPT = 1000;

function recorded(row: ReadAheadRow): RecordedEvent {
  const event = toRecorded(row as EventRow);
  if (row.length === 8) return event;
  let paths = pathsByText.get(row[8]);
  if (!paths) {
    if (pathsByText.size >= PATHS_KEPT) pathsByText.clear();
    paths = JSON.parse(row[8]) as FieldPath[][];
    pathsByText.set(row[8], paths);
  }
  return withOpened(
    event,
    paths,
    row[9].map((text) => (text === null ? null : (JSON.parse(text) as unknown[]))),
  );
}

/** One subscription's pages from its thread, in order; a read from anywhere else than where the last page ended starts over. */
class ReadAheadPages {
  private readonly worker: Worker;
  private generation = 0;
  /** Where the next page the thread sends starts after (null: nothing asked for, or the thread has caught up). */
  private expected: number | null = null;
  private readonly arrived: ReadAheadRow[][] = [];
  private waiter: { resolve: (rows: ReadAheadRow[]) => void; reject: (error: unknown) => void } | null = null;
  private failure: unknown = null;

  constructor(source: ReadAheadSource) {
    this.worker = new Worker(threadEntry(), { workerData: source });
    // Only a page waited for keeps the process alive.
    this.worker.unref();
    this.worker.on('message', ({ generation, rows }: FromReadAhead) => {
      if (generation !== this.generation) return;
      if (this.waiter) {
        const { resolve } = this.waiter;
        this.waiter = null;
        this.worker.unref();
        resolve(rows);
      } else {
        this.arrived.push(rows);
      }
    });
    const fail = (error: unknown) => {
      this.failure ??= error;
      const waiter = this.waiter;
      this.waiter = null;
      waiter?.reject(this.failure);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the read-ahead thread exited (${code})`)));
  }

  async after(position: Position | null): Promise<RecordedEvent[]> {
    if (this.failure) throw this.failure;
    const after = position ? Number(position.commit) : 0;
    if (after !== this.expected) {
      this.generation += 1;
      this.arrived.length = 0;
      this.worker.postMessage({ generation: this.generation, after, pages: AHEAD } satisfies ToReadAhead);
    } else {
      this.worker.postMessage({ generation: this.generation, pages: 1 } satisfies ToReadAhead);
    }
    const rows = this.arrived.shift() ?? (await this.next());
    this.expected = rows.length > 0 ? rows[rows.length - 1][0] : null;
    return rows.map(recorded);
  }

  private next(): Promise<ReadAheadRow[]> {
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
      this.worker.ref();
    });
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}
