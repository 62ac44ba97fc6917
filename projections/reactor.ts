// A reactor follows the log and acts on the events it names: removes files, destroys keys, schedules deliveries and
// deadlines. Where a projection turns events into writes, a reactor does something outside the read models; what
// every follower needs besides (its subscription, checkpoint, read-your-writes waits, start, stop and what happens
// when a batch fails) is written once here, so a process is only what it does with its events.
import type { ParleyEventType } from '../domain/events.js';
import type { BusConsumer, EventBus } from '../ports/bus.js';
import { type EventStore, type Position, PositionWaits, type RecordedEvent, type Subscription, comparePositions } from '../ports/eventStore.js';
import type { Recorded } from './projection.js';

/** `handles`: the event types `react` is handed, or every event (a follower of what every event carries). */
export interface Reactor<Context> {
  /** What it is called: a bus follower's consumer group. */
  name: string;
  handles: readonly string[] | 'every event';
  /**
   * Acts on one batch, in log order, with only the events it handles (never an empty batch). A log follower's answer
   * `'checkpoint'` records the batch's end at once (what it did must not be done again after a restart); otherwise
   * the checkpoint moves every CHECKPOINT_EVERY events. A throw stops the follower and reports the error.
   */
  react(events: RecordedEvent[], context: Context): Promise<'checkpoint' | void> | 'checkpoint' | void;
}

/** A reactor of the events named in `handles`, typed as projection() types them: a `switch` on `type` narrows each. */
export function reactor<const T extends ParleyEventType, Context>(spec: {
  name: string;
  handles: readonly T[];
  react(events: Recorded<T>[], context: Context): Promise<'checkpoint' | void> | 'checkpoint' | void;
}): Reactor<Context>;
/**
 * A reactor of every event (the key shredder learns from each event's envelopes, the gateway derives dispatches from
 * each): every event the log holds is one a decider produced, so a comparison of `type` narrows it too.
 */
export function reactor<Context>(spec: {
  name: string;
  handles: 'every event';
  react(events: Recorded<ParleyEventType>[], context: Context): Promise<'checkpoint' | void> | 'checkpoint' | void;
}): Reactor<Context>;
export function reactor<Context>(spec: Reactor<Context>): Reactor<Context> {
  return spec;
}

/** The handled events of a batch: the batch itself for a reactor of every event, with no copy. */
function handled(takes: ReadonlySet<string> | null, events: RecordedEvent[]): RecordedEvent[] {
  return takes ? events.filter((event) => takes.has(event.type)) : events;
}

const takesOf = (reactor: Reactor<unknown>): ReadonlySet<string> | null => (reactor.handles === 'every event' ? null : new Set(reactor.handles));

/** Where a log follower keeps how far it got: its own store, so a checkpoint can go in the same write as its effects. */
export interface ReactorCheckpoint {
  load(): Promise<Position | null>;
  save(position: Position): Promise<void>;
}

/** Batches that need no checkpoint of their own move it at most this often (in events): a restart reads at most these again. */
export const CHECKPOINT_EVERY = 1000;

/**
 * A reactor following the log itself from its checkpoint: every event once, in order, across restarts. Callers that
 * need its effects (a 2xx that says the files or keys are gone) wait for a position with `waitFor`.
 */
export class LogFollower<Context> {
  private subscription: Subscription | null = null;
  private processed: Position | null = null;
  private uncheckpointed = 0;
  private readonly waits = new PositionWaits();
  private readonly takes: ReadonlySet<string> | null;

  constructor(
    private readonly reactor: Reactor<Context>,
    private readonly context: Context,
    private readonly log: EventStore,
    private readonly checkpoint: ReactorCheckpoint,
    /** Hears that the follower stopped on an error: it stays stopped, and the next start resumes from the checkpoint. */
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.takes = takesOf(reactor as Reactor<unknown>);
  }

  async start(): Promise<void> {
    const from = await this.checkpoint.load();
    this.processed = from;
    const subscription = this.log.subscribeToAll(
      { fromPosition: from ?? undefined },
      (events) => this.follow(events),
      (error) => {
        // Stopped: nobody may wait for it. Unless it was started again already (the relay, its lease won back): the
        // new subscription is the one that runs.
        if (this.subscription === subscription) {
          this.subscription = null;
          this.waits.releaseAll();
        }
        this.onError(error);
      },
    );
    this.subscription = subscription;
  }

  private async follow(events: RecordedEvent[]): Promise<void> {
    const taken = handled(this.takes, events);
    const answer = taken.length > 0 ? await this.reactor.react(taken, this.context) : undefined;
    const last = events[events.length - 1].position;
    // Counted once the batch is done: stop() records how far it got, which a batch whose checkpoint failed did not move.
    if (answer === 'checkpoint' || this.uncheckpointed + events.length >= CHECKPOINT_EVERY) {
      await this.checkpoint.save(last);
      this.uncheckpointed = 0;
    } else this.uncheckpointed += events.length;
    this.processed = last;
    this.waits.reached(last);
  }

  /**
   * Resolves once the reactor has acted on the log up to `position`, or at once when it is not running: true then,
   * false when `timeoutMs` passed first.
   */
  async waitFor(position: Position | null, timeoutMs: number): Promise<boolean> {
    if (!position || !this.subscription) return true;
    if (!this.reached(position)) await this.waits.wait(position, timeoutMs);
    return this.reached(position);
  }

  private reached(position: Position): boolean {
    return this.processed !== null && comparePositions(this.processed, position) >= 0;
  }

  /** Resolves when everything the log held when it was called has been followed. */
  async caughtUp(): Promise<void> {
    await this.subscription?.caughtUp();
  }

  /** Stops after the batch under way, and records how far it got when that is past the checkpoint. */
  async stop(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = null;
    await subscription?.stop();
    if (this.processed && this.uncheckpointed > 0) await this.checkpoint.save(this.processed);
    this.uncheckpointed = 0;
    this.waits.releaseAll();
  }
}

/**
 * A reactor following the bus from its live end, for as long as it runs (each gateway node, the delivery worker): what
 * it missed while down, it learns from the read models at its start. Its name is its consumer group (kept across
 * restarts: a Kafka group is named by it). A batch that throws is reported to `onError`, never passed over in silence.
 */
export class BusFollower<Context> {
  private consumer: BusConsumer | null = null;
  private readonly takes: ReadonlySet<string> | null;

  constructor(
    private readonly reactor: Reactor<Context>,
    private readonly context: Context,
    private readonly bus: Pick<EventBus, 'consume'>,
    private readonly onError: (error: unknown) => void,
  ) {
    this.takes = takesOf(reactor as Reactor<unknown>);
  }

  /** Resolves once the bus hands it every event from now on. */
  async start(): Promise<void> {
    this.consumer = await this.bus.consume(this.reactor.name, { durable: false }, (events) => this.follow(events), this.onError);
  }

  private async follow(events: RecordedEvent[]): Promise<void> {
    const taken = handled(this.takes, events);
    if (taken.length > 0) await this.reactor.react(taken, this.context);
  }

  /** Stops after the batch under way; a follower that never started stops at once. */
  async stop(): Promise<void> {
    const consumer = this.consumer;
    this.consumer = null;
    await consumer?.stop();
  }
}
