// The catch-up subscription every embedded follower reads the log through (projectors, the key shredder, the
// attachment remover): a long catch-up must leave room for the rest of the process, which on a log grown while the
// server was stopped could otherwise not even start listening until every follower had caught up.
import { describe, expect, it } from 'vitest';
import { CatchUpSubscription } from '../../infra/eventStore/catchUp.js';
import type { Position, RecordedEvent } from '../../ports/eventStore.js';

const PAGES = 40;
const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe('CatchUpSubscription', () => {
  it('lets timers and I/O run while it catches up on a long log, and still reads every page in order', async () => {
    const position = (n: number): Position => ({ commit: BigInt(n), prepare: BigInt(n) });
    const event = (n: number) => ({ type: 'NoteAdded', position: position(n) }) as unknown as RecordedEvent;
    let pagesRead = 0;
    const handled: number[] = [];
    const subscription = new CatchUpSubscription({
      from: null,
      // As the embedded log reads: synchronously, a few milliseconds a page, resolved at once.
      readPage: (after) => {
        const next = after === null ? 0 : Number(after.commit) + 1;
        if (next >= PAGES) return Promise.resolve([]);
        busy(5);
        pagesRead += 1;
        return Promise.resolve([event(next)]);
      },
      head: () => Promise.resolve(position(PAGES - 1)),
      handler: (events) => {
        handled.push(...events.map((e) => Number(e.position.commit)));
        return Promise.resolve();
      },
    });
    let pagesWhenTimerRan: number | null = null;
    setTimeout(() => (pagesWhenTimerRan = pagesRead), 0);
    subscription.start();
    await subscription.caughtUp();
    await subscription.stop();
    expect(handled).toEqual(Array.from({ length: PAGES }, (_, n) => n));
    expect(pagesWhenTimerRan).not.toBeNull();
    expect(pagesWhenTimerRan).toBeLessThan(PAGES / 2);
  });
});
