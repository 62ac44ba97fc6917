// What the gateway needs of the process it runs in. The composition root hands it the runtime, which has all of it.
import type { CommandDeps } from '../commands/deps.js';
import type { EventBus } from '../ports/bus.js';
import type { Config } from '../ports/config.js';
import type { Position } from '../ports/eventStore.js';
import type { HintBus } from '../ports/hints.js';
import type { Leases } from '../ports/leases.js';
import type { Logger } from '../ports/logger.js';

export interface GatewayDeps extends CommandDeps {
  config: Config;
  log: Logger;
  hints: HintBus;
  /** The log's events, from which the gateway projector derives dispatches. */
  bus: EventBus;
  /** The read models' progress: an event is dispatched once the read models show it. */
  projections: { waitFor(position: Position | null): Promise<void> };
  /** Where gateway nodes hold their leases, by which the others know which are running (gateway/nodeLease.ts). */
  leases: Leases;
}
