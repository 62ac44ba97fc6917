// PostgreSQL adapter of the event store port: the shared log of distributed mode on an engine that runs in CI.
// One row per event in `event_log`, with the transaction that wrote it (`pg_current_xact_id()`, xid8) and a global
// sequence. A sequence alone cannot order the log for its readers: it is handed out before the transaction commits,
// so an append that commits late lands behind a position a reader has already passed, and would never be read.
// The log is therefore read in (transaction id, sequence) order, and only below the oldest transaction still running
// (`pg_snapshot_xmin(pg_current_snapshot())`, leaving out other databases' transactions): whatever commits later has
// a transaction id at or above that line, so after everything already read. A Position is {commit: transaction id,
// prepare: sequence}, which comparePositions orders that way. Subscribers read the same way, woken by a NOTIFY each
// process sends after its appends commit (coalesced, outside the append's transaction: a NOTIFY inside it would
// serialise every writer at commit), by a retry while committed events wait behind a running transaction, and by a
// poll should a notification be lost.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { withDeadline } from '../engines.js';
import { createOnce } from '../postgres.js';
import { outageOf } from '../../ports/outages.js';
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
  START,
  type SubscribeToAllOptions,
  type Subscription,
  WrongExpectedVersionError,
} from '../../ports/eventStore.js';
import { CatchUpSubscription } from './catchUp.js';
import { assertSerializedFits } from './limits.js';

/** As the embedded log: readAll without a count returns one page, and a subscriber reads a page at a time. */
const PAGE = 1000;
/** How often subscribers look for events anyway, should a notification have been lost (or its sender died). */
const POLL_MS = 1000;
/** The first retry while committed events wait behind a running transaction; it doubles up to POLL_MS. */
const HELD_BACK_MS = 5;
/** How long a subscriber waits before reading again while the server cannot be reached: doubling, at most 2 s. */
const OUTAGE_RETRY_MS = { first: 100, most: 2000 } as const;
/** The channel appends are announced on (per database). */
export const CHANNEL = 'event_log_appended';

