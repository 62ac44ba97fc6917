// Embedded event store: an append-only SQLite log in WAL mode with synchronous=FULL, so a commit is on disk
// (fsync'd) before an append resolves. Appends that arrive while a commit is under way are queued and written
// together in the next transaction: one fsync serves them all (group commit). The commits run on a thread of their
// own (sqliteCommit.ts), which waits for the fsync while this thread answers requests; reads use this thread's
// connection (WAL: a read sees every commit made before it starts).
// It is the log's one writer (one process per DATA_DIR), so it knows where the streams it has written or read end:
// a read from past a stream's end, the command handler's top-up of a cached aggregate on every load, needs no query.
// The events it committed last are kept in memory (frozen): its subscribers (projectors, gateway, delivery) read
// them from there instead of each querying and parsing every new event. They are kept as they were appended, not
// parsed back from the text just written: the same values (events are JSON data), without a second copy to parse.
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { createPrivateDatabaseFile } from '../dataDir.js';
import {
  type AppendResult,
  type BatchHandler,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type Position,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeToAllOptions,
  type Subscription,
  WrongExpectedVersionError,
} from '../../ports/eventStore.js';
import { deepFreeze } from '../frozen.js';
import { CatchUpSubscription } from './catchUp.js';
import { assertSerializedFits } from './limits.js';
import { type AppendOutcome, type AppendToCommit, type LogWriter, inPlaceLogWriter, threadLogWriter, openLog } from './sqliteCommit.js';
import { type Metrics, noMetrics } from '../../ports/metrics.js';

interface PendingAppend {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedRevision;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

type SerializedAppend = PendingAppend & AppendToCommit;

/** A row of the log as the reads select it, raw (an array: no object with named fields made per row). */
export type EventRow = [position: number, streamId: string, revision: number, id: string, type: string, data: string, metadata: string, schemaVersion: number];

const COLUMNS = 'position, stream_id, revision, id, type, data, metadata, schema_version';

const PAGE = 1000;
/** How many of the last committed events are kept for subscribers. */
const TAIL = 4 * PAGE;
/**
 * A subscriber's page read from disk (a catch-up: a rebuild, a follower starting behind). Small, so that what a page
 * makes (its rows, events, opened fields, a rebuild's documents and writes) dies young: at 1,000 events much of it
 * outlived V8's young generation and was copied and collected again in the old (measured side by side on a 200,000-event
 * log, CPU per rebuild 0.84×, per read 0.9×; 4,000 events cost 1.8× a read's CPU).
 */
export const CATCH_UP_PAGE = PAGE / 4;

export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private queue: PendingAppend[] = [];
  private flushScheduled = false;
  private readonly writer: LogWriter;
  /** The group commit under way, if any: the next waits for it. */
  private committing: Promise<void> | null = null;
  private metrics: Pick<Metrics, 'commit'> = noMetrics;
  private readonly subscriptions = new Set<CatchUpSubscription>();
  private closed = false;
  private readonly statements;
  /** By stream: a revision no event of the stream is beyond (its last one, once appended or read to the end). */
  private readonly ends = new LRUCache<string, number>({ max: 100_000 });
  /** The last events committed, at consecutive positions. */
  private tail: RecordedEvent[] = [];

  constructor(file: string) {
    if (file !== ':memory:') createPrivateDatabaseFile(file);
    this.db = new Database(file);
    openLog(this.db);
    this.writer = file === ':memory:' ? inPlaceLogWriter(this.db) : threadLogWriter(file);
    this.statements = {
      forwards: this.db
        .prepare<[string, number, number], EventRow>(`SELECT ${COLUMNS} FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision ASC LIMIT ?`)
        .raw(),
      backwards: this.db
        .prepare<[string, number, number], EventRow>(`SELECT ${COLUMNS} FROM events WHERE stream_id = ? AND revision <= ? ORDER BY revision DESC LIMIT ?`)
        .raw(),
      allForwards: forwardsFrom(this.db),
      allBackwards: this.db.prepare<[number, number], EventRow>(`SELECT ${COLUMNS} FROM events WHERE position <= ? ORDER BY position DESC LIMIT ?`).raw(),
      head: this.db.prepare<[], { position: number | null }>('SELECT MAX(position) AS position FROM events'),
    };
  }

