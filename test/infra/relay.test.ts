// The relay and the local bus on the embedded stores (real SQLite files), with a recording publisher in place of
// Kafka: order, checkpoints, restarts, failures.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalEventBus } from '../../infra/bus/local.js';
import type { EventPublisher } from '../../ports/bus.js';
import { RELAY_CHECKPOINT, Relay } from '../../infra/bus/relay.js';
import type { NewEvent, RecordedEvent } from '../../ports/eventStore.js';
import { SqliteEventStore } from '../../infra/eventStore/sqlite.js';
import { SqliteLeases } from '../../infra/leases/sqlite.js';
import { SqliteReadStore } from '../../infra/readStore/sqlite.js';
import { eventually } from '../contracts/eventually.js';

const noted = (n: number): NewEvent => ({ type: 'Noted', data: { n }, metadata: { actorId: null, createdAt: '2024-01-01T00:00:00.000Z' } });

let dir: string;
let store: SqliteEventStore;
let readStore: SqliteReadStore;
let leases: SqliteLeases;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'parley-relay-'));
  store = new SqliteEventStore(join(dir, 'events.db'));
  readStore = new SqliteReadStore(join(dir, 'read.db'));
  leases = new SqliteLeases(join(dir, 'leases.db'));
});
afterEach(async () => {
  await store.close();
  await readStore.close();
  await leases.close();
  rmSync(dir, { recursive: true, force: true });
});

class RecordingPublisher implements EventPublisher {
  published: RecordedEvent[] = [];
  failNext = false;
  async publish(events: RecordedEvent[]): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('brokers unavailable');
    }
    this.published.push(...events);
  }
  async close(): Promise<void> {}
}

