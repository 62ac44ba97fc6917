// Admission: a process takes at most MAX_REQUESTS_IN_FLIGHT requests at once and answers the rest at once with 503 and
// Retry-After, before their body is read. Under overload a request then waits behind a bounded amount of work (its
// latency is about the requests ahead of it divided by the rate they are served at) or is refused in a millisecond,
// instead of queueing until its client gives up. The count of requests in flight is the measure because it is the
// queue itself: the event loop's delay shows the overload only after the queue has built (it is sampled, and lags), and
// the log's commit queue holds only the writes, so it misses a flood of reads. 429 stays the rate limits'.
import type { Context, Next } from 'koa';
import { versionOf } from './apiVersions.js';
import { closeAfterAnswer } from './lingeringClose.js';

/** The seconds a refused client is asked to wait: the queue it was refused by drains within that. */
export const OVERLOAD_RETRY_AFTER_S = 1;

/** A body larger than this is not read to keep the connection after a refusal: the connection closes instead. */
const DRAIN_ON_REFUSAL_BYTES = 64 * 1024;

/** `limit` requests at once (0: no limit); the operator's endpoints are answered before this, and never refused. */
export function admission(limit: number) {
  let inFlight = 0;
  return async function admit(ctx: Context, next: Next) {
    if (limit === 0) return next();
    if (inFlight >= limit) return refuse(ctx);
    inFlight += 1;
    try {
      await next();
    } finally {
      inFlight -= 1;
    }
  };
}

function refuse(ctx: Context): void {
  ctx.status = 503;
  ctx.set('Retry-After', String(OVERLOAD_RETRY_AFTER_S));
  ctx.body = {
    code: versionOf(ctx).errorCodes.SERVICE_UNAVAILABLE ?? 'SERVICE_UNAVAILABLE',
    message: `The server is busy: try again in ${OVERLOAD_RETRY_AFTER_S} second`,
  };
  // Node reads a small unread body on to keep the connection; a large or unannounced one is not worth reading.
  const length = ctx.request.length;
  if ((length === undefined && ctx.get('transfer-encoding') !== '') || (length ?? 0) > DRAIN_ON_REFUSAL_BYTES) closeAfterAnswer(ctx);
}
