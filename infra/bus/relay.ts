// The relay: follows the log from its checkpoint and publishes every event, in log order, then records how far it got
// (in the read store, beside the projectors' checkpoints). Run one relay: a crash between a publish and its checkpoint
// republishes that batch on restart, which consumers drop by position (see the Kafka bus). Without a checkpoint (a
// first start on a log that has history, a new or restored read store) it starts at the log's head: the bus carries
// what happens from now on, as its consumers expect, and history is the replay tool's.
import type { EventStore, Subscription } from '../../ports/eventStore.js';
import type { ReadStore } from '../../ports/readStore.js';
import type { EventPublisher } from '../../ports/bus.js';

export const RELAY_CHECKPOINT = 'relay';

export class Relay {
  private subscription: Subscription | null = null;

  constructor(
    private readonly store: EventStore,
    private readonly checkpoints: ReadStore,
    private readonly publisher: EventPublisher,
    private readonly onError: (error: unknown) => void,
  ) {}

  async start(): Promise<void> {
    let from = await this.checkpoints.getCheckpoint(RELAY_CHECKPOINT);
    if (!from) {
      from = await this.store.headPosition();
      // Recorded at once: a relay that stops before its first publish must not start at a later head next time, and
      // skip what was appended in between.
      if (from) await this.checkpoints.bulkWrite([], [{ projection: RELAY_CHECKPOINT, position: from }]);
    }
    this.subscription = this.store.subscribeToAll(
      { fromPosition: from ?? undefined },
      async (events) => {
        await this.publisher.publish(events);
        await this.checkpoints.bulkWrite([], [{ projection: RELAY_CHECKPOINT, position: events[events.length - 1].position }]);
      },
      this.onError,
    );
  }

  async caughtUp(): Promise<void> {
    await this.subscription?.caughtUp();
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
    this.subscription = null;
  }
}