describe('relay', () => {
  it('publishes what is appended in order and records its checkpoint; a restart resumes after it', async () => {
    const publisher = new RecordingPublisher();
    const relay = new Relay(store, readStore, publisher, leases, (error) => {
      throw error;
    });
    await relay.start();
    for (let i = 0; i < 30; i++) await store.appendToStream(`s-${i % 3}`, [noted(i)]);
    await relay.caughtUp();
    await relay.stop();
    expect(publisher.published.map((e) => (e.data as { n: number }).n)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(await readStore.getCheckpoint(RELAY_CHECKPOINT)).toEqual(publisher.published[29].position);

    for (let i = 30; i < 35; i++) await store.appendToStream('s-0', [noted(i)]);
    const again = new RecordingPublisher();
    const restarted = new Relay(store, readStore, again, leases, () => {});
    await restarted.start();
    await restarted.caughtUp();
    await restarted.stop();
    expect(again.published.map((e) => (e.data as { n: number }).n)).toEqual([30, 31, 32, 33, 34]);
  });

  it('a first start on a log with history publishes from its head on, not the history, and records that head at once', async () => {
    for (let i = 0; i < 20; i++) await store.appendToStream(`s-${i % 3}`, [noted(i)]);
    const head = await store.headPosition();
    const publisher = new RecordingPublisher();
    const relay = new Relay(store, readStore, publisher, leases, (error) => {
      throw error;
    });
    await relay.start();
    // Before anything new was published: a relay stopped now resumes from this head, not from a later one.
    expect(await readStore.getCheckpoint(RELAY_CHECKPOINT)).toEqual(head);
    await relay.stop();
    await store.appendToStream('s-0', [noted(20)]);
    const restarted = new Relay(store, readStore, publisher, leases, () => {});
    await restarted.start();
    await store.appendToStream('s-1', [noted(21)]);
    await restarted.caughtUp();
    await restarted.stop();
    expect(publisher.published.map((e) => (e.data as { n: number }).n)).toEqual([20, 21]);
  });

  it('a failed publish stops the relay without moving its checkpoint, so nothing is skipped', async () => {
    const publisher = new RecordingPublisher();
    const errors: unknown[] = [];
    const relay = new Relay(store, readStore, publisher, leases, (error) => errors.push(error));
    await relay.start();
    await store.appendToStream('s', [noted(1)]);
    await relay.caughtUp();
    publisher.failNext = true;
    await store.appendToStream('s', [noted(2)]);
    await eventually(() => expect(errors).toHaveLength(1));
    await relay.stop();
    const checkpoint = await readStore.getCheckpoint(RELAY_CHECKPOINT);
    expect(checkpoint).toEqual(publisher.published[0].position);

    const restarted = new Relay(store, readStore, publisher, leases, () => {});
    await restarted.start();
    await restarted.caughtUp();
    await restarted.stop();
    expect(publisher.published.map((e) => (e.data as { n: number }).n)).toEqual([1, 2]);
  });
});

describe('two relays', () => {
  const numbers = (publisher: RecordingPublisher) => publisher.published.map((e) => (e.data as { n: number }).n);
  /** A clock the test moves, shared by both relays: a lease runs out when the test says so. */
  const clock = { time: 1_700_000_000_000, now: () => clock.time };

  it('publish one at a time: the second stands by, and takes over from the checkpoint when the first stops', async () => {
    const [first, second] = [new RecordingPublisher(), new RecordingPublisher()];
    const leader = new Relay(store, readStore, first, leases, () => {}, clock);
    const standby = new Relay(store, readStore, second, leases, () => {}, clock);
    try {
      await leader.start();
      await standby.start();
      for (let i = 0; i < 10; i++) await store.appendToStream(`s-${i % 3}`, [noted(i)]);
      await leader.caughtUp();
      await standby.tick();
      expect([leader.publishing, standby.publishing]).toEqual([true, false]);
      expect(numbers(first)).toEqual(Array.from({ length: 10 }, (_, i) => i));

      await leader.stop();
      await store.appendToStream('s-0', [noted(10)]);
      await standby.tick();
      await standby.caughtUp();
      expect(standby.publishing).toBe(true);
      // What the first relay published is not published again.
      expect(numbers(second)).toEqual([10]);
    } finally {
      await leader.stop();
      await standby.stop();
    }
  });

  it('a relay that stops renewing (it crashed or stalled) is taken over once its lease runs out, and stops publishing', async () => {
    const [first, second] = [new RecordingPublisher(), new RecordingPublisher()];
    const errors: unknown[] = [];
    const stalled = new Relay(store, readStore, first, leases, (error) => errors.push(error), clock);
    const standby = new Relay(store, readStore, second, leases, () => {}, clock);
    try {
      await stalled.start();
      await standby.start();
      await store.appendToStream('s', [noted(1)]);
      await stalled.caughtUp();
      clock.time += 29_000;
      await standby.tick();
      expect(standby.publishing).toBe(false);
      clock.time += 2_000;
      await standby.tick();
      expect(standby.publishing).toBe(true);
      // The stalled relay learns at its next renewal that the lease is another's, and publishes nothing more.
      await stalled.tick();
      expect(stalled.publishing).toBe(false);
      expect(String(errors[0])).toContain('another relay took the relay lease');
      await store.appendToStream('s', [noted(2)]);
      await standby.caughtUp();
      expect([numbers(first), numbers(second)]).toEqual([[1], [2]]);
    } finally {
      await stalled.stop();
      await standby.stop();
    }
  });
  it('a relay paused past its lease publishes nothing when it wakes, before its renewal has told it the lease is gone', async () => {
    const [paused, taking] = [new RecordingPublisher(), new RecordingPublisher()];
    const errors: unknown[] = [];
    const stalled = new Relay(store, readStore, paused, leases, (error) => errors.push(error), clock);
    const standby = new Relay(store, readStore, taking, leases, () => {}, clock);
    try {
      await stalled.start();
      await standby.start();
      await store.appendToStream('s', [noted(1)]);
      await stalled.caughtUp();
      clock.time += 31_000;
      await standby.tick();
      expect(standby.publishing).toBe(true);
      // The paused relay's subscription is woken by the append before its renewal comes round.
      await store.appendToStream('s', [noted(2)]);
      await standby.caughtUp();
      await eventually(() => expect(String(errors[0])).toContain('the relay lease may have run out'));
      expect(stalled.publishing).toBe(false);
      expect([numbers(paused), numbers(taking)]).toEqual([[1], [2]]);
      expect(await readStore.getCheckpoint(RELAY_CHECKPOINT)).toEqual(taking.published[0].position);
    } finally {
      await stalled.stop();
      await standby.stop();
    }
  });
});

describe('local bus', () => {
  it('a non-durable consumer starts at the live end; a durable group resumes where it stopped', async () => {
    await store.appendToStream('s', [noted(0)]);
    const bus = new LocalEventBus(store, readStore);
    const live: number[] = [];
    const durable: number[] = [];
    const gateway = await bus.consume('gateway', { durable: false }, (events) => void live.push(...events.map((e) => (e.data as { n: number }).n)));
    let delivery = await bus.consume('delivery', { durable: true }, (events) => void durable.push(...events.map((e) => (e.data as { n: number }).n)));
    await store.appendToStream('s', [noted(1), noted(2)]);
    await eventually(() => expect(durable).toEqual([1, 2]));
    await delivery.stop();
    await store.appendToStream('s', [noted(3)]);
    delivery = await bus.consume('delivery', { durable: true }, (events) => void durable.push(...events.map((e) => (e.data as { n: number }).n)));
    await eventually(() => expect(durable).toEqual([1, 2, 3]));
    await eventually(() => expect(live).toEqual([1, 2, 3]));
    await gateway.stop();
    await delivery.stop();
  });
});
