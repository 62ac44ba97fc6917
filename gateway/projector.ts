// The gateway projector: follows the log live (through the event bus: the log itself in the embedded default, Kafka
// in the distributed mode) and turns each event into dispatches for the sessions of this process.
// It waits for the read models to include an event before deriving from it, so payloads built from read models
// (full objects, as clients expect) reflect the event they announce.
import { erasures } from '../domain/personalData.js';
import type { UserErased } from '../domain/user.js';
import type { BusConsumer } from '../ports/bus.js';
import type { RecordedEvent } from '../ports/eventStore.js';
import type { GatewayDeps } from './deps.js';
import { deriveDispatches } from './dispatches/index.js';
import { presencesOnJoin } from './dispatches/presence.js';
import { typingDispatch } from './dispatches/typing.js';
import type { Presences } from './presence.js';
import { CloseCode } from './protocol.js';
import type { SessionRegistry } from './registry.js';

export class GatewayProjector {
  private consumer: BusConsumer | null = null;
  private unsubscribeHints: (() => void) | null = null;

  constructor(
    private readonly runtime: GatewayDeps,
    private readonly registry: SessionRegistry,
    private readonly presences: Presences,
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
      if (hint.type !== 'TYPING_START') return;
      this.registry.route(typingDispatch(hint)).catch((error) => this.runtime.log.error({ err: error }, 'typing dispatch failed'));
    });
  }

  private async project(events: RecordedEvent[]): Promise<void> {
    for (const event of events) {
      await this.runtime.projections.waitFor(event.position);
      try {
        // Before this event's own dispatches: an edit's MESSAGE_UPDATE shows the version whose key is kept.
        this.registry.erased(erasures(event).map((erasure) => erasure.subject));
        const dispatches = await deriveDispatches(event, this.runtime, this.registry);
        for (const dispatch of dispatches) await this.registry.route(dispatch);
        // A deleted account's tokens are gone: its open sessions end as a bad token's IDENTIFY would.
        if (event.type === 'UserErased')
          this.registry.endSessionsOf((event.data as UserErased['data']).userId, CloseCode.AuthenticationFailed, 'Authentication failed');
        // Presences of a join go after all of its dispatches: clients drop a presence of a member they do not know.
        for (const dispatch of dispatches) {
          for (const presence of presencesOnJoin(dispatch, (id) => this.presences.of(id))) await this.registry.route(presence);
        }
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
