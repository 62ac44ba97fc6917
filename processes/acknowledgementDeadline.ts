// The widely used API's 3-second clock for interactions sent to bots on the gateway: an interaction its bot has not
// acknowledged (answered or deferred) 3 seconds after it was made fails for its invoker, recorded as InteractionFailed
// (whose dispatch, INTERACTION_FAILURE, tells the invoker's sessions). A response that won the race makes the failure
// a no-op. Late responses are refused by the clock itself (domain/commandInteraction.ts), with or without this process;
// an interaction whose 3 seconds ran out while no process followed the log is refused as well, but is not announced.
import type { Uses } from '../commands/deps.js';
import { failInteraction } from '../commands/interactionEndpoint.js';
import { ACKNOWLEDGE_WITHIN_MS, type BotInteractionEvent } from '../domain/commandInteraction.js';
import type { BusConsumer, EventBus } from '../ports/bus.js';
import type { Logger } from '../ports/logger.js';

export interface DeadlineDeps extends Uses<'commands' | 'clock' | 'settle'> {
  bus: EventBus;
  log: Logger;
}

export class AcknowledgementDeadline {
  private consumer: BusConsumer | null = null;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly runtime: DeadlineDeps) {}

  async start(): Promise<void> {
    this.consumer = await this.runtime.bus.consume(
      'interaction-deadline',
      { durable: false },
      async (events) => {
        for (const event of events) this.follow(event as unknown as BotInteractionEvent);
      },
      (error) => this.runtime.log.fatal({ err: error }, 'interaction deadlines stopped'),
    );
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await this.consumer?.stop();
  }

  /** Endpoint deliveries are bounded by their own request, which records their failure. */
  private follow(event: BotInteractionEvent) {
    if (event.type !== 'InteractionCreated' || event.data.delivery === 'endpoint') return;
    const { id, createdAt } = event.data.interaction;
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        failInteraction(this.runtime, id, 'not_acknowledged').catch((error: unknown) =>
          this.runtime.log.error({ err: error, interactionId: id }, 'failing an unacknowledged interaction failed'),
        );
      },
      Math.max(0, Date.parse(createdAt) + ACKNOWLEDGE_WITHIN_MS + 1 - this.runtime.clock.now()),
    );
    this.timers.add(timer);
  }
}
