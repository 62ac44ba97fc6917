// The event store port, shaped after EventStoreDB: streams with bigint revisions, a global log ($all) with
// positions, appends guarded by an expected revision, and catch-up subscriptions that turn live.

export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | bigint;

/** A place in the global log. EventStoreDB gives commit and prepare positions; the embedded log uses one number for both. */
export interface Position {
  commit: bigint;
  prepare: bigint;
}

export const START: Position = { commit: 0n, prepare: 0n };

export interface EventMetadata {
  /** The user whose request caused the event (null for the system). */
  actorId: string | null;
  /** Audit-log reason from the X-Audit-Log-Reason header. */
  reason?: string | null;
  correlationId?: string;
  causationId?: string;
  /** ISO 8601, when the command was handled. */
  createdAt: string;
}

export interface NewEvent {
  id?: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  schemaVersion?: number;
}

export interface RecordedEvent<Data = unknown> {
  id: string;
  streamId: string;
  revision: bigint;
  position: Position;
  type: string;
  data: Data;
  metadata: EventMetadata;
  schemaVersion: number;
}

export interface AppendResult {
  nextExpectedRevision: bigint;
  position: Position;
}

export class WrongExpectedVersionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: bigint | 'no_stream',
  ) {
    super(`Wrong expected version for stream ${streamId}: expected ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedVersionError';
  }
}

export interface ReadStreamOptions {
  direction?: 'forwards' | 'backwards';
  /** Inclusive; defaults to the start (forwards) or the end (backwards). */
  fromRevision?: bigint;
  maxCount?: number;
}

export interface ReadAllOptions {
  direction?: 'forwards' | 'backwards';
  /** Inclusive, as EventStoreDB's readAll. */
  fromPosition?: Position;
  maxCount?: number;
}

export interface SubscribeToAllOptions {
  /** Exclusive, as EventStoreDB's subscribeToAll: delivery starts after this checkpoint. Omitted: from the start. */
  fromPosition?: Position;
  /** Event types to skip on the server side (EventStoreDB: system events). */
  excludeTypePrefix?: string;
}

/**
 * Receives events in order, a batch at a time; the next batch waits for the returned promise.
 * A throw stops the subscription and is reported to onError.
 */
export type BatchHandler = (events: RecordedEvent[]) => Promise<void> | void;

export interface Subscription {
  /** Resolves when the subscription has delivered everything that was in the log when it was called. */
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

export interface EventStore {
  appendToStream(streamId: string, events: NewEvent[], options?: { expectedRevision?: ExpectedRevision }): Promise<AppendResult>;
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  subscribeToAll(options: SubscribeToAllOptions, handler: BatchHandler, onError?: (error: unknown) => void): Subscription;
  /** The position of the last event in the log, or null when it is empty. */
  headPosition(): Promise<Position | null>;
  close(): Promise<void>;
}

export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

/**
 * The callers waiting for a follower of the log (a projector, a process) to get to their positions: each is let go when
 * the follower reaches it, when the follower stops, or after its timeout, whichever comes first.
 */
export class PositionWaits {
  private waiting: PositionWaiter[] = [];

  wait(target: Position, timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const waiter: PositionWaiter = {
        target,
        resolve,
        timer: setTimeout(() => {
          this.waiting = this.waiting.filter((w) => w !== waiter);
          resolve();
        }, timeoutMs).unref(),
      };
      this.waiting.push(waiter);
    });
  }

  reached(position: Position): void {
    this.waiting = this.waiting.filter((waiter) => {
      if (comparePositions(position, waiter.target) < 0) return true;
      release(waiter);
      return false;
    });
  }

  releaseAll(): void {
    for (const waiter of this.waiting.splice(0)) release(waiter);
  }
}

/** A caller waiting for a position, and the timer that lets it go if the position is not reached in time. */
interface PositionWaiter {
  target: Position;
  resolve: () => void;
  timer: ReturnType<typeof setTimeout>;
}

/** Lets a waiter go before its timeout. Not a method of each waiter, which would be a function made per wait. */
function release(waiter: PositionWaiter): void {
  clearTimeout(waiter.timer);
  waiter.resolve();
}

/** Checkpoints are stored as text so that they round-trip through any read store. */
export function encodePosition(position: Position): string {
  return `${position.commit}/${position.prepare}`;
}

export function decodePosition(text: string): Position {
  const match = /^(\d+)\/(\d+)$/.exec(text);
  if (!match) throw new Error(`Not an encoded position: ${text}`);
  return { commit: BigInt(match[1]), prepare: BigInt(match[2]) };
}
