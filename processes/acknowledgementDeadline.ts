// The widely used API's 3-second clock for interactions sent to bots on the gateway: an interaction its bot has not
// acknowledged (answered or deferred) 3 seconds after it was made fails for its invoker, recorded as InteractionFailed
// (whose dispatch, INTERACTION_FAILURE, tells the invoker's sessions). A response that won the race makes the failure
// a no-op. Late responses are refused by the clock itself (domain/commandInteraction.ts), with or without this process;
// an interaction whose 3 seconds ran out while no process followed the log is refused as well, but is not announced.
import type { Uses } from '../commands/deps.js';
import { failInteraction } from '../commands/interactionEndpoint.js';
import { ACKNOWLEDGE_WITHIN_MS } from '../domain/commandInteraction.js';
import type { EventBus } from '../ports/bus.js';
import type { Logger } from '../ports/logger.js';
import { BusFollower, reactor } from '../projections/reactor.js';

export interface DeadlineDeps extends Uses<'commands' | 'clock' | 'settle'> {
  bus: EventBus;
  log: Logger;
}

/** Starts an interaction's 3 seconds. */
type StartClock = (interactionId: string, createdAt: string) => void;

/** Starts the clock of each interaction sent on the gateway: endpoint deliveries are bounded by their own request, which records their failure. */
const acknowledgementDeadline = reactor({
  name: 'interaction-deadline',
  handles: ['InteractionCreated'],
  react(events, startClock: StartClock) {
    for (const { data } of events) if (data.delivery !== 'endpoint') startClock(data.interaction.id, data.interaction.createdAt);
  },
});

export class AcknowledgementDeadline {
  private readonly follower: BusFollower<StartClock>;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly runtime: DeadlineDeps) {
    const startClock: StartClock = (interactionId, createdAt) => this.startClock(interactionId, createdAt);
    this.follower = new BusFollower(acknowledgementDeadline, startClock, runtime.bus, (error) =>
      runtime.log.fatal({ err: error }, 'interaction deadlines stopped'),
    );
  }

  start(): Promise<void> {
    return this.follower.start();
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await this.follower.stop();
  }

  private startClock(id: string, createdAt: string): void {
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
