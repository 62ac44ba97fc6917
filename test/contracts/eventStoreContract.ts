// The behaviour every event store adapter must show, run against each of them (embedded SQLite always, the real
// engines when a Docker engine is there). Tests write to streams of their own and filter $all by them, so the suite
// also holds on a log that other tests, or the engine itself, write to.
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type EventMetadata,
  type EventStore,
  type NewEvent,
  type Position,
  type RecordedEvent,
  WrongExpectedVersionError,
  comparePositions,
  decodePosition,
  encodePosition,
} from '../../ports/eventStore.js';
import { eventually } from './eventually.js';

export interface EventStoreContractOptions {
  /** The factory hands out a store whose log holds no event yet. */
  startsEmpty?: boolean;
}

const metadata: EventMetadata = {
  actorId: '1234',
  reason: 'tidying up',
  correlationId: 'corr-1',
  causationId: 'cause-1',
  createdAt: '2024-05-01T12:00:00.000Z',
};

function events(count: number, type = 'Noted', from = 0): NewEvent[] {
  return Array.from({ length: count }, (_, i) => ({ type, data: { n: from + i }, metadata }));
}

export function describeEventStoreContract(name: string, factory: () => Promise<EventStore>, options: EventStoreContractOptions = {}): void {
  describe(`${name}: event store contract`, () => {
    let store: EventStore;
    let prefix: string;
    let mark: Position | null;
    const stream = (label: string) => `${prefix}${label}`;
    const ours = (list: RecordedEvent[]) => list.filter((e) => e.streamId.startsWith(prefix));

    beforeEach(async () => {
      store = await factory();
      prefix = `c${randomUUID().replaceAll('-', '').slice(0, 12)}-`;
      mark = await store.headPosition();
    });
    afterEach(async () => {
      await store.close();
    });

    /** This test's events in the log, in log order. */
    async function readOurs(): Promise<RecordedEvent[]> {
      const found: RecordedEvent[] = [];
      let from = mark ?? undefined;
      for (;;) {
        // readAll starts at its position inclusively: drop what the previous page already gave.
        const page = (await store.readAll({ fromPosition: from, maxCount: 500 })).filter((e) => !from || comparePositions(e.position, from) > 0);
        if (page.length === 0) return found;
        found.push(...ours(page));
        from = page[page.length - 1].position;
      }
    }

    describe('appending with an expected revision', () => {
      it('no_stream creates a stream and refuses an existing one', async () => {
        const first = await store.appendToStream(stream('a'), events(1), { expectedRevision: 'no_stream' });
        expect(first.nextExpectedRevision).toBe(0n);
        const refused = store.appendToStream(stream('a'), events(1), { expectedRevision: 'no_stream' });
        await expect(refused).rejects.toBeInstanceOf(WrongExpectedVersionError);
        await expect(refused).rejects.toMatchObject({ streamId: stream('a'), expected: 'no_stream', actual: 0n });
      });

      it('stream_exists refuses a missing stream and accepts an existing one', async () => {
        const refused = store.appendToStream(stream('b'), events(1), { expectedRevision: 'stream_exists' });
        await expect(refused).rejects.toBeInstanceOf(WrongExpectedVersionError);
        await expect(refused).rejects.toMatchObject({ streamId: stream('b'), actual: 'no_stream' });
        await store.appendToStream(stream('b'), events(2));
        const accepted = await store.appendToStream(stream('b'), events(1), { expectedRevision: 'stream_exists' });
        expect(accepted.nextExpectedRevision).toBe(2n);
      });

      it('an exact revision must be the last revision of the stream', async () => {
        const { nextExpectedRevision } = await store.appendToStream(stream('c'), events(3));
        expect(nextExpectedRevision).toBe(2n);
        const stale = store.appendToStream(stream('c'), events(1), { expectedRevision: 1n });
        await expect(stale).rejects.toBeInstanceOf(WrongExpectedVersionError);
        await expect(stale).rejects.toMatchObject({ streamId: stream('c'), expected: 1n, actual: 2n });
        const missing = store.appendToStream(stream('missing'), events(1), { expectedRevision: 0n });
        await expect(missing).rejects.toMatchObject({ actual: 'no_stream' });
        const next = await store.appendToStream(stream('c'), events(2), { expectedRevision: 2n });
        expect(next.nextExpectedRevision).toBe(4n);
      });

      it('any appends whatever the stream holds, and is the default', async () => {
        await store.appendToStream(stream('d'), events(1), { expectedRevision: 'any' });
        const result = await store.appendToStream(stream('d'), events(1));
        expect(result.nextExpectedRevision).toBe(1n);
      });

      it('a refused append writes nothing', async () => {
        await store.appendToStream(stream('e'), events(1));
        await expect(store.appendToStream(stream('e'), events(3), { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(WrongExpectedVersionError);
        expect(await store.readStream(stream('e'))).toHaveLength(1);
      });

      it('of concurrent appends at the same revision, exactly one wins', async () => {
        await store.appendToStream(stream('f'), events(1));
        const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => store.appendToStream(stream('f'), events(1), { expectedRevision: 0n })));
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(WrongExpectedVersionError);
        expect(await store.readStream(stream('f'))).toHaveLength(2);
      });
    });

    describe('recorded events', () => {
      it('keep id, type, data, metadata and schema version, and get stream, revision and position', async () => {
        const id = randomUUID();
        const result = await store.appendToStream(stream('g'), [
          { id, type: 'Renamed', data: { name: 'ünïcode ✓', nested: { list: [1, 2] } }, metadata, schemaVersion: 3 },
          { type: 'Noted', data: {}, metadata: { actorId: null, createdAt: metadata.createdAt } },
        ]);
        const [first, second] = await store.readStream(stream('g'));
        expect(first).toMatchObject({
          id,
          streamId: stream('g'),
          revision: 0n,
          type: 'Renamed',
          data: { name: 'ünïcode ✓', nested: { list: [1, 2] } },
          metadata,
          schemaVersion: 3,
        });
        expect(second.schemaVersion).toBe(1);
        expect(second.metadata).toEqual({ actorId: null, createdAt: metadata.createdAt });
        expect(second.id).toMatch(/^[0-9a-f-]{36}$/);
        expect(comparePositions(first.position, second.position)).toBeLessThan(0);
        expect(result.position).toEqual(second.position);
      });
    });

    describe('ordering', () => {
      it('revisions are consecutive per stream and positions grow in the order of appends', async () => {
        await store.appendToStream(stream('h'), events(3));
        await store.appendToStream(stream('i'), events(2));
        await store.appendToStream(stream('h'), events(2, 'Noted', 3));
        const h = await store.readStream(stream('h'));
        expect(h.map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n, 4n]);
        expect(h.map((e) => (e.data as { n: number }).n)).toEqual([0, 1, 2, 3, 4]);
        const all = await readOurs();
        expect(all.map((e) => `${e.streamId.slice(prefix.length)}:${e.revision}`)).toEqual(['h:0', 'h:1', 'h:2', 'i:0', 'i:1', 'h:3', 'h:4']);
        for (let i = 1; i < all.length; i++) expect(comparePositions(all[i - 1].position, all[i].position)).toBeLessThan(0);
      });
    });

    describe('reading a stream', () => {
      beforeEach(async () => {
        await store.appendToStream(stream('r'), events(10));
      });

      it('forwards from a revision, with a count', async () => {
        const page = await store.readStream(stream('r'), { fromRevision: 4n, maxCount: 3 });
        expect(page.map((e) => e.revision)).toEqual([4n, 5n, 6n]);
        expect((await store.readStream(stream('r'))).map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n]);
        expect(await store.readStream(stream('r'), { fromRevision: 10n })).toEqual([]);
      });

      it('backwards from the end or from a revision', async () => {
        expect((await store.readStream(stream('r'), { direction: 'backwards', maxCount: 2 })).map((e) => e.revision)).toEqual([9n, 8n]);
        expect((await store.readStream(stream('r'), { direction: 'backwards', fromRevision: 2n })).map((e) => e.revision)).toEqual([2n, 1n, 0n]);
      });

      it('a stream that does not exist reads as empty', async () => {
        expect(await store.readStream(stream('nothing'))).toEqual([]);
        expect(await store.readStream(stream('nothing'), { direction: 'backwards' })).toEqual([]);
      });
    });

    describe('reading the global log', () => {
      it('forwards from a position (inclusive) with a count, and backwards', async () => {
        await store.appendToStream(stream('a'), events(5));
        const all = await readOurs();
        expect(all).toHaveLength(5);
        const from = all[2].position;
        const forwards = ours(await store.readAll({ fromPosition: from, maxCount: 2 }));
        expect(forwards.map((e) => e.revision)).toEqual([2n, 3n]);
        const backwards = ours(await store.readAll({ direction: 'backwards', fromPosition: from, maxCount: 2 }));
        expect(backwards.map((e) => e.revision)).toEqual([2n, 1n]);
      });

      it('a read from an encoded and decoded position continues at the same event', async () => {
        await store.appendToStream(stream('a'), events(4));
        const all = await readOurs();
        const checkpoint = decodePosition(encodePosition(all[1].position));
        expect(checkpoint).toEqual(all[1].position);
        const again = ours(await store.readAll({ fromPosition: checkpoint, maxCount: 3 }));
        expect(again.map((e) => e.id)).toEqual(all.slice(1, 4).map((e) => e.id));
      });
    });

    describe('head position', () => {
      it.runIf(options.startsEmpty)('is null on an empty log', async () => {
        expect(await store.headPosition()).toBeNull();
      });

      it('is the position of the last event appended', async () => {
        await store.appendToStream(stream('a'), events(2));
        const result = await store.appendToStream(stream('b'), events(3));
        expect(await store.headPosition()).toEqual(result.position);
        const [last] = await store.readAll({ direction: 'backwards', maxCount: 1 });
        expect(last.position).toEqual(result.position);
      });
    });

    describe('catch-up subscription', () => {
      /** Collects this test's events delivered to a subscription. */
      function collector() {
        const seen: RecordedEvent[] = [];
        return { seen, handler: (batch: RecordedEvent[]) => void seen.push(...ours(batch)) };
      }

      it('delivers from a checkpoint (exclusive), catches up across pages while appends go on, then turns live: no gap, no duplicate', async () => {
        for (let i = 0; i < 25; i++) await store.appendToStream(stream(`s${i % 5}`), events(100, 'Noted', i * 100));
        const before = await readOurs();
        const checkpoint = decodePosition(encodePosition(before[99].position));
        const seen: RecordedEvent[] = [];
        const subscription = store.subscribeToAll({ fromPosition: checkpoint }, async (batch) => {
          seen.push(...ours(batch));
          // A slow handler leaves room for the appends below to land while catching up.
          await new Promise((resolve) => setImmediate(resolve));
        });
        try {
          const concurrent = await Promise.all(Array.from({ length: 200 }, (_, i) => store.appendToStream(stream(`live${i % 7}`), events(1, 'Noted', i))));
          expect(concurrent).toHaveLength(200);
          await subscription.caughtUp();
          for (let i = 0; i < 20; i++) await store.appendToStream(stream('after'), events(1, 'Noted', i));
          const expected = (await readOurs()).slice(100);
          expect(expected).toHaveLength(2400 + 200 + 20);
          await eventually(() => expect(seen.length).toBeGreaterThanOrEqual(expected.length));
          expect(seen.map((e) => e.id)).toEqual(expected.map((e) => e.id));
        } finally {
          await subscription.stop();
        }
      });

      it('without a checkpoint starts at the beginning of the log', async () => {
        await store.appendToStream(stream('a'), events(3));
        const { seen, handler } = collector();
        const subscription = store.subscribeToAll({}, handler);
        await subscription.caughtUp();
        await subscription.stop();
        expect(seen.map((e) => e.revision)).toEqual([0n, 1n, 2n]);
      });

      it('caughtUp() resolves once everything in the log when it was called has been handled', async () => {
        await store.appendToStream(stream('a'), events(30));
        const seen: RecordedEvent[] = [];
        const subscription = store.subscribeToAll({ fromPosition: mark ?? undefined }, async (batch) => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          seen.push(...ours(batch));
        });
        await subscription.caughtUp();
        expect(seen).toHaveLength(30);
        await subscription.stop();
      });

      it('skips event types with the excluded prefix', async () => {
        await store.appendToStream(stream('a'), [...events(1, 'Kept'), ...events(2, 'Hidden.Thing'), ...events(1, 'Kept')]);
        const { seen, handler } = collector();
        const subscription = store.subscribeToAll({ fromPosition: mark ?? undefined, excludeTypePrefix: 'Hidden.' }, handler);
        await subscription.caughtUp();
        await subscription.stop();
        expect(seen.map((e) => e.type)).toEqual(['Kept', 'Kept']);
      });

      it('delivers nothing after stop()', async () => {
        const { seen, handler } = collector();
        const subscription = store.subscribeToAll({ fromPosition: mark ?? undefined }, handler);
        await store.appendToStream(stream('a'), events(1));
        await eventually(() => expect(seen).toHaveLength(1));
        await subscription.stop();
        await store.appendToStream(stream('a'), events(2));
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(seen).toHaveLength(1);
      });

      it('a handler that throws stops the subscription and is reported', async () => {
        const failure = new Error('projector broke');
        const errors: unknown[] = [];
        let calls = 0;
        const subscription = store.subscribeToAll(
          { fromPosition: mark ?? undefined },
          (batch) => {
            if (ours(batch).length === 0) return;
            calls += 1;
            throw failure;
          },
          (error) => errors.push(error),
        );
        await store.appendToStream(stream('a'), events(1));
        await eventually(() => expect(errors).toEqual([failure]));
        await store.appendToStream(stream('a'), events(1));
        await expect(subscription.caughtUp()).rejects.toBe(failure);
        expect(calls).toBe(1);
        await subscription.stop();
      });
    });
  });
}
