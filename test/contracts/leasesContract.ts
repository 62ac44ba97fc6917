// What every lease store (infra/leases/*) must do: processes of one deployment never hold one name at once, a lease
// is the holder's until it expires or is released, and an expired one can be taken.
import { describe, expect, it } from 'vitest';
import type { Leases } from '../../ports/leases.js';

/** `open` gives two connections to one fresh store, standing for two processes of the deployment. */
export function describeLeasesContract(name: string, open: () => Promise<{ first: Leases; second: Leases; close(): Promise<void> }>): void {
  describe(`${name} leases`, () => {
    const T = 1_700_000_000_000;

    it('gives a name to one holder at a time, renews it for that holder, and frees it on release', async () => {
      const { first, second, close } = await open();
      try {
        expect(await first.claim('snowflake:0:0', 'a', T, T + 30_000)).toBe(true);
        expect(await second.claim('snowflake:0:0', 'b', T + 1000, T + 31_000)).toBe(false);
        expect(await second.claim('snowflake:0:1', 'b', T + 1000, T + 31_000)).toBe(true);
        expect(await first.claim('snowflake:0:0', 'a', T + 10_000, T + 40_000)).toBe(true);
        // The renewal moved the expiry: the old one is no longer enough to take it.
        expect(await second.claim('snowflake:0:0', 'b', T + 35_000, T + 65_000)).toBe(false);
        await second.release('snowflake:0:0', 'b');
        expect(await second.claim('snowflake:0:0', 'b', T + 35_000, T + 65_000)).toBe(false);
        await first.release('snowflake:0:0', 'a');
        expect(await second.claim('snowflake:0:0', 'b', T + 35_000, T + 65_000)).toBe(true);
      } finally {
        await close();
      }
    });

    it('lets an expired lease be taken, after which its old holder cannot renew it', async () => {
      const { first, second, close } = await open();
      try {
        expect(await first.claim('snowflake:1:0', 'a', T, T + 30_000)).toBe(true);
        expect(await second.claim('snowflake:1:0', 'b', T + 30_000, T + 60_000)).toBe(true);
        expect(await first.claim('snowflake:1:0', 'a', T + 30_001, T + 60_001)).toBe(false);
      } finally {
        await close();
      }
    });

    it('gives a name claimed by many holders at once to exactly one of them', async () => {
      const { first, second, close } = await open();
      try {
        const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? first : second).claim('snowflake:2:0', `holder-${i}`, T, T + 30_000)));
        expect(claims.filter(Boolean)).toHaveLength(1);
      } finally {
        await close();
      }
    });
  });
}
