// Read-your-writes in a process that does not run the projectors (api, gateway): ProjectionRunner.waitFor only knows
// what its own process projected, so this variant waits for the checkpoints the projector processes commit to the
// shared read store, polling them while anyone waits (one poll serves every waiting request). What a poll found stays
// known: a wait for a position the projectors are known to have applied (the gateway's, for each event of a batch the
// first wait covered) answers without a query.
import type { EventStore, Position } from '../ports/eventStore.js';
import { comparePositions } from '../ports/eventStore.js';
import { PositionWaiters } from './eventStore/waiters.js';
import type { Logger } from '../ports/logger.js';
import type { ReadStore } from '../ports/readStore.js';
import type { Projection } from '../projections/projection.js';
import { ProjectionRunner, lagsOf } from '../projections/runner.js';

const FIRST_POLL_MS = 5;
const MAX_POLL_MS = 100;
/** After a failed poll (the read store unreachable: an election, a restart), polls back off up to this. */
const MAX_RETRY_MS = 2000;

/**
 * A read-your-writes wait that ran out while the read store could not be reached: the request fails with this, as a
 * 503 that says when to come back (http/errors.ts reads `status` and `retryAfter`), not as an unexplained 500. What
 * the request appended stays appended: the message says so, since a client that sends it again writes it twice.
 */
export class ReadModelsUnreachableError extends Error {
  readonly status = 503;
  readonly retryAfter = Math.ceil(MAX_RETRY_MS / 1000);
  constructor(waitedMs: number, cause: unknown) {
    super(`the read models could not be reached for ${waitedMs} ms: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'ReadModelsUnreachableError';
  }

  /** What the client is told: nothing of the engine's own error. */
  readonly answer = 'The service cannot read its data right now; what this request changed, if anything, is recorded. Try the read again shortly.';
}

/** A ProjectionRunner in type (callers keep using runtime.projections), whose projectors run elsewhere. */
export class RemoteProjections extends ProjectionRunner {
  private readonly pending = new PositionWaiters();
  private polling = false;
  private stopped = false;
  /** What the last poll failed with; null once one succeeds. */
  private failure: unknown = null;
  /** Each projection's checkpoint as last read: checkpoints only move forward, so what was applied stays applied. */
  private readonly checkpoints = new Map<string, Position>();
  /** The least of them once every projection has one: every position up to it is applied. */
  private known: Position | null = null;

  constructor(
    private readonly eventLog: EventStore,
    private readonly shared: ReadStore,
    projections: Projection[],
    private readonly timeoutMs: number,
    private readonly log: Pick<Logger, 'warn' | 'info'> = { warn: () => {}, info: () => {} },
  ) {
    super(eventLog, shared, projections);
  }

  override async start(): Promise<void> {
    this.stopped = false;
  }

  /** How far every projection has got: the least of their checkpoints (null while one has none), in one query. */
  async applied(): Promise<Position | null> {
    for (const [name, position] of await this.shared.getCheckpoints(this.projections.map((p) => p.name))) {
      const before = this.checkpoints.get(name);
      if (position && (!before || comparePositions(position, before) > 0)) this.checkpoints.set(name, position);
    }
    if (this.checkpoints.size < this.projections.length) return null;
    this.known = [...this.checkpoints.values()].reduce((min, p) => (comparePositions(p, min) < 0 ? p : min));
    return this.known;
  }

  /**
   * Resolves once the projectors have applied `position`, or when `timeoutMs` passes (the read is then as fresh as it
   * can be); rejects instead when the read store could not be reached all that time, so the request fails clearly.
   */
  override waitFor(position: Position | null, timeoutMs = this.timeoutMs): Promise<void> {
    if (!position || this.stopped || (this.known && comparePositions(position, this.known) <= 0)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => (this.failure ? reject(new ReadModelsUnreachableError(timeoutMs, this.failure)) : resolve()), timeoutMs);
      timer.unref();
      this.pending.wait(position).then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        () => resolve(),
      );
      void this.poll();
    });
  }

  /** One poll serves every waiter; a failed one is logged and retried, backing off, while anyone waits. */
  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      let delay = FIRST_POLL_MS;
      while (this.pending.size > 0 && !this.stopped) {
        try {
          this.pending.settle(await this.applied());
          if (this.failure) this.log.info('the read models can be reached again');
          this.failure = null;
          delay = Math.min(delay * 2, MAX_POLL_MS);
        } catch (error) {
          if (!this.failure) this.log.warn({ err: error }, 'the read models cannot be reached: retrying');
          this.failure = error;
          delay = Math.min(Math.max(delay * 2, MAX_POLL_MS), MAX_RETRY_MS);
        }
        if (this.pending.size > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      }
    } finally {
      this.polling = false;
    }
  }

  /** How far behind the log the projector processes are, from the checkpoints they committed to the shared read store. */
  override async lag(cap: number): Promise<Record<string, number>> {
    const names = this.projections.map((p) => p.name);
    return lagsOf(this.eventLog, await this.shared.getCheckpoints(names), cap);
  }

  /** Waits, bounded, for the projector processes to have applied the log as it is now. */
  override async caughtUp(): Promise<void> {
    await this.waitFor(await this.eventLog.headPosition());
  }

  override async stop(): Promise<void> {
    this.stopped = true;
    this.pending.rejectAll(new Error('stopped'));
  }

  override async rebuild(): Promise<void> {
    throw new Error('read models are rebuilt by the projector role or the replay tool, not by this process');
  }
}
