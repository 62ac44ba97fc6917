// The rate-limit port over rate-limiter-flexible: the embedded server's buckets in memory, the distributed mode's in a
// store all nodes share (infra/rateLimits/mongo.ts), each with the memory of its own process as insurance.
import {
  BurstyRateLimiter,
  type IRateLimiterOptions,
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRes,
  type RateLimiterStoreAbstract,
} from 'rate-limiter-flexible';
import type { BucketSpec, RateCounter, RateLimits, Spent } from '../../ports/rateLimits.js';

type LimiterOptions = Required<Pick<IRateLimiterOptions, 'points' | 'duration' | 'keyPrefix'>>;

abstract class LimiterCounters implements RateLimits {
  protected abstract limiter(options: LimiterOptions): RateLimiterAbstract;

  counter(bucket: BucketSpec): RateCounter {
    const main = this.limiter({ points: bucket.points, duration: bucket.durationSeconds, keyPrefix: bucket.name });
    const limiter = bucket.burst
      ? new BurstyRateLimiter(
          main,
          this.limiter({ points: bucket.burst, duration: bucket.burstSeconds ?? bucket.durationSeconds * 10, keyPrefix: `${bucket.name}:burst` }),
        )
      : main;
    return {
      async consume(key: string): Promise<Spent> {
        try {
          const result = await limiter.consume(key);
          return { limited: false, remaining: result.remainingPoints, msBeforeNext: result.msBeforeNext };
        } catch (rejection) {
          if (!(rejection instanceof RateLimiterRes)) throw rejection;
          return { limited: true, remaining: 0, msBeforeNext: rejection.msBeforeNext };
        }
      },
    };
  }
}

/** Buckets in this process's memory: the embedded server, the one process that serves HTTP. */
export class MemoryRateLimits extends LimiterCounters {
  protected limiter(options: LimiterOptions): RateLimiterAbstract {
    return new RateLimiterMemory(options);
  }
}

/**
 * Buckets in a store every node shares, made by `store` for each bucket. While the store cannot be reached each node
 * counts in its own memory instead (rate-limiter-flexible's insurance limiter): for that while the limits hold per node,
 * and a request is counted and answered rather than failed with a 5xx.
 */
export class SharedRateLimits extends LimiterCounters {
  constructor(private readonly store: (options: LimiterOptions & { insuranceLimiter: RateLimiterAbstract }) => RateLimiterStoreAbstract) {
    super();
  }

  protected limiter(options: LimiterOptions): RateLimiterAbstract {
    return this.store({ ...options, insuranceLimiter: new RateLimiterMemory(options) });
  }
}
