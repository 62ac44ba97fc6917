// EventStoreDB adapter of the event store port. The port is shaped after EventStoreDB, so most calls map one to one;
// what this file adds: event metadata travels in ESDB's metadata (correlation and causation under the $-names the
// server's own projections read), system events ($-types) are left out everywhere (a server-side filter for
// subscriptions), subscriptions hand events over in batches, and the client's errors become the port's.
import {
  ANY,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  type ResolvedEvent,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError as EsdbWrongExpectedVersionError,
  eventTypeFilter,
  jsonEvent,
} from '@eventstore/db-client';
import { EngineUnreachableError, withDeadline } from '../engines.js';
import {
  type AppendResult,
  type BatchHandler,
  type EventMetadata,
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
  comparePositions,
} from '../../ports/eventStore.js';
import { MAX_APPEND_BYTES, assertAppendFits } from './limits.js';
import { PositionWaiters } from './waiters.js';

/** As the embedded adapter: readAll without a count returns one page. */
const PAGE = 1000;
/** The most events one subscription batch carries (one read-store write for projectors). */
export const BATCH = 500;

/** The metadata an event carries in EventStoreDB. */
export interface EsdbMetadata {
  actorId: string | null;
  reason?: string | null;
  $correlationId?: string;
  $causationId?: string;
  createdAt: string;
  schemaVersion: number;
}

export function toEsdbEvent(event: NewEvent) {
  const { correlationId, causationId, ...rest } = event.metadata;
  const metadata: EsdbMetadata = { ...rest, schemaVersion: event.schemaVersion ?? 1 };
  if (correlationId !== undefined) metadata.$correlationId = correlationId;
  if (causationId !== undefined) metadata.$causationId = causationId;
  return jsonEvent({ id: event.id, type: event.type, data: event.data as Record<string, unknown>, metadata });
}

