// The delivery worker: POSTs each queued click to its webhook's interaction_url, signed with the webhook's token, and
// records every attempt and outcome as events (commands/interactions.ts). The schedule lives in the log: the worker
// learns of new clicks and retries from the event bus, and from the interactions read model at start and every
// sweep (what was due while it was down, or what a lagging read model hid at start). Each attempt is claimed by an
// append on the interaction's stream before its request goes out, so two workers never make the same attempt.
import type { Uses } from '../commands/deps.js';
import { USER_AGENT } from '../commands/interactionEndpoint.js';
import { recordAttempt, startAttempt } from '../commands/interactions.js';
import { webhookStream } from '../commands/streams.js';
import { type AttemptResult, type InteractionState, backoffDelay } from '../domain/interaction.js';
import { webhookDecider } from '../domain/webhook.js';
import { interactionsWithStatus } from '../projections/interactions.queries.js';
import type { EventBus } from '../ports/bus.js';
import type { Config } from '../ports/config.js';
import type { Logger } from '../ports/logger.js';
import type { Metrics } from '../ports/metrics.js';
import { OutboundUrlError, type PostJson } from '../ports/outbound.js';
import { BusFollower, reactor } from '../projections/reactor.js';

/** An attempt whose outcome was never recorded (its worker stopped mid-request) counts as failed after this grace. */
const ORPHAN_GRACE_MS = 5000;
const SWEEP_INTERVAL_MS = 30_000;

/** What the worker needs: the command side, the bus it learns of clicks from, its settings and a log. */
export interface DeliveryDeps extends Uses<'commands' | 'readStore' | 'secrets' | 'clock'> {
  config: Config;
  log: Logger;
  bus: EventBus;
  metrics: Pick<Metrics, 'delivery'>;
}

/** How a delivery goes out: the outbound port's POST (SSRF-checked on every connection) and the request signature. */
export interface DeliveryOutbound {
  postJson: PostJson;
  sign(token: string, timestamp: string, rawBody: string): string;
}

/** Schedules an interaction's attempt `attempt` at `dueAt` (ms since the epoch). */
type Schedule = (interactionId: string, attempt: number, dueAt: number) => void;

/** A click with somewhere to go is delivered at once, a failed attempt that may be retried at its retry time. */
const delivery = reactor({
  name: 'delivery',
  handles: ['InteractionClicked', 'InteractionDeliveryFailed'],
  react(events, schedule: Schedule) {
    for (const event of events) {
      if (event.type === 'InteractionClicked') {
        if (event.data.deliveryUrl) schedule(event.data.interaction.id, 1, Date.parse(event.data.clickedAt));
      } else if (event.data.retryAt) schedule(event.data.interactionId, event.data.attempt + 1, Date.parse(event.data.retryAt));
    }
  },
});

export class DeliveryWorker {
  private readonly follower: BusFollower<Schedule>;
  private sweeper: NodeJS.Timeout | null = null;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly runtime: DeliveryDeps,
    private readonly outbound: DeliveryOutbound,
  ) {
    const schedule: Schedule = (interactionId, attempt, dueAt) => this.schedule(interactionId, attempt, dueAt);
    this.follower = new BusFollower(delivery, schedule, runtime.bus, (error) => runtime.log.fatal({ err: error }, 'delivery worker stopped'));
  }

  async start(): Promise<void> {
    await this.follower.start();
    await this.sweep();
    this.sweeper = setInterval(() => void this.sweep().catch((error) => this.runtime.log.error({ err: error }, 'delivery sweep failed')), SWEEP_INTERVAL_MS);
  }

  /** Schedules what the read model has queued or in flight and this worker has no timer for. */
  private async sweep() {
    const { readStore } = this.runtime;
    for (const doc of await interactionsWithStatus(readStore, 'queued')) {
      if (!this.timers.has(doc._id)) this.schedule(doc._id, doc.attempts.length + 1, Date.parse(doc.next_attempt_at ?? doc.clicked_at));
    }
    for (const doc of await interactionsWithStatus(readStore, 'in_flight')) {
      const last = doc.attempts[doc.attempts.length - 1];
      if (!this.timers.has(doc._id))
        this.at(doc._id, Date.parse(last.started_at) + this.runtime.config.deliveryTimeoutMs + ORPHAN_GRACE_MS, () => this.failOrphan(doc._id, last.attempt));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweeper ?? undefined);
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await this.follower.stop();
    await Promise.allSettled([...this.running]);
  }

  private schedule(interactionId: string, attempt: number, dueAt: number) {
    this.at(interactionId, dueAt, () => this.attempt(interactionId, attempt));
  }

  /** Runs `task` at `dueAt`; one timer per interaction, the latest schedule wins. */
  private at(interactionId: string, dueAt: number, task: () => Promise<void>) {
    if (this.stopped) return;
    clearTimeout(this.timers.get(interactionId));
    const timer = setTimeout(
      () => {
        this.timers.delete(interactionId);
        const run = task().catch((error) => this.runtime.log.error({ err: error, interactionId }, 'delivery attempt failed to run'));
        this.running.add(run);
        void run.finally(() => this.running.delete(run));
      },
      Math.max(0, dueAt - this.runtime.clock.now()),
    );
    this.timers.set(interactionId, timer);
  }

  private async attempt(interactionId: string, attempt: number) {
    const claimed = this.stopped ? null : await startAttempt(this.runtime, interactionId, attempt);
    if (!claimed) return;
    await this.record(interactionId, attempt, await this.post(claimed));
  }

  /** One signed POST of the interaction to its webhook's current interaction_url. */
  private async post(state: InteractionState): Promise<AttemptResult> {
    const { commands, secrets, config } = this.runtime;
    const webhook = (await commands.load(webhookStream(state.webhookId!), webhookDecider)).state;
    if (webhook.status !== 'active') return { refused: 'the webhook was deleted' };
    const url = webhook.webhook!.interaction_url;
    if (!url) return { refused: 'the webhook no longer has an interaction_url' };
    const body = JSON.stringify(state.interaction);
    const timestamp = String(Math.floor(this.runtime.clock.now() / 1000));
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      'X-Service-Timestamp': timestamp,
      'X-Service-Signature': this.outbound.sign(secrets.open(webhook.credential!.sealedToken), timestamp, body),
    };
    try {
      const { status } = await this.outbound.postJson(url, body, headers, {
        allowPrivate: config.interactionsAllowPrivate,
        timeoutMs: config.deliveryTimeoutMs,
      });
      return { status };
    } catch (error) {
      if (error instanceof OutboundUrlError) return { refused: error.message };
      return { error: error instanceof Error ? error.message : String(error) };
    }
  }

  private async record(interactionId: string, attempt: number, result: AttemptResult) {
    const delay = backoffDelay(attempt, this.runtime.config.deliveryBackoffBaseMs, Math.random());
    const events = await recordAttempt(this.runtime, interactionId, attempt, result, delay);
    if (events?.[0]) this.runtime.metrics.delivery(events[0].type);
    if (events)
      this.runtime.log.info(
        { interactionId, attempt, outcome: events[0]?.type, status: 'status' in result ? result.status : undefined },
        'interaction delivery attempt',
      );
  }

  private async failOrphan(interactionId: string, attempt: number) {
    await this.record(interactionId, attempt, { error: 'the attempt was interrupted before its outcome was recorded' });
  }
}