  appendToStream(streamId: string, events: NewEvent[], options: { expectedRevision?: ExpectedRevision } = {}): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    if (events.length === 0) return Promise.reject(new Error('append needs at least one event'));
    return new Promise((resolve, reject) => {
      this.queue.push({ streamId, events, expected: options.expectedRevision ?? 'any', resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Sends the queued appends to the writer as one group commit, unless one is under way (its end sends them). */
  private flush(): void {
    this.flushScheduled = false;
    if (this.committing) return;
    const batch = this.serialize(this.queue);
    this.queue = [];
    if (batch.length === 0) return;
    const started = performance.now();
    this.committing = this.writer.commit(batch.map(({ streamId, expected, rows }) => ({ streamId, expected, rows }))).then(
      (outcomes) => {
        this.metrics.commit(
          batch.length,
          batch.reduce((sum, pending) => sum + pending.rows.length, 0),
          (performance.now() - started) / 1000,
        );
        this.settle(batch, outcomes);
      },
      (error: unknown) => batch.forEach((pending) => pending.reject(error)),
    );
    void this.committing.then(() => {
      this.committing = null;
      for (const subscription of this.subscriptions) subscription.wake();
      if (this.queue.length > 0) this.flush();
    });
  }

  /**
   * The appends whose events serialize; one that does not (a cycle, a bigint, a stack overflow), or makes an event larger
   * than the bus carries (limits.ts), is refused alone.
   */
  private serialize(queue: PendingAppend[]): SerializedAppend[] {
    const serialized: SerializedAppend[] = [];
    for (const pending of queue) {
      try {
        const rows = pending.events.map((event) => {
          const [data, metadata] = [JSON.stringify(event.data), JSON.stringify(event.metadata)];
          assertSerializedFits(event.type, data, metadata);
          return { id: event.id ?? randomUUID(), type: event.type, data, metadata, schemaVersion: event.schemaVersion ?? 1 };
        });
        serialized.push({ ...pending, rows });
      } catch (error) {
        pending.reject(error);
      }
    }
    return serialized;
  }

  /** Where group commits are reported (batch sizes, time with the fsync). */
  observe(metrics: Pick<Metrics, 'commit'>): void {
    this.metrics = metrics;
  }

  /** Settles each append of a committed batch, keeping what its readers will want: stream ends, and the events in the tail. */
  private settle(batch: SerializedAppend[], outcomes: AppendOutcome[]): void {
    const recorded: RecordedEvent[] = [];
    batch.forEach((pending, i) => {
      const outcome = outcomes[i];
      if ('error' in outcome) return pending.reject(outcome.error);
      if ('wrongExpected' in outcome) {
        this.ends.delete(pending.streamId);
        const actual = outcome.wrongExpected === null ? ('no_stream' as const) : BigInt(outcome.wrongExpected);
        return pending.reject(new WrongExpectedVersionError(pending.streamId, pending.expected, actual));
      }
      pending.rows.forEach((row, r) => {
        const position = BigInt(outcome.positions[r]);
        const { data, metadata } = pending.events[r];
        const revision = BigInt(outcome.revision - pending.rows.length + 1 + r);
        recorded.push({
          id: row.id,
          streamId: pending.streamId,
          revision,
          position: { commit: position, prepare: position },
          type: row.type,
          data,
          metadata,
          schemaVersion: row.schemaVersion,
        });
      });
      this.ends.set(pending.streamId, outcome.revision);
      const position = BigInt(outcome.positions[outcome.positions.length - 1]);
      pending.resolve({ nextExpectedRevision: BigInt(outcome.revision), position: { commit: position, prepare: position } });
    });
    // In position order: a batch's appends may have been committed one by one after a failure, still in order.
    this.remember(recorded);
  }

  /** Keeps the events just committed at the end of the tail (a gap in positions starts it anew), at most TAIL of them. */
  private remember(events: RecordedEvent[]): void {
    if (events.length === 0) return;
    const last = this.tail[this.tail.length - 1];
    if (last && events[0].position.commit !== last.position.commit + 1n) this.tail = [];
    for (const event of events) this.tail.push(deepFreeze(event));
    if (this.tail.length > TAIL) this.tail = this.tail.slice(-TAIL);
  }

  /** A subscriber's next page: the events after `after`, from the tail when it holds them. */
  private readAfter(after: Position | null): RecordedEvent[] {
    const from = after ? after.commit + 1n : 0n;
    const first = this.tail[0];
    if (first && from >= first.position.commit) {
      const start = Number(from - first.position.commit);
      return this.tail.slice(start, start + PAGE);
    }
    return this.readAllSync({ fromPosition: { commit: from, prepare: from }, maxCount: CATCH_UP_PAGE });
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const maxCount = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    if (options.direction === 'backwards') {
      return this.statements.backwards
        .all(streamId, options.fromRevision === undefined ? Number.MAX_SAFE_INTEGER : Number(options.fromRevision), maxCount)
        .map(toRecorded);
    }
    const from = Number(options.fromRevision ?? 0n);
    if (from > (this.ends.get(streamId) ?? Infinity)) return [];
    const rows = this.statements.forwards.all(streamId, from, maxCount);
    if (rows.length < maxCount) this.ends.set(streamId, rows.length ? rows[rows.length - 1][2] : from - 1);
    return rows.map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.readAllSync(options);
  }

  private readAllSync(options: ReadAllOptions): RecordedEvent[] {
    const maxCount = options.maxCount ?? PAGE;
    const rows =
      options.direction === 'backwards'
        ? this.statements.allBackwards.all(options.fromPosition ? Number(options.fromPosition.commit) : Number.MAX_SAFE_INTEGER, maxCount)
        : this.statements.allForwards.all(options.fromPosition ? Number(options.fromPosition.commit) : 0, maxCount);
    return rows.map(toRecorded);
  }

  async headPosition(): Promise<Position | null> {
    const head = this.statements.head.get()?.position ?? null;
    return head === null ? null : { commit: BigInt(head), prepare: BigInt(head) };
  }

  subscribeToAll(options: SubscribeToAllOptions, handler: BatchHandler, onError?: (error: unknown) => void): Subscription {
    const subscription = new CatchUpSubscription({
      from: options.fromPosition ?? null,
      excludeTypePrefix: options.excludeTypePrefix,
      // Positions in this log are dense: the next page starts right after the last position seen.
      readPage: async (after) => this.readAfter(after),
      head: () => this.headPosition(),
      handler,
      onError,
      onStop: () => this.subscriptions.delete(subscription),
    });
    this.subscriptions.add(subscription);
    subscription.start();
    return subscription;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    // What was appended before the close is committed (or refused) before the connections close.
    while (this.committing || this.queue.length > 0) {
      this.flush();
      await this.committing;
    }
    await this.writer.close();
    this.db.close();
  }
}

/** The log's rows from a position (inclusive), in order, raw: this store's and the rebuild's read-ahead thread's read. */
export function forwardsFrom(db: Database.Database): Database.Statement<[number, number], EventRow> {
  return db.prepare<[number, number], EventRow>(`SELECT ${COLUMNS} FROM events WHERE position >= ? ORDER BY position ASC LIMIT ?`).raw();
}

export function toRecorded([position, streamId, revision, id, type, data, metadata, schemaVersion]: EventRow): RecordedEvent {
  const at = BigInt(position);
  return {
    id,
    streamId,
    revision: BigInt(revision),
    position: { commit: at, prepare: at },
    type,
    data: JSON.parse(data),
    metadata: JSON.parse(metadata),
    schemaVersion,
  };
}
