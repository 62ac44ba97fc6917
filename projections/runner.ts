// Feeds projections from a catch-up subscription to the log. Each projection keeps its own checkpoint, written in the
// same bulk write as the documents it covers, so an event is applied once even across crashes and restarts.
import { type EventStore, type Position, PositionWaits, type Subscription, comparePositions } from '../ports/eventStore.js';
import type { Checkpoint, ReadStore, WriteOp } from '../ports/readStore.js';
import { type Projection, byEventType } from './projection.js';

/** A projection and how far it has applied the log (its checkpoint, moved once a batch is written). */
interface Running {
  projection: Projection;
  done: Position | null;
}

export class ProjectionRunner {
  private subscription: Subscription | null = null;
  private readonly running: Running[];
  /** The projections each event type goes to, in the order of `projections`: an event no one takes costs one lookup. */
  private readonly takers: ReadonlyMap<string, readonly Running[]>;
  private processed: Position | null = null;
  private readonly waits = new PositionWaits();
  /** A write failed: it may still have committed (its connection dropped at the commit), which the checkpoints tell. */
  private unsure = false;

  constructor(
    private readonly store: EventStore,
    private readonly readStore: ReadStore,
    readonly projections: Projection[],
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.running = projections.map((projection) => ({ projection, done: null }));
    this.takers = byEventType(this.running, (entry) => entry.projection.handles);
  }

  async start(): Promise<void> {
    await this.readStore.ensureIndexes(this.projections.flatMap((p) => p.indexes));
    for (const entry of this.running) entry.done = await this.readStore.getCheckpoint(entry.projection.name);
    const known = this.running.map((entry) => entry.done);
    const from = known.includes(null) ? null : known.reduce((min, p) => (comparePositions(p!, min!) < 0 ? p : min));
    this.processed = from;
    this.subscription = this.store.subscribeToAll({ fromPosition: from ?? undefined }, (events) => this.apply(events), this.onError);
  }

  private async apply(events: Parameters<Parameters<EventStore['subscribeToAll']>[1]>[0]): Promise<void> {
    if (this.unsure) {
      // The log hands a batch whose write failed on again (an outage it waited out): what did land is not applied twice.
      const checkpoints = await this.readStore.getCheckpoints(this.projections.map((p) => p.name));
      for (const entry of this.running) entry.done = checkpoints.get(entry.projection.name) ?? null;
      this.unsure = false;
    }
    const ops: WriteOp[] = [];
    for (const event of events) {
      const takers = this.takers.get(event.type);
      if (!takers) continue;
      for (const { projection, done } of takers) {
        if (done && comparePositions(event.position, done) <= 0) continue;
        for (const op of projection.project(event)) ops.push(op);
      }
    }
    const last = events[events.length - 1].position;
    const checkpoints: Checkpoint[] = this.projections.map((p) => ({ projection: p.name, position: last }));
    try {
      await this.readStore.bulkWrite(ops, checkpoints);
    } catch (error) {
      this.unsure = true;
      throw error;
    }
    for (const entry of this.running) entry.done = last;
    this.processed = last;
    this.waits.reached(last);
  }

  /** Resolves once every projection has applied the log up to `position` (read-your-writes), or after `timeoutMs`. */
  waitFor(position: Position | null, timeoutMs = 5000): Promise<void> {
    if (!position || (this.processed && comparePositions(this.processed, position) >= 0)) return Promise.resolve();
    return this.waits.wait(position, timeoutMs);
  }

  /**
   * How many events each projection has yet to apply, counted up to `cap`. They are counted by reading the log after
   * each checkpoint, not by subtracting positions, which are byte offsets on EventStoreDB: the cost follows the lag
   * (nothing to read when caught up) and stops at `cap`.
   */
  async lag(cap: number): Promise<Record<string, number>> {
    return lagsOf(this.store, new Map(this.running.map(({ projection, done }) => [projection.name, done])), cap);
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

/** The events after each checkpoint (null: the whole log), up to `cap`; projections at one checkpoint share a read. */
export async function lagsOf(log: EventStore, checkpoints: ReadonlyMap<string, Position | null>, cap: number): Promise<Record<string, number>> {
  const counts = new Map<string, Promise<number>>();
  const count = async (from: Position | null) => {
    // readAll starts at its position, inclusive: one more is read, and the checkpoint's own event left out.
    const events = await log.readAll(from ? { fromPosition: from, maxCount: cap + 1 } : { maxCount: cap });
    return Math.min(cap, from ? events.filter((event) => comparePositions(event.position, from) > 0).length : events.length);
  };
  const lags = await Promise.all(
    [...checkpoints].map(async ([name, done]) => {
      const key = done ? `${done.commit}/${done.prepare}` : 'start';
      if (!counts.has(key)) counts.set(key, count(done));
      return [name, await counts.get(key)!] as const;
    }),
  );
  return Object.fromEntries(lags);
}
