// The gateway projector: follows the log live (through the event bus: the log itself in the embedded default, Kafka
// in the distributed mode) and turns each event into dispatches for the sessions of this process.
// It waits for the read models to include an event before deriving from it, so payloads built from read models
// (full objects, as clients expect) reflect the event they announce.
import { setTimeout as sleep } from 'node:timers/promises';
import { erasures } from '../domain/personalData.js';
import { outageOf } from '../ports/outages.js';
import { BusFollower, reactor } from '../projections/reactor.js';
import type { GatewayDeps } from './deps.js';
import type { Dispatch } from './dispatch.js';
import { deriveDispatches } from './dispatches/index.js';
import { presencesOnJoin } from './dispatches/presence.js';
import { typingDispatch } from './dispatches/typing.js';
import { loadingOncePerEvent } from './eventLoads.js';
import type { Presences } from './presence.js';
import { CloseCode } from './protocol.js';
import type { SessionRegistry } from './registry.js';
import { channelVisibility } from './visibility.js';

/** What a gateway node projects the log onto: its sessions, and the presences that go with a join. */
interface GatewayProjection {
  runtime: GatewayDeps;
  registry: SessionRegistry;
  presences: Presences;
  /** Aborted when the projector stops: a step waiting an outage out gives up then. */
  stopping: AbortSignal;
}

/** How long a step waits before trying again while an engine is out of reach: doubling, up to the most. */
const OUTAGE_RETRY_MS = { first: 100, most: 2000 } as const;

/**
 * Runs `step`, again and again while it fails on an engine's outage (the read models' or the log's database
 * restarting): an event whose dispatch met the outage was acknowledged to its sender, and skipping it would leave
 * every session without it. A step run again goes on from where it failed, and a dispatch that failed had sent nothing
 * (deriving dispatches reads only; routing one looks its audience up before it sends), so nothing goes out twice.
 * One step an event: a wrapper a dispatch cost a gateway node's consumer 9 % of its events/s.
 */
async function outlastingOutages<T>(step: () => Promise<T>, { runtime, stopping }: GatewayProjection): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await step();
    } catch (error) {
      const outage = outageOf(error);
      if (!outage || stopping.aborted) throw error;
      if (attempt === 0) runtime.log.warn({ reason: outage }, 'dispatch waits for an engine out of reach');
      await sleep(Math.min(OUTAGE_RETRY_MS.first * 2 ** attempt, OUTAGE_RETRY_MS.most), undefined, { signal: stopping }).catch(() => {});
    }
  }
}

const gatewayProjector = reactor({
  name: 'gateway',
  handles: 'every event',
  async react(events, projection: GatewayProjection) {
    const { runtime, registry, presences } = projection;
    const presenceOf = (userId: string) => presences.of(userId);
    for (const event of events) {
      try {
        // Deriving and routing share the aggregates' states loaded for this event: each is loaded once.
        const scoped = loadingOncePerEvent(runtime);
        const visibility = channelVisibility(scoped);
        let derived: Dispatch[] | null = null;
        let routed = 0;
        // Run again after an outage from where it failed: the dispatches routed before it are not routed twice.
        const dispatches = await outlastingOutages(async () => {
          await runtime.projections.waitFor(event.position);
          if (!derived) {
            // Before this event's own dispatches: an edit's MESSAGE_UPDATE shows the version whose key is kept.
            registry.erased(erasures(event).map((erasure) => erasure.subject));
            derived = await deriveDispatches(event, scoped, registry);
          }
          for (; routed < derived.length; routed += 1) await registry.route(derived[routed], visibility);
          return derived;
        }, projection);
        // A deleted account's tokens are gone: its open sessions end as a bad token's IDENTIFY would.
        if (event.type === 'UserErased') registry.endSessionsOf(event.data.userId, CloseCode.AuthenticationFailed, 'Authentication failed');
        // Presences of a join go after all of its dispatches: clients drop a presence of a member they do not know.
        const joinPresences = dispatches.flatMap((dispatch) => presencesOnJoin(dispatch, presenceOf));
        let announced = 0;
        if (joinPresences.length)
          await outlastingOutages(async () => {
            for (; announced < joinPresences.length; announced += 1) await registry.route(joinPresences[announced], visibility);
          }, projection);
      } catch (error) {
        // One event that cannot be dispatched must not stop the gateway for every other event.
        runtime.log.error({ err: error, type: event.type, position: String(event.position.commit) }, 'dispatch failed');
      }
    }
  },
});

export class GatewayProjector {
  private readonly follower: BusFollower<GatewayProjection>;
  private readonly stopping = new AbortController();
  private unsubscribeHints: (() => void) | null = null;

  constructor(
    private readonly runtime: GatewayDeps,
    private readonly registry: SessionRegistry,
    presences: Presences,
  ) {
    this.follower = new BusFollower(gatewayProjector, { runtime, registry, presences, stopping: this.stopping.signal }, runtime.bus, (error) =>
      runtime.log.fatal({ err: error }, 'gateway projector stopped'),
    );
  }

  async start(): Promise<void> {
    // Each gateway node sees every event from the live end on: its sessions are its own.
    await this.follower.start();
    this.unsubscribeHints = this.runtime.hints.subscribe((hint) => {
      if (hint.type !== 'TYPING_START') return;
      this.registry.route(typingDispatch(hint)).catch((error) => this.runtime.log.error({ err: error }, 'typing dispatch failed'));
    });
  }

  async stop(): Promise<void> {
    this.unsubscribeHints?.();
    this.stopping.abort();
    await this.follower.stop();
  }
}
