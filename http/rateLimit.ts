// Per-route buckets as the spec's Limits table, with the headers clients of the widely used API read on every answer
// of a limited route (X-RateLimit-Limit, -Remaining, -Reset, -Reset-After, -Bucket); a refusal's own headers and body
// are the error handler's. There is no global limit, so X-RateLimit-Global is never sent: @discordjs/rest takes its
// mere presence, whatever its value, for a global 429. Where the buckets count (this process's memory, or a store
// all nodes share) is the rate-limit port's.
import { createHash } from 'node:crypto';
import type { Context, Next } from 'koa';
import { DomainError } from '../domain/errors.js';
import type { RateLimits } from '../ports/rateLimits.js';

export interface LimitSpec {
  /** Bucket name; the X-RateLimit-Bucket header carries a hash of it. */
  bucket: string;
  points: number;
  durationSeconds: number;
  /** Extra requests allowed at once beyond `points`, refilled over burstSeconds. */
  burst?: number;
  burstSeconds?: number;
  /** What the bucket counts per: the token by default (the client address without one). */
  key?: (ctx: Context) => string;
}

const defaultKey = (ctx: Context) => (ctx.state.auth?.tokenHash as string | undefined) ?? `ip:${ctx.ip}`;

export function rateLimit(spec: LimitSpec, counters: RateLimits) {
  const counter = counters.counter({
    name: spec.bucket,
    points: spec.points,
    durationSeconds: spec.durationSeconds,
    burst: spec.burst,
    burstSeconds: spec.burstSeconds,
  });
  const bucketHash = createHash('sha1').update(spec.bucket).digest('hex').slice(0, 16);
  const keyOf = spec.key ?? defaultKey;

  return async function limitRate(ctx: Context, next: Next) {
    const { limited, remaining, msBeforeNext } = await counter.consume(keyOf(ctx));
    const resetAfter = Math.max(msBeforeNext, 1) / 1000;
    ctx.set('X-RateLimit-Limit', String(spec.points));
    ctx.set('X-RateLimit-Remaining', String(Math.max(remaining, 0)));
    ctx.set('X-RateLimit-Reset', ((Date.now() + msBeforeNext) / 1000).toFixed(3));
    ctx.set('X-RateLimit-Reset-After', resetAfter.toFixed(3));
    ctx.set('X-RateLimit-Bucket', bucketHash);
    if (limited) throw new RateLimited(resetAfter);
    return next();
  };
}

export class RateLimited extends DomainError {
  declare readonly retryAfter: number;
  constructor(retryAfter: number) {
    super('rate_limited', 'RATE_LIMITED', 'You are being rate limited.', undefined, retryAfter);
  }
}
