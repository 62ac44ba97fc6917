// Where the HTTP API's rate-limit buckets count (http/rateLimit.ts). The embedded server counts in its own memory;
// the distributed mode counts in a store every api and gateway node shares, so N nodes behind a load balancer enforce
// one limit, not N.

/** A bucket: `points` requests per `durationSeconds` for each key, and `burst` more at once, refilled over `burstSeconds`. */
export interface BucketSpec {
  /** The bucket's name, which prefixes its keys: buckets of one name share their counts. */
  name: string;
  points: number;
  durationSeconds: number;
  burst?: number;
  burstSeconds?: number;
}

/** A request counted: whether the bucket refused it, the points left in the window, and when the window ends. */
export interface Spent {
  limited: boolean;
  remaining: number;
  msBeforeNext: number;
}

export interface RateCounter {
  /** Counts one request of `key`. */
  consume(key: string): Promise<Spent>;
}

export interface RateLimits {
  counter(bucket: BucketSpec): RateCounter;
}
