// Read-your-writes in a process that does not run the projectors (api, gateway): ProjectionRunner.waitFor only knows
// what its own process projected, so this variant waits for the checkpoints the projector processes commit to the
// shared read store, polling them while anyone waits (one poll serves every waiting request).
import type { EventStore, Position } from '../ports/eventStore.js';
import { comparePositions } from '../ports/eventStore.js';
import { PositionWaiters } from './eventStore/waiters.js';
import type { ReadStore } from '../ports/readStore.js';
import type { Projection } from '../projections/projection.js';
import { ProjectionRunner } from '../projections/runner.js';

const FIRST_POLL_MS = 5;
const MAX_POLL_MS = 100;

/** A ProjectionRunner in type (callers keep using runtime.projections), whose projectors run elsewhere. */
export class RemoteProjections extends ProjectionRunner {
  private readonly pending = new PositionWaiters();
  private polling = false;
  private stopped = false;

  constructor(
    private readonly eventLog: EventStore,
    private readonly shared: ReadStore,
    projections: Projection[],
    private readonly timeoutMs: number,
  ) {
    super(eventLog, shared, projections);
  }

  override async start(): Promise<void> {
    this.stopped = false;
  }

  /** How far every projection has got: the least of their checkpoints (null while one has none). */
  async applied(): Promise<Position | null> {
    const positions = await Promise.all(this.projections.map((p) => this.shared.getCheckpoint(p.name)));
    if (positions.some((p) => p === null)) return null;
    return (positions as Position[]).reduce((min, p) => (comparePositions(p, min) < 0 ? p : min));
  }

  override waitFor(position: Position | null, timeoutMs = this.timeoutMs): Promise<void> {
    if (!position || this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
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

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      for (let delay = FIRST_POLL_MS; this.pending.size > 0 && !this.stopped; delay = Math.min(delay * 2, MAX_POLL_MS)) {
        this.pending.settle(await this.applied());
        if (this.pending.size > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      }
    } finally {
      this.polling = false;
    }
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