/** The recorded event of a resolved one; null for what the port never shows (links, non-JSON system records). */
export function fromEsdbEvent(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | null {
  const event = resolved.event;
  if (!event || !event.isJson || event.type.startsWith('$')) return null;
  const { $correlationId, $causationId, schemaVersion, ...rest } = (event.metadata ?? {}) as Partial<EsdbMetadata>;
  const metadata = { ...rest } as EventMetadata;
  if ($correlationId !== undefined) metadata.correlationId = $correlationId;
  if ($causationId !== undefined) metadata.causationId = $causationId;
  const commit = resolved.commitPosition ?? 0n;
  return {
    id: event.id,
    streamId: event.streamId,
    revision: event.revision,
    position: event.position ?? { commit, prepare: commit },
    type: event.type,
    data: event.data,
    metadata,
    schemaVersion: schemaVersion ?? 1,
  };
}

export function toEsdbExpectedRevision(expected: ExpectedRevision) {
  return expected === 'any' ? ANY : expected === 'no_stream' ? NO_STREAM : expected === 'stream_exists' ? STREAM_EXISTS : expected;
}

/** The port's error for the client's, with what the caller asked for (the client reports its own view of it). */
export function fromEsdbError(error: unknown, streamId: string, expected: ExpectedRevision): unknown {
  if (!(error instanceof EsdbWrongExpectedVersionError)) return error;
  const actual = error.actualVersion;
  return new WrongExpectedVersionError(streamId, expected, typeof actual === 'bigint' ? actual : 'no_stream');
}

/** The server-side filter's regex: every type but system events ($…) and the excluded prefix. */
export function includedTypesRegex(excludeTypePrefix?: string): string {
  const excluded = ['\\$', ...(excludeTypePrefix ? [excludeTypePrefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')] : [])];
  return `^(?!${excluded.join('|')})`;
}

export class EsdbEventStore implements EventStore {
  private readonly subscriptions = new Set<EsdbSubscription>();

  private constructor(private readonly client: EventStoreDBClient) {}

  /** Connects and proves the server answers, so a wrong ESDB_URL fails at start rather than on the first request. */
  static async connect(url: string, timeoutMs = 10_000): Promise<EsdbEventStore> {
    let client: EventStoreDBClient;
    try {
      client = EventStoreDBClient.connectionString(url);
    } catch (error) {
      throw new EngineUnreachableError('EventStoreDB', url, error);
    }
    const store = new EsdbEventStore(client);
    try {
      await withDeadline(store.headPosition(), timeoutMs, 'EventStoreDB', url);
    } catch (error) {
      await client.dispose().catch(() => {});
      throw error;
    }
    return store;
  }

  async appendToStream(streamId: string, events: NewEvent[], options: { expectedRevision?: ExpectedRevision } = {}): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const expected = options.expectedRevision ?? 'any';
    // The server would refuse it as an error of its own (a 5xx); refused here, it is the request's 413.
    assertAppendFits(events, MAX_APPEND_BYTES);
    try {
      const result = await this.client.appendToStream(streamId, events.map(toEsdbEvent), { expectedRevision: toEsdbExpectedRevision(expected) });
      if (!result.position) throw new Error('EventStoreDB did not report the position of an append (server older than 20.6?)');
      return { nextExpectedRevision: result.nextExpectedRevision, position: result.position };
    } catch (error) {
      throw fromEsdbError(error, streamId, expected);
    }
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const read = this.client.readStream(streamId, {
      direction: backwards ? BACKWARDS : FORWARDS,
      fromRevision: options.fromRevision ?? (backwards ? END : START),
      maxCount: options.maxCount ?? Number.MAX_SAFE_INTEGER,
    });
    const found: RecordedEvent[] = [];
    try {
      for await (const resolved of read) {
        const event = fromEsdbEvent(resolved);
        if (event) found.push(event);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return found;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const maxCount = options.maxCount ?? PAGE;
    if (options.direction !== 'backwards' || !options.fromPosition) return this.scanAll(options.direction ?? 'forwards', options.fromPosition, maxCount);
    // Backwards from a position: whether the server includes the event at that position is not part of its
    // contract, so take it from a forwards read (inclusive) and the rest from strictly before it.
    const from = options.fromPosition;
    const [atFrom] = await this.scanAll('forwards', from, 1);
    const exact = atFrom && comparePositions(atFrom.position, from) === 0 ? [atFrom] : [];
    const before = await this.scanAll('backwards', from, maxCount - exact.length + 1);
    return [...exact, ...before.filter((e) => comparePositions(e.position, from) < 0)].slice(0, maxCount);
  }

  /** Reads $all until `maxCount` user events were found, skipping system records on the way. */
  private async scanAll(
    direction: 'forwards' | 'backwards',
    fromPosition: Position | undefined,
    maxCount: number,
    skipType?: string,
  ): Promise<RecordedEvent[]> {
    const found: RecordedEvent[] = [];
    if (maxCount <= 0) return found;
    const read = this.client.readAll({
      direction: direction === 'backwards' ? BACKWARDS : FORWARDS,
      fromPosition: fromPosition ?? (direction === 'backwards' ? END : START),
    });
    try {
      for await (const resolved of read) {
        const event = fromEsdbEvent(resolved);
        if (event && !(skipType && event.type.startsWith(skipType))) found.push(event);
        if (found.length >= maxCount) break;
      }
    } finally {
      await read.cancel().catch(() => {});
    }
    return found;
  }

  /** The position of the last event a subscription with this exclusion would deliver. */
  lastDeliverable(excludeTypePrefix?: string): Promise<Position | null> {
    return this.scanAll('backwards', undefined, 1, excludeTypePrefix).then(([last]) => last?.position ?? null);
  }

  headPosition(): Promise<Position | null> {
    return this.lastDeliverable();
  }

  subscribeToAll(options: SubscribeToAllOptions, handler: BatchHandler, onError?: (error: unknown) => void): Subscription {
    const source = this.client.subscribeToAll(
      {
        fromPosition: options.fromPosition ?? START,
        filter: eventTypeFilter({ regex: includedTypesRegex(options.excludeTypePrefix) }),
      },
      // The client buffers this many events before it pauses the server's stream (Node's default for object streams
      // is 16, which capped a batch, and so a catch-up's read-store transaction, near 31 events).
      { highWaterMark: BATCH },
    );
    const subscription = new EsdbSubscription(source, options.fromPosition ?? null, handler, {
      head: () => this.lastDeliverable(options.excludeTypePrefix),
      onError,
      onStop: () => this.subscriptions.delete(subscription),
    });
    this.subscriptions.add(subscription);
    return subscription;
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await this.client.dispose();
  }
}

/** Drains a server subscription in batches: whatever has arrived while the previous batch was being handled. */
export class EsdbSubscription implements Subscription {
  private last: Position | null;
  private readonly waiters = new PositionWaiters();
  private failure: unknown = null;
  private sourceError: unknown = null;
  private stopped = false;
  private sleeper: (() => void) | null = null;
  private readonly loop: Promise<void>;

  constructor(
    private readonly source: AllStreamSubscription,
    from: Position | null,
    private readonly handler: BatchHandler,
    private readonly hooks: { head: () => Promise<Position | null>; onError?: (error: unknown) => void; onStop: () => void },
  ) {
    this.last = from;
    const wake = () => {
      const sleeper = this.sleeper;
      this.sleeper = null;
      sleeper?.();
    };
    source.on('readable', wake).on('end', wake).on('close', wake);
    // A listener must always be there: an 'error' without one would crash the process.
    source.on('error', (error) => {
      this.sourceError ??= error;
      wake();
    });
    this.loop = this.run();
  }

  private async nextBatch(): Promise<AllStreamResolvedEvent[] | null> {
    for (;;) {
      const batch: AllStreamResolvedEvent[] = [];
      let item: AllStreamResolvedEvent | null;
      while (batch.length < BATCH && (item = this.source.read() as AllStreamResolvedEvent | null) !== null) batch.push(item);
      if (batch.length > 0) return batch;
      if (this.stopped) return null;
      if (this.sourceError) throw this.sourceError;
      if (this.source.readableEnded || this.source.destroyed) throw new Error('EventStoreDB ended the subscription');
      await new Promise<void>((resolve) => (this.sleeper = resolve));
    }
  }

  private async run(): Promise<void> {
    try {
      for (;;) {
        const batch = await this.nextBatch();
        if (!batch || this.stopped) return;
        const events = batch.map(fromEsdbEvent).filter((e): e is RecordedEvent => e !== null);
        if (events.length === 0) continue;
        await this.handler(events);
        this.last = events[events.length - 1].position;
        this.waiters.settle(this.last);
      }
    } catch (error) {
      if (this.stopped) return;
      this.failure = error;
      this.stopped = true;
      this.waiters.rejectAll(error);
      await this.source.unsubscribe().catch(() => {});
      this.hooks.onError?.(error);
    }
  }

  async caughtUp(): Promise<void> {
    if (this.failure) throw this.failure;
    const head = await this.hooks.head();
    if (this.failure) throw this.failure;
    if (!head || (this.last && comparePositions(this.last, head) >= 0)) return;
    await this.waiters.wait(head);
  }

  async stop(): Promise<void> {
    const wasRunning = !this.stopped;
    this.stopped = true;
    if (wasRunning) await this.source.unsubscribe().catch(() => {});
    this.sleeper?.();
    await this.loop;
    this.waiters.rejectAll(new Error('subscription stopped'));
    this.hooks.onStop();
  }
}
