// What every shared rate-limit store (infra/rateLimits/*) must do: nodes of one deployment spend one budget per bucket
// and key, and a node whose store fails goes on counting in its own memory instead of failing the request.
import { describe, expect, it } from 'vitest';
import type { RateLimits } from '../../ports/rateLimits.js';

/**
 * `open` gives two nodes' counters over one fresh store, standing for two api processes, and `breakFirst` makes the
 * first node's store fail from then on (its connection closed), as an unreachable store does.
 */
export function describeRateLimitsContract(
  name: string,
  open: () => Promise<{ first: RateLimits; second: RateLimits; breakFirst(): Promise<void>; close(): Promise<void> }>,
): void {
  describe(`${name} rate limits`, () => {
    const bucket = { name: 'invites:get', points: 3, durationSeconds: 60 };

    it('gives two nodes one budget per bucket and key: what one spends, the other cannot', async () => {
      const { first, second, close } = await open();
      try {
        const [a, b] = [first.counter(bucket), second.counter(bucket)];
        expect(await a.consume('token-1')).toMatchObject({ limited: false, remaining: 2 });
        expect(await b.consume('token-1')).toMatchObject({ limited: false, remaining: 1 });
        expect(await a.consume('token-1')).toMatchObject({ limited: false, remaining: 0 });
        const refused = await b.consume('token-1');
        expect(refused).toMatchObject({ limited: true, remaining: 0 });
        expect(refused.msBeforeNext).toBeGreaterThan(55_000);
        expect((await a.consume('token-1')).limited).toBe(true);
        // Another key, and another bucket of the same key, have budgets of their own.
        expect(await b.consume('token-2')).toMatchObject({ limited: false, remaining: 2 });
        expect(await second.counter({ ...bucket, name: 'invites:accept' }).consume('token-1')).toMatchObject({ limited: false, remaining: 2 });
      } finally {
        await close();
      }
    });

    it('shares a bucket’s burst too', async () => {
      const { first, second, close } = await open();
      try {
        const bursty = { name: 'users:@me:guilds', points: 1, durationSeconds: 60, burst: 1, burstSeconds: 60 };
        expect((await first.counter(bursty).consume('token-1')).limited).toBe(false);
        expect((await second.counter(bursty).consume('token-1')).limited).toBe(false);
        expect((await first.counter(bursty).consume('token-1')).limited).toBe(true);
      } finally {
        await close();
      }
    });

    it('counts in the node’s own memory while its store fails: requests are answered, and limited there', async () => {
      const { first, second, breakFirst, close } = await open();
      try {
        const a = first.counter(bucket);
        expect(await a.consume('token-1')).toMatchObject({ limited: false, remaining: 2 });
        await breakFirst();
        // The shared count is out of reach: the node's own memory starts from nothing, and still holds the limit.
        expect(await a.consume('token-1')).toMatchObject({ limited: false, remaining: 2 });
        expect(await a.consume('token-1')).toMatchObject({ limited: false, remaining: 1 });
        expect(await a.consume('token-1')).toMatchObject({ limited: false, remaining: 0 });
        expect(await a.consume('token-1')).toMatchObject({ limited: true, remaining: 0 });
        // The other node still counts in the store, where the first node's spending before the failure is.
        expect(await second.counter(bucket).consume('token-1')).toMatchObject({ limited: false, remaining: 1 });
      } finally {
        await close();
      }
    });
  });
}
