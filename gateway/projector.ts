// The gateway projector: follows the log live (through the event bus: the log itself in the embedded default, Kafka
// in the distributed mode) and turns each event into dispatches for the sessions of this process.
// It waits for the read models to include an event before deriving from it, so payloads built from read models
// (full objects, as clients expect) reflect the event they announce.
import type { BusConsumer } from '../infra/bus/port.js';
import type { RecordedEvent } from '../infra/eventStore/port.js';
import type { Runtime } from '../infra/runtime.js';
import { deriveDispatches } from './dispatches/index.js';
import { typingDispatch } from './dispatches/typing.js';
import type { SessionRegistry } from './registry.js';

export class GatewayProjector {
  private consumer: BusConsumer | null = null;
  private unsubscribeHints: (() => void) | null = null;

  constructor(
    private readonly runtime: Runtime,
    private readonly registry: SessionRegistry,
  ) {}

  async start(): Promise<void> {
    // Each gateway node sees every event from the live end on: its sessions are its own.
    this.consumer = await this.runtime.bus.consume(
      'gateway',
      { durable: false },
      (events) => this.project(events),
      (error) => this.runtime.log.fatal({ err: error }, 'gateway projector stopped'),
    );
    this.unsubscribeHints = this.runtime.hints.subscribe((hint) => {
      this.registry.route(typingDispatch(hint)).catch((error) => this.runtime.log.error({ err: error }, 'typing dispatch failed'));
    });
  }

  private async project(events: RecordedEvent[]): Promise<void> {
    for (const event of events) {
      await this.runtime.projections.waitFor(event.position);
      try {
        for (const dispatch of await deriveDispatches(event, this.runtime)) await this.registry.route(dispatch);
      } catch (error) {
        // One event that cannot be dispatched must not stop the gateway for every other event.
        this.runtime.log.error({ err: error, type: event.type, position: String(event.position.commit) }, 'dispatch failed');
      }
    }
  }

  async stop(): Promise<void> {
    this.unsubscribeHints?.();
    await this.consumer?.stop();
  }
}
