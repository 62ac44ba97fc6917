// Embedded event store: an append-only SQLite log in WAL mode with synchronous=FULL, so a commit is on disk
// (fsync'd) before an append resolves. Appends that arrive while a commit is under way are queued and written
// together in the next transaction: one fsync serves them all (group commit).
// It is the log's one writer (one process per DATA_DIR), so it knows where the streams it has written or read end:
// a read from past a stream's end, the command handler's top-up of a cached aggregate on every load, needs no query.
// The events it committed last are kept parsed (and frozen): its subscribers (projectors, gateway, delivery) read
// them from memory, parsed once for all, instead of each querying and parsing every new event.
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
import { type Metrics, noMetrics } from '../../ports/metrics.js';

interface PendingAppend {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedRevision;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/** An append whose events are already JSON text, so that nothing inside the transaction can fail for one append's data. */
interface SerializedAppend extends PendingAppend {
  rows: { id: string; type: string; data: string; metadata: string; schemaVersion: number }[];
}

interface EventRow {
  position: number;
  stream_id: string;
  revision: number;
  id: string;
  type: string;
  data: string;
  metadata: string;
  schema_version: number;
}

const PAGE = 1000;
/** How many of the last committed events are kept for subscribers. */
const TAIL = 4 * PAGE;

export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private queue: PendingAppend[] = [];
  private flushScheduled = false;
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
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(`
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
    this.statements = {
      streamRevision: this.db.prepare<[string], { revision: number | null }>('SELECT MAX(revision) AS revision FROM events WHERE stream_id = ?'),
      insert: this.db.prepare(
        'INSERT INTO events (stream_id, revision, id, type, data, metadata, schema_version) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      forwards: this.db.prepare<[string, number, number], EventRow>(
        'SELECT * FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision ASC LIMIT ?',
      ),
      backwards: this.db.prepare<[string, number, number], EventRow>(
        'SELECT * FROM events WHERE stream_id = ? AND revision <= ? ORDER BY revision DESC LIMIT ?',
      ),
      allForwards: this.db.prepare<[number, number], EventRow>('SELECT * FROM events WHERE position >= ? ORDER BY position ASC LIMIT ?'),
      allBackwards: this.db.prepare<[number, number], EventRow>('SELECT * FROM events WHERE position <= ? ORDER BY position DESC LIMIT ?'),
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

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.serialize(this.queue);
    this.queue = [];
    if (batch.length === 0) return;
    try {
      this.commit(batch);
    } catch {
      // Something in the batch failed the whole transaction: commit each append alone, so only the faulty one fails.
      for (const pending of batch) {
        try {
          this.commit([pending]);
        } catch (error) {
          pending.reject(error);
        }
      }
    }
    for (const subscription of this.subscriptions) subscription.wake();
  }

  /** The appends whose events serialize; one that does not (a cycle, a bigint, a stack overflow) is refused alone. */
  private serialize(queue: PendingAppend[]): SerializedAppend[] {
    const serialized: SerializedAppend[] = [];
    for (const pending of queue) {
      try {
        const rows = pending.events.map((event) => ({
          id: event.id ?? randomUUID(),
          type: event.type,
          data: JSON.stringify(event.data),
          metadata: JSON.stringify(event.metadata),
          schemaVersion: event.schemaVersion ?? 1,
        }));
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

  /** One transaction, one fsync, for the whole batch; throws, having settled nothing, if the transaction fails. */
  private commit(batch: SerializedAppend[]): void {
    const started = performance.now();
    const recorded: RecordedEvent[] = [];
    const outcomes = this.db.transaction(() => batch.map((pending) => this.appendInTransaction(pending, recorded)))();
    this.remember(recorded);
    this.metrics.commit(batch.length, batch.reduce((sum, pending) => sum + pending.rows.length, 0), (performance.now() - started) / 1000);
    batch.forEach((pending, i) => {
      const outcome = outcomes[i];
      if (outcome instanceof WrongExpectedVersionError) {
        this.ends.delete(pending.streamId);
        pending.reject(outcome);
      } else {
        this.ends.set(pending.streamId, Number(outcome.nextExpectedRevision));
        pending.resolve(outcome);
      }
    });
  }

  /** Appends to `recorded` each event as a reader of the log would get it, for the tail once the transaction commits. */
  private appendInTransaction({ streamId, rows, expected }: SerializedAppend, recorded: RecordedEvent[]): AppendResult | WrongExpectedVersionError {
    const current = this.statements.streamRevision.get(streamId)?.revision ?? null;
    const actual = current === null ? ('no_stream' as const) : BigInt(current);
    const ok =
      expected === 'any' ||
      (expected === 'no_stream' && current === null) ||
      (expected === 'stream_exists' && current !== null) ||
      (typeof expected === 'bigint' && current !== null && BigInt(current) === expected);
    if (!ok) return new WrongExpectedVersionError(streamId, expected, actual);
    let revision = current ?? -1;
    let position = 0;
    for (const row of rows) {
      revision += 1;
      const info = this.statements.insert.run(streamId, revision, row.id, row.type, row.data, row.metadata, row.schemaVersion);
      position = Number(info.lastInsertRowid);
      recorded.push(toRecorded({ position, stream_id: streamId, revision, id: row.id, type: row.type, data: row.data, metadata: row.metadata, schema_version: row.schemaVersion }));
    }
    return { nextExpectedRevision: BigInt(revision), position: { commit: BigInt(position), prepare: BigInt(position) } };
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
    return this.readAllSync({ fromPosition: { commit: from, prepare: from }, maxCount: PAGE });
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const maxCount = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    if (options.direction === 'backwards') {
      return this.statements.backwards.all(streamId, options.fromRevision === undefined ? Number.MAX_SAFE_INTEGER : Number(options.fromRevision), maxCount).map(toRecorded);
    }
    const from = Number(options.fromRevision ?? 0n);
    if (from > (this.ends.get(streamId) ?? Infinity)) return [];
    const rows = this.statements.forwards.all(streamId, from, maxCount);
    if (rows.length < maxCount) this.ends.set(streamId, rows.length ? rows[rows.length - 1].revision : from - 1);
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
    if (this.flushScheduled || this.queue.length > 0) this.flush();
    this.db.close();
  }
}

function toRecorded(row: EventRow): RecordedEvent {
  const position = BigInt(row.position);
  return {
    id: row.id,
    streamId: row.stream_id,
    revision: BigInt(row.revision),
    position: { commit: position, prepare: position },
    type: row.type,
    data: JSON.parse(row.data),
    metadata: JSON.parse(row.metadata),
    schemaVersion: row.schema_version,
  };
}
