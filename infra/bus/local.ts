// The bus of the embedded default (and of BUS=local): each consumer is a subscription to the log itself; a durable
// group keeps its place as a checkpoint in the read store.
import type { EventStore } from '../../ports/eventStore.js';
import { LocalHintBus } from '../../ports/hints.js';
import type { ReadStore } from '../../ports/readStore.js';
import type { BusConsumer, ConsumeOptions, EventBus } from '../../ports/bus.js';

export class LocalEventBus implements EventBus {
  readonly hints = new LocalHintBus();

  constructor(
    private readonly store: EventStore,
    private readonly checkpoints: ReadStore,
  ) {}

  async consume(group: string, options: ConsumeOptions, handler: Parameters<EventBus['consume']>[2], onError?: (error: unknown) => void): Promise<BusConsumer> {
    const name = `bus:${group}`;
    const from = (options.durable ? await this.checkpoints.getCheckpoint(name) : null) ?? (await this.store.headPosition());
    const subscription = this.store.subscribeToAll(
      { fromPosition: from ?? undefined },
      async (events) => {
        await handler(events);
        if (options.durable) await this.checkpoints.bulkWrite([], [{ projection: name, position: events[events.length - 1].position }]);
      },
      onError,
    );
    return { stop: () => subscription.stop() };
  }

  /** The embedded bus is the log itself: the log's own outage is what /readyz says. */
  async reachable(): Promise<void> {}

  async close(): Promise<void> {}
}
