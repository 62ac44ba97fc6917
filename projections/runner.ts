// Feeds projections from a catch-up subscription to the log. Each projection keeps its own checkpoint, written in the
// same bulk write as the documents it covers, so an event is applied once even across crashes and restarts.
import { type EventStore, type Position, PositionWaits, type Subscription, comparePositions } from '../ports/eventStore.js';
import type { Checkpoint, ReadStore, WriteOp } from '../ports/readStore.js';
import type { Projection } from './projection.js';

export class ProjectionRunner {
  private subscription: Subscription | null = null;
  private checkpoints = new Map<string, Position | null>();
  private processed: Position | null = null;
  private readonly waits = new PositionWaits();

  constructor(
    private readonly store: EventStore,
    private readonly readStore: ReadStore,
    readonly projections: Projection[],
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  async start(): Promise<void> {
    await this.readStore.ensureIndexes(this.projections.flatMap((p) => p.indexes));
    for (const projection of this.projections) this.checkpoints.set(projection.name, await this.readStore.getCheckpoint(projection.name));
    const known = [...this.checkpoints.values()];
    const from = known.includes(null) ? null : known.reduce((min, p) => (comparePositions(p!, min!) < 0 ? p : min));
    this.processed = from;
    this.subscription = this.store.subscribeToAll({ fromPosition: from ?? undefined }, (events) => this.apply(events), this.onError);
  }

  private async apply(events: Parameters<Parameters<EventStore['subscribeToAll']>[1]>[0]): Promise<void> {
    const ops: WriteOp[] = [];
    // Checkpoints move only once the batch is written: each projection's is looked up once per batch, not per event.
    const running = this.projections.map((projection) => ({ projection, done: this.checkpoints.get(projection.name) }));
    for (const event of events) {
      for (const { projection, done } of running) {
        if (done && comparePositions(event.position, done) <= 0) continue;
        for (const op of projection.project(event)) ops.push(op);
      }
    }
    const last = events[events.length - 1].position;
    const checkpoints: Checkpoint[] = this.projections.map((p) => ({ projection: p.name, position: last }));
    await this.readStore.bulkWrite(ops, checkpoints);
    for (const projection of this.projections) this.checkpoints.set(projection.name, last);
    this.processed = last;
    this.waits.reached(last);
  }

  /** Resolves once every projection has applied the log up to `position` (read-your-writes), or after `timeoutMs`. */
  waitFor(position: Position | null, timeoutMs = 5000): Promise<void> {
    if (!position || (this.processed && comparePositions(this.processed, position) >= 0)) return Promise.resolve();
    return this.waits.wait(position, timeoutMs);
  }

  /** How many log positions each projection is behind `head` (events, in the embedded log). */
  lag(head: Position | null): Record<string, number> {
    const behind = (done: Position | null) => (head ? Math.max(0, Number(head.commit - (done?.commit ?? 0n))) : 0);
    return Object.fromEntries(this.projections.map((p) => [p.name, behind(this.checkpoints.get(p.name) ?? null)]));
  }

  async caughtUp(): Promise<void> {
    await this.subscription?.caughtUp();
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
    this.subscription = null;
    this.waits.releaseAll();
  }

  /** Empties the named projections' collections and replays the whole log into them. */
  async rebuild(names: string[] = this.projections.map((p) => p.name)): Promise<void> {
    await this.stop();
    const chosen = this.projections.filter((p) => names.includes(p.name));
    const load = async () => {
      for (const projection of chosen) await this.readStore.reset(projection.name, projection.collections);
      await this.start();
      await this.caughtUp();
    };
    const collections = chosen.flatMap((p) => p.collections);
    await (this.readStore.bulkLoad ? this.readStore.bulkLoad(collections, load) : load());
  }
}