// Data and metadata are kept as the JSON text appended, as the embedded log keeps them: JSONB would refuse text
// JSON.stringify makes (\u0000, a lone surrogate), reorder keys and cost a parse on every append and read.
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS event_log (
    transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
    position bigint GENERATED ALWAYS AS IDENTITY,
    stream_id text NOT NULL,
    revision bigint NOT NULL,
    id text NOT NULL,
    type text NOT NULL,
    data text NOT NULL,
    metadata text NOT NULL,
    schema_version integer NOT NULL,
    PRIMARY KEY (transaction_id, position),
    CONSTRAINT event_log_stream_revision UNIQUE (stream_id, revision)
  )`;

/**
 * The first transaction id whose events may still commit: the oldest transaction still running in this database, or
 * the first not yet started (the snapshot's xmin and xmax, pg_snapshot_xmin when every running transaction is this
 * database's). Transaction ids are the server's, shared by its databases, but a transaction of another database
 * (a CREATE DATABASE, another application's batch) can write no row here: those are left out, so they do not hold
 * this log's readers back. Only a transaction known to be another database's is left out; one that ended meanwhile
 * still counts, which errs on the safe side. An InitPlan, evaluated once per read.
 */
const HORIZON = `(
  SELECT coalesce(min(running), pg_snapshot_xmax(pg_current_snapshot()))
    FROM pg_snapshot_xip(pg_current_snapshot()) AS running
   WHERE running::text::bigint % 4294967296 NOT IN (
     SELECT backend_xid::text::bigint FROM pg_stat_get_activity(NULL)
      WHERE backend_xid IS NOT NULL AND datid <> (SELECT oid FROM pg_database WHERE datname = current_database())))`;
/** Settled: once read, no event can commit before it. */
const SETTLED = `transaction_id < ${HORIZON}`;
// The transaction id is handed to JavaScript as text under a name of its own: an output column named transaction_id
// would be what ORDER BY transaction_id sorts, as text, and read 1000 before 999 once the server's ids gain a digit.
const COLUMNS = 'transaction_id::text AS commit_id, position, stream_id, revision, id, type, data, metadata, schema_version';

/**
 * An append in one statement: the stream's last revision, the expected-revision check, and the rows, numbered on from
 * it, in the order given. It reports the stream's revision before it and, when it appended, the last row's revision,
 * position and transaction. Two appends racing to a revision meet at the unique (stream, revision): the later waits
 * for the earlier's commit and fails with a unique violation.
 */
const APPEND = `
  WITH head AS (
    SELECT max(revision) AS revision FROM event_log WHERE stream_id = $1
  ), allowed AS (
    SELECT coalesce(revision, -1) AS revision FROM head
     WHERE CASE $2::text
       WHEN 'any' THEN true
       WHEN 'no_stream' THEN revision IS NULL
       WHEN 'stream_exists' THEN revision IS NOT NULL
       ELSE revision = $3::bigint
     END
  ), appended AS (
    INSERT INTO event_log (stream_id, revision, id, type, data, metadata, schema_version)
    SELECT $1, allowed.revision + e.n, e.id, e.type, e.data, e.metadata, e.schema_version
      FROM allowed, unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::integer[]) WITH ORDINALITY AS e(id, type, data, metadata, schema_version, n)
     ORDER BY e.n
    RETURNING revision, position, transaction_id
  )
  SELECT (SELECT revision FROM head) AS before,
         (SELECT max(revision) FROM appended) AS revision,
         (SELECT max(position) FROM appended) AS position,
         (SELECT transaction_id::text FROM appended LIMIT 1) AS transaction_id`;

interface AppendRow {
  before: string | null;
  revision: string | null;
  position: string | null;
  transaction_id: string | null;
}

interface EventRow {
  commit_id: string;
  position: string;
  stream_id: string;
  revision: string;
  id: string;
  type: string;
  data: string;
  metadata: string;
  schema_version: number;
}

/**
 * The append statement for these events (serialized and checked against the bus's limits first): what the adapter
 * runs, and what a test runs on a connection of its own to hold an append's transaction open.
 */
export function appendStatement(streamId: string, events: NewEvent[], expected: ExpectedRevision): pg.QueryConfig {
  const columns = { id: [] as string[], type: [] as string[], data: [] as string[], metadata: [] as string[], schemaVersion: [] as number[] };
  for (const event of events) {
    const [data, metadata] = [JSON.stringify(event.data), JSON.stringify(event.metadata)];
    assertSerializedFits(event.type, data, metadata);
    columns.id.push(event.id ?? randomUUID());
    columns.type.push(event.type);
    columns.data.push(data);
    columns.metadata.push(metadata);
    columns.schemaVersion.push(event.schemaVersion ?? 1);
  }
  const [kind, revision] = typeof expected === 'bigint' ? ['revision', String(expected)] : [expected, null];
  return {
    name: 'event_log_append',
    text: APPEND,
    values: [streamId, kind, revision, columns.id, columns.type, columns.data, columns.metadata, columns.schemaVersion],
  };
}

export interface PostgresEventStoreOptions {
  /** How often subscribers poll besides being notified (tests turn it off to see notifications alone). */
  pollMs?: number;
  /** The most connections the pool opens (pg's 10 when unset): the processes sharing a server must fit its max_connections. */
  poolSize?: number;
}

export class PostgresEventStore implements EventStore {
  private readonly subscriptions = new Set<CatchUpSubscription>();
  /** The connection that LISTENs for appends, once a subscription wants it; null while it waits to reconnect. */
  private listener: pg.Client | null = null;
  private listening: Promise<void> | null = null;
  private poller: NodeJS.Timeout | null = null;
  /** The NOTIFY under way, and whether appends committed since it was sent (one more then follows). */
  private announcing: Promise<void> | null = null;
  private announceAgain = false;
  private readonly appending = new Set<Promise<unknown>>();
  private closed = false;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    private readonly pollMs: number,
  ) {}

  /** Connects, creates the schema if it is not there (idempotent), and proves the server answers within the deadline. */
  static async connect(url: string, options: PostgresEventStoreOptions & { timeoutMs?: number } = {}): Promise<PostgresEventStore> {
    const timeoutMs = options.timeoutMs ?? 10_000;
    // No connectionTimeoutMillis: pg-pool applies it to waiting for a busy pool's connection too, which would fail
    // appends under load; the deadline below bounds the start (and reports a malformed URL, parsed on connecting).
    const pool = new pg.Pool({ connectionString: url, max: options.poolSize });
    // An idle connection the server drops is reported here; the pool replaces it, and the next query fails if it must.
    pool.on('error', () => {});
    try {
      await withDeadline(createOnce(pool, 'event_log', SCHEMA), timeoutMs, 'PostgreSQL', url);
    } catch (error) {
      // Not awaited: a connection still trying to reach the server would hold the failure up as long as it tries.
      void pool.end().catch(() => {});
      throw error;
    }
    return new PostgresEventStore(pool, url, options.pollMs ?? POLL_MS);
  }

  async appendToStream(streamId: string, events: NewEvent[], options: { expectedRevision?: ExpectedRevision } = {}): Promise<AppendResult> {
    if (this.closed) throw new Error('event store is closed');
    if (events.length === 0) throw new Error('append needs at least one event');
    const expected = options.expectedRevision ?? 'any';
    const statement = appendStatement(streamId, events, expected);
    const appended = this.append(streamId, statement, expected);
    this.appending.add(appended);
    try {
      return await appended;
    } finally {
      this.appending.delete(appended);
    }
  }

  private async append(streamId: string, statement: pg.QueryConfig, expected: ExpectedRevision): Promise<AppendResult> {
    for (;;) {
      let row: AppendRow;
      try {
        [row] = (await this.pool.query<AppendRow>(statement)).rows;
      } catch (error) {
        if (!isRevisionTaken(error)) throw error;
        // Another append took the revision first. 'any' and 'stream_exists' still hold: append after it.
        if (expected === 'any' || expected === 'stream_exists') continue;
        const current = await this.lastRevision(streamId);
        throw new WrongExpectedVersionError(streamId, expected, current ?? 'no_stream');
      }
      if (row.revision === null || row.position === null || row.transaction_id === null)
        throw new WrongExpectedVersionError(streamId, expected, row.before === null ? 'no_stream' : BigInt(row.before));
      // This process's subscribers need not wait for the notification to come back.
      this.wakeAll();
      this.announce();
      return {
        nextExpectedRevision: BigInt(row.revision),
        position: { commit: BigInt(row.transaction_id), prepare: BigInt(row.position) },
      };
    }
  }

  private async lastRevision(streamId: string): Promise<bigint | null> {
    const { rows } = await this.pool.query<{ revision: string | null }>('SELECT max(revision) AS revision FROM event_log WHERE stream_id = $1', [streamId]);
    return rows[0].revision === null ? null : BigInt(rows[0].revision);
  }

  /** Tells every process's subscribers that appends committed: one NOTIFY at a time, one more for all that came meanwhile. */
  private announce(): void {
    if (this.announcing) {
      this.announceAgain = true;
      return;
    }
    // A lost notification costs a subscriber at most a poll, so its transaction does not wait for the disk at commit
    // (a NOTIFY takes a transaction id, and would otherwise cost a second WAL flush after the append's).
    this.announcing = this.pool
      .query({ name: 'event_log_announce', text: `SELECT set_config('synchronous_commit', 'off', true), pg_notify('${CHANNEL}', '')` })
      .then(
        () => {},
        () => {},
      )
      .finally(() => {
        this.announcing = null;
        if (this.announceAgain && !this.closed) {
          this.announceAgain = false;
          this.announce();
        }
      });
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    // A stream is read as committed (not only below the running transactions): a command must see the stream's end.
    const backwards = options.direction === 'backwards';
    const { rows } = await this.pool.query<EventRow>({
      name: backwards ? 'event_log_stream_backwards' : 'event_log_stream_forwards',
      text: backwards
        ? `SELECT ${COLUMNS} FROM event_log WHERE stream_id = $1 AND ($2::bigint IS NULL OR revision <= $2) ORDER BY revision DESC LIMIT $3`
        : `SELECT ${COLUMNS} FROM event_log WHERE stream_id = $1 AND revision >= coalesce($2::bigint, 0) ORDER BY revision LIMIT $3`,
      values: [streamId, options.fromRevision === undefined ? null : String(options.fromRevision), options.maxCount ?? null],
    });
    return rows.map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const maxCount = options.maxCount ?? PAGE;
    if (options.direction === 'backwards') {
      const from = options.fromPosition;
      const { rows } = await this.pool.query<EventRow>({
        name: 'event_log_all_backwards',
        text: `SELECT ${COLUMNS} FROM event_log
                WHERE ($1::text IS NULL OR (transaction_id, position) <= ($1::text::xid8, $2::bigint)) AND ${SETTLED}
                ORDER BY transaction_id DESC, position DESC LIMIT $3`,
        values: [from ? String(from.commit) : null, from ? String(from.prepare) : null, maxCount],
      });
      return rows.map(toRecorded);
    }
    return this.readForwards(options.fromPosition ?? START, true, maxCount);
  }

  /** The settled events from `from` on (inclusive or not), in log order. */
  private async readForwards(from: Position, inclusive: boolean, maxCount: number): Promise<RecordedEvent[]> {
    const { rows } = await this.pool.query<EventRow>({
      name: inclusive ? 'event_log_all_from' : 'event_log_all_after',
      text: `SELECT ${COLUMNS} FROM event_log
              WHERE (transaction_id, position) ${inclusive ? '>=' : '>'} ($1::text::xid8, $2::bigint) AND ${SETTLED}
              ORDER BY transaction_id, position LIMIT $3`,
      values: [String(from.commit), String(from.prepare), maxCount],
    });
    return rows.map(toRecorded);
  }

  /**
   * Whether events committed after `after` though a read found none settled: they wait behind a transaction still
   * running, or settled since that read. Either way the reader must look again soon.
   */
  private async heldBack(after: Position): Promise<boolean> {
    const { rows } = await this.pool.query<{ held: boolean }>({
      name: 'event_log_held_back',
      text: 'SELECT EXISTS (SELECT 1 FROM event_log WHERE (transaction_id, position) > ($1::text::xid8, $2::bigint)) AS held',
      values: [String(after.commit), String(after.prepare)],
    });
    return rows[0].held;
  }

  /** The last settled event's position: what a subscriber can have delivered by now. */
  async headPosition(): Promise<Position | null> {
    const { rows } = await this.pool.query<{ commit_id: string; position: string }>({
      name: 'event_log_head',
      text: `SELECT transaction_id::text AS commit_id, position FROM event_log WHERE ${SETTLED} ORDER BY transaction_id DESC, position DESC LIMIT 1`,
    });
    return rows.length === 0 ? null : { commit: BigInt(rows[0].commit_id), prepare: BigInt(rows[0].position) };
  }

  subscribeToAll(options: SubscribeToAllOptions, handler: BatchHandler, onError?: (error: unknown) => void): Subscription {
    let retryMs = HELD_BACK_MS;
    let retry: NodeJS.Timeout | undefined;
    const subscription = new CatchUpSubscription({
      from: options.fromPosition ?? null,
      excludeTypePrefix: options.excludeTypePrefix,
      readPage: async (after) => {
        const page = await this.readForwards(after ?? START, false, PAGE);
        if (page.length > 0) {
          retryMs = HELD_BACK_MS;
        } else if (await this.heldBack(after ?? START)) {
          // What holds them back may be no append (nothing announces its end): look again, less and less often.
          clearTimeout(retry);
          retry = setTimeout(() => subscription.wake(), retryMs).unref();
          retryMs = Math.min(retryMs * 2, this.pollMs);
        }
        return page;
      },
      head: () => this.headPosition(),
      handler,
      onError,
      // The server restarting (or a connection it dropped, or none to spare) is waited out, and the subscription
      // reads on from its last position: a projector or relay rides out an outage without being restarted. A batch
      // whose handler failed is handed on again (the projection runner then reads its checkpoints first, should the
      // write have committed as its connection dropped; the relay's consumers drop a republished copy by position).
      retryAfter: (error, attempt) => (outageOf(error) && !this.closed ? Math.min(OUTAGE_RETRY_MS.first * 2 ** attempt, OUTAGE_RETRY_MS.most) : null),
      onStop: () => {
        clearTimeout(retry);
        this.subscriptions.delete(subscription);
      },
    });
    this.subscriptions.add(subscription);
    this.listen();
    subscription.start();
    return subscription;
  }

  private wakeAll(): void {
    for (const subscription of this.subscriptions) subscription.wake();
  }

  /** Starts the LISTEN connection and the poll, once: a process that only appends needs neither. */
  private listen(): void {
    if (this.poller || this.closed) return;
    this.poller = setInterval(() => this.wakeAll(), this.pollMs).unref();
    this.listening = this.connectListener();
  }

  private async connectListener(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    this.listener = client;
    client.on('notification', () => this.wakeAll());
    // A dropped connection is replaced after a poll's time; what was announced meanwhile is read on reconnecting.
    client.on('error', () => this.dropListener(client));
    client.on('end', () => this.dropListener(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch {
      this.dropListener(client);
      return;
    }
    this.wakeAll();
  }

  /** Ends a listener that failed, once, and connects another after a poll's time. */
  private dropListener(client: pg.Client): void {
    if (this.listener !== client) return;
    this.listener = null;
    void client.end().catch(() => {});
    if (this.closed) return;
    setTimeout(() => {
      if (!this.closed) this.listening = this.connectListener();
    }, this.pollMs).unref();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    if (this.poller) clearInterval(this.poller);
    await this.listening;
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => {});
    // What was appended before the close is committed (or refused), and announced, before the pool ends.
    await Promise.allSettled([...this.appending]);
    await this.announcing;
    await this.pool.end();
  }
}

/** The unique (stream, revision) refused a row: another append took that revision first. */
function isRevisionTaken(error: unknown): boolean {
  const { code, constraint } = error as { code?: string; constraint?: string };
  return code === '23505' && constraint === 'event_log_stream_revision';
}

function toRecorded(row: EventRow): RecordedEvent {
  return {
    id: row.id,
    streamId: row.stream_id,
    revision: BigInt(row.revision),
    position: { commit: BigInt(row.commit_id), prepare: BigInt(row.position) },
    type: row.type,
    data: JSON.parse(row.data),
    metadata: JSON.parse(row.metadata),
    schemaVersion: row.schema_version,
  };
}
