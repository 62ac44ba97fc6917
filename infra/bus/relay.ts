// The relay: follows the whole log from its checkpoint and publishes every event, in log order, then records how far
// it got (in the read store, beside the projectors' checkpoints). Run one relay: a crash between a publish and its
// checkpoint republishes that batch on restart, which consumers drop by position (see the Kafka bus).
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
    const from = await this.checkpoints.getCheckpoint(RELAY_CHECKPOINT);
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
