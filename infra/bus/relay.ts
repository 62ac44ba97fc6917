// The relay: follows the log from its checkpoint and publishes every event, in log order, then records how far it got
// (in the read store, beside the projectors' checkpoints). A crash between a publish and its checkpoint republishes
// that batch on restart, which consumers drop by position (see the Kafka bus). Without a checkpoint (a first start on
// a log that has history, a new or restored read store) it starts at the log's head: the bus carries what happens
// from now on, as its consumers expect, and history is the replay tool's.
// One relay publishes at a time: it holds the lease `relay` (infra/processIds.ts's leases, in the shared store) while
// it runs. Another relay (a second replica, or a new one started before the old one stopped) stands by, and takes
// over from the checkpoint once the lease is free: released at a graceful stop, or run out after a crash.
// The following itself (subscription, checkpoint, waits, a failing batch) is the log follower's
// (projections/reactor.ts): the relay is the reactor that publishes, and the lease that says when it may.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { type Clock, systemClock } from '../../ports/clock.js';
import type { EventStore, Position } from '../../ports/eventStore.js';
import type { ReadStore } from '../../ports/readStore.js';
import type { EventPublisher } from '../../ports/bus.js';
import { LEASE_MS, type Leases, RENEW_MS } from '../../ports/leases.js';
import { LogFollower, reactor } from '../../projections/reactor.js';

export const RELAY_CHECKPOINT = 'relay';
export const RELAY_LEASE = 'relay';

/** What the relaying reactor publishes with: the publisher, and the check that this relay still holds the lease. */
interface Relaying {
  publisher: EventPublisher;
  /** Throws once the lease may have run out. */
  assertHolds(): void;
}

/**
 * Publishes each batch of the log as stored, while the lease holds; its end is the checkpoint at once, so a restart
 * republishes at most the batch under way.
 */
const relaying = reactor({
  name: RELAY_CHECKPOINT,
  handles: 'every event',
  async react(events, { publisher, assertHolds }: Relaying): Promise<'checkpoint'> {
    assertHolds();
    await publisher.publish(events);
    return 'checkpoint';
  },
});

export class Relay {
  private readonly follower: LogFollower<Relaying>;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> = Promise.resolve();
  /** Whether this relay holds the lease and publishes; until when the lease surely holds. */
  private leading = false;
  private until = 0;
  private readonly holder = `${hostname()}:${process.pid}:${randomUUID()}`;

  constructor(
    store: EventStore,
    checkpoints: ReadStore,
    publisher: EventPublisher,
    private readonly leases: Leases,
    private readonly onError: (error: unknown) => void,
    private readonly clock: Clock = systemClock,
  ) {
    const assertHolds = () => this.assertHolds();
    const checkpoint = {
      async load(): Promise<Position | null> {
        const from = await checkpoints.getCheckpoint(RELAY_CHECKPOINT);
        if (from) return from;
        const head = await store.headPosition();
        // Recorded at once: a relay that stops before its first publish must not start at a later head next time, and
        // skip what was appended in between.
        if (head) await checkpoints.bulkWrite([], [{ projection: RELAY_CHECKPOINT, position: head }]);
        return head;
      },
      async save(position: Position): Promise<void> {
        assertHolds();
        await checkpoints.bulkWrite([], [{ projection: RELAY_CHECKPOINT, position }]);
      },
    };
    this.follower = new LogFollower(relaying, { publisher, assertHolds }, store, checkpoint, onError);
  }

  /** Publishes when no other relay does, else stands by; either way it checks the lease again every RENEW_MS. */
  async start(): Promise<void> {
    await this.tick();
    this.timer = setInterval(() => {
      this.ticking = this.ticking.then(() => this.tick()).catch(this.onError);
    }, RENEW_MS);
    this.timer.unref();
  }

  /**
   * Renews the lease of the publishing relay, which stops publishing (onError) once another took it, or once it could
   * not be renewed before it ran out; a relay standing by takes a free lease and publishes from the checkpoint.
   */
  async tick(): Promise<void> {
    const now = this.clock.now();
    let held: boolean;
    try {
      held = await this.leases.claim(RELAY_LEASE, this.holder, now, now + LEASE_MS);
    } catch (error) {
      if (this.leading && this.until - this.clock.now() < RENEW_MS)
        await this.lose(new Error('the relay lease could not be renewed before it ran out: this relay stops publishing', { cause: error }));
      return;
    }
    if (held) {
      this.until = now + LEASE_MS;
      if (!this.leading) {
        await this.follower.start();
        this.leading = true;
      }
    } else if (this.leading) await this.lose(new Error('another relay took the relay lease: this one stops publishing'));
  }

  /** Whether this relay is the one publishing. */
  get publishing(): boolean {
    return this.leading;
  }

  caughtUp(): Promise<void> {
    return this.follower.caughtUp();
  }

  /** Stops publishing and gives the lease up, for a relay standing by to take over at once. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
    await this.follower.stop();
    if (this.leading) await this.leases.release(RELAY_LEASE, this.holder);
    this.leading = false;
  }

  /**
   * Refuses to publish, or to move the checkpoint, once the lease may have run out: a relay that was paused (SIGSTOP,
   * a VM frozen, a long GC) past its lease wakes with its subscription's timers due before its renewal, and would
   * otherwise publish beside the relay that took over, and move the checkpoint back behind it. The error stops the
   * follower, and this relay (onError).
   */
  private assertHolds(): void {
    if (this.until - this.clock.now() < RENEW_MS) {
      this.leading = false;
      throw new Error('the relay lease may have run out (this relay did not renew it in time): this relay stops publishing');
    }
  }

  private async lose(error: Error): Promise<void> {
    this.leading = false;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.follower.stop();
    this.onError(error);
  }
}
