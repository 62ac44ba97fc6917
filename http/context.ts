// What route modules get: the running service, and helpers every route uses.
import type { Context } from 'koa';
import type { CommandDeps, RequestMeta } from '../commands/deps.js';
import type { GuildEventDeps } from '../commands/guildEvents.js';
import type { Config } from '../ports/config.js';
import type { EventStore } from '../ports/eventStore.js';
import type { HintBus } from '../ports/hints.js';
import type { Images } from '../ports/images.js';
import type { Logger } from '../ports/logger.js';
import type { Metrics } from '../ports/metrics.js';
import type { CheckOutboundUrl, GetBytes, PostForAnswer } from '../ports/outbound.js';
import type { RateLimits } from '../ports/rateLimits.js';

export interface HttpDeps extends CommandDeps {
  config: Config;
  log: Logger;
  hints: HintBus;
  images: Images;
  checkOutboundUrl: CheckOutboundUrl;
  /** Fetches images given by URL (emojis). */
  getBytes: GetBytes;
  /** POSTs interactions to an application's interactions endpoint and reads its answer. */
  postForAnswer: PostForAnswer;
  metrics: Metrics;
  /** Where the routes' rate-limit buckets count. */
  rateLimits: RateLimits;
  /** The log itself, for what is folded from it rather than read from the read models (a guild's history). */
  store: Pick<EventStore, 'readStream'>;
  guildEvents: GuildEventDeps['guildEvents'];
}

declare module 'koa' {
  interface DefaultState {
    requestId?: string;
    /** The route a request was answered by when no router matched it (the operator's endpoints), for the metrics. */
    route?: string;
  }
}

/** Event metadata for the request: the authenticated actor, the audit-log reason, the request id. */
export function requestMeta(ctx: Context): RequestMeta {
  const header = ctx.get('x-audit-log-reason');
  let reason: string | null = null;
  if (header) {
    try {
      reason = decodeURIComponent(header).slice(0, 512);
    } catch {
      reason = header.slice(0, 512);
    }
  }
  return { actorId: ctx.state.auth?.userId ?? null, reason, correlationId: ctx.state.requestId };
}

export function noContent(ctx: Context): void {
  ctx.status = 204;
  ctx.body = null;
}
