// The relay and the Kafka bus against a real Kafka broker (KRaft, one node, `npm run kafka`): every event of the log
// reaches each consumer group once, in order per key, across a relay restart that republishes; a durable group resumes
// where it stopped; a member joining and leaving a group mid-batch loses nothing; a batch larger than the broker takes
// is split; a gateway node whose one fetch outlasts the session timeout stays in its group; and a broker restarted
// under load loses and duplicates nothing. Each test has a topic and groups of its own on the shared broker; the
// restart test starts (and restarts) a broker of its own.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KafkaEventBus, messageKey } from '../../infra/bus/kafka.js';
import { RELAY_CHECKPOINT, Relay } from '../../infra/bus/relay.js';
import type { EventPublisher } from '../../ports/bus.js';
import type { BatchHandler, NewEvent, RecordedEvent } from '../../ports/eventStore.js';
import { SqliteEventStore } from '../../infra/eventStore/sqlite.js';
import { loadKafkaSettings } from '../../infra/engines.js';
import { createLogger } from '../../infra/logger.js';
import { SqliteLeases } from '../../infra/leases/sqlite.js';
import { SqliteReadStore } from '../../infra/readStore/sqlite.js';
import { KAFKA_TEST_BROKERS, withEngine } from './engines.js';
import { eventually } from './eventually.js';
import { ownBroker } from './kafkaBroker.js';

await withEngine('kafka', 'relays the log through Kafka to durable and per-node consumer groups', () => {
  describe('Kafka bus', () => {
    it('relays every event to each group once, in order per key, even when a restarted relay republishes', async () => {
      const world = await relayWorld(KAFKA_TEST_BROKERS);
      const { store, readStore, bus, relayTo } = world;
      const publisher = await bus.publisher();
      const delivered = { delivery: [] as RecordedEvent[], gateway: [] as RecordedEvent[] };
      await bus.consume('delivery', { durable: true }, (events) => void delivered.delivery.push(...events));
      await bus.consume('gateway', { durable: false }, (events) => void delivered.gateway.push(...events));
      const relay = relayTo(publisher);
      try {
        await relay.start();
        await world.live(delivered.delivery, delivered.gateway);
        const sent: RecordedEvent[] = [];
        for (let i = 0; i < 60; i++) {
          await store.appendToStream(`message-${i}`, [event('MessageCreated', { guildId: `g${i % 3}`, channelId: `c${i % 5}`, n: i })]);
        }
        await relay.caughtUp();
        await relay.stop();
        // Move the relay's checkpoint back: the restarted relay publishes those 60 events a second time.
        const all = await store.readAll({ maxCount: 10_000 });
        sent.push(...all.filter((e) => e.type === 'MessageCreated'));
        await readStore.bulkWrite([], [{ projection: RELAY_CHECKPOINT, position: all.findLast((e) => e.type === 'Marker')!.position }]);
        const restarted = relayTo(publisher);
        await restarted.start();
        await restarted.caughtUp();
        // The republished copies are delivered before anything appended after them: once this one arrives, any copy
        // that was going to get through would have.
        await store.appendToStream('closing', [event('Closing', {})]);
        await restarted.caughtUp();
        await restarted.stop();
        for (const group of ['delivery', 'gateway'] as const) {
          await eventually(() => expect(delivered[group].some((e) => e.type === 'Closing')).toBe(true), 60_000);
          const got = delivered[group].filter((e) => e.type === 'MessageCreated');
          expect(got.map((e) => e.id).sort()).toEqual(sent.map((e) => e.id).sort());
          expectOrderPerKey(got, sent);
        }
      } finally {
        await world.close();
      }
    }, 180_000);

    it('a durable group that stops resumes where it stopped: what was published meanwhile, once, and nothing before', async () => {
      const world = await relayWorld(KAFKA_TEST_BROKERS);
      const { store, relayTo } = world;
      const first: RecordedEvent[] = [];
      const consumer = await world.bus.consume('delivery', { durable: true }, (events) => void first.push(...events));
      const relay = relayTo(await world.bus.publisher());
      try {
        await relay.start();
        await world.live(first);
        await appendNumbered(store, 'Before', 0, 20);
        await relay.caughtUp();
        await eventually(() => expect(numbered(first, 'Before')).toHaveLength(20), 60_000);
        await consumer.stop();
        await appendNumbered(store, 'Meanwhile', 0, 20);
        await relay.caughtUp();
        // Another process of the same role: the same group, on a client of its own.
        const second = await world.anotherBus('delivery-2');
        const resumed: RecordedEvent[] = [];
        await second.consume('delivery', { durable: true }, (events) => void resumed.push(...events));
        await appendNumbered(store, 'After', 0, 5);
        await relay.caughtUp();
        await eventually(() => expect(numbered(resumed, 'After')).toHaveLength(5), 60_000);
        expect(resumed.filter((e) => e.type === 'Before' || e.type === 'Marker')).toEqual([]);
        expect(numbered(resumed, 'Meanwhile')).toEqual(range(0, 20));
        expect(numbered(resumed, 'After')).toEqual(range(0, 5));
        await relay.stop();
      } finally {
        await world.close();
      }
    }, 180_000);

    it('a member joining and then leaving a durable group during a long batch: every event handled once across the group', async () => {
      const world = await relayWorld(KAFKA_TEST_BROKERS);
      const { store, relayTo } = world;
      const onError = (error: unknown) => void errors.push(error);
      const errors: unknown[] = [];
      // 30 ms an event: each partition's fetch of about 150 events is handled for 4.5 s, heartbeating all along.
      const slowly =
        (into: RecordedEvent[]): BatchHandler =>
        async (events) => {
          for (const event of events) {
            if (event.type !== 'Marker') await new Promise((resolve) => setTimeout(resolve, 30));
            into.push(event);
          }
        };
      const first: RecordedEvent[] = [];
      await world.bus.consume('delivery', { durable: true }, slowly(first), onError);
      const relay = relayTo(await world.bus.publisher());
      try {
        await relay.start();
        await world.live(first);
        // Eight guilds over four partitions.
        const sent = await appendNumbered(store, 'Work', 0, 600, (i) => ({ guildId: `g${i % 8}` }));
        await relay.caughtUp();
        await eventually(() => expect(numbered(first, 'Work').length).toBeGreaterThanOrEqual(40), 60_000);
        const joiner = await world.anotherBus('delivery-2');
        const second: RecordedEvent[] = [];
        // Resolves once the group has rebalanced to take it in: the first member's batch was under way.
        const joined = await joiner.consume('delivery', { durable: true }, slowly(second), onError);
        expect(numbered(first, 'Work').length).toBeLessThan(600);
        await eventually(() => expect(numbered(second, 'Work').length).toBeGreaterThanOrEqual(10), 60_000);
        // Leaves mid-batch: its partitions go back to the first member, from the last offset it committed.
        await joined.stop();
        sent.push(...(await appendNumbered(store, 'Work', 600, 40, (i) => ({ guildId: `g${i % 8}` }))));
        await relay.caughtUp();
        await eventually(() => expect(numbered([...first, ...second], 'Work').length).toBeGreaterThanOrEqual(640), 120_000);
        const handled = [...first, ...second].filter((e) => e.type === 'Work');
        expect(handled.map((e) => e.id).sort()).toEqual(sent.map((e) => e.id).sort());
        expectOrderPerKey(
          first.filter((e) => e.type === 'Work'),
          sent,
        );
        expectOrderPerKey(
          second.filter((e) => e.type === 'Work'),
          sent,
        );
        expect(errors).toEqual([]);
        await relay.stop();
      } finally {
        await world.close();
      }
    }, 240_000);

    it('a first relay on a log with history publishes none of it, and a batch over the topic’s max.message.bytes arrives whole', async () => {
      const world = await relayWorld(KAFKA_TEST_BROKERS);
      const { store, bus, relayTo } = world;
      const got: RecordedEvent[] = [];
      try {
        for (let i = 0; i < 5; i++) await store.appendToStream(`old-${i}`, [event('History', { i })]);
        await bus.consume('delivery', { durable: true }, (events) => void got.push(...events));
        const relay = relayTo(await bus.publisher());
        await relay.start();
        // 12 events of 400 KB that gzip does not shrink much, published in one relay batch: about 3.6 MB compressed,
        // over three times the 1 MB the topic takes in one record batch.
        for (let i = 0; i < 12; i++) {
          await store.appendToStream(`large-${i}`, [event('Large', { guildId: 'g', text: randomBytes(300_000).toString('base64'), i })]);
        }
        await relay.caughtUp();
        await eventually(() => expect(got.filter((e) => e.type === 'Large')).toHaveLength(12), 60_000);
        expect(got.filter((e) => e.type === 'History')).toEqual([]);
        expect(got.map((e) => (e.data as { i: number }).i)).toEqual(range(0, 12));
        await relay.stop();
      } finally {
        await world.close();
      }
    }, 180_000);

    it('a gateway node whose handling of one fetch outlasts the session timeout is not evicted, and misses nothing', async () => {
      const world = await relayWorld(KAFKA_TEST_BROKERS);
      const { store, bus, relayTo } = world;
      const got: RecordedEvent[] = [];
      // A node waiting on read models: 120 ms an event, so 300 events of one guild (one fetch) take 36 s, past the 30 s
      // session timeout. A heartbeat only after the fetch let the coordinator evict the node; it rejoined at the live
      // end (a gateway node commits no offsets), and what was appended meanwhile never reached its sessions.
      await bus.consume('gateway', { durable: false }, async (events) => {
        for (const event of events) {
          if (event.type !== 'Marker') await new Promise((resolve) => setTimeout(resolve, 120));
          got.push(event);
        }
      });
      const relay = relayTo(await bus.publisher());
      try {
        await relay.start();
        await world.live(got);
        await store.appendToStream(
          'slow',
          Array.from({ length: 300 }, (_, i) => event('Slow', { guildId: 'g', i })),
        );
        await relay.caughtUp();
        // Appended while the fetch is being handled, past the session timeout.
        await eventually(() => expect(numbered(got, 'Slow').length).toBeGreaterThanOrEqual(260), 120_000);
        await store.appendToStream(
          'later',
          Array.from({ length: 10 }, (_, i) => event('Slow', { guildId: 'g', i: 300 + i })),
        );
        await eventually(() => expect(numbered(got, 'Slow')).toHaveLength(310), 120_000);
        expect(numbered(got, 'Slow')).toEqual(range(0, 310));
        await relay.stop();
      } finally {
        await world.close();
      }
    }, 240_000);

    it('a broker restarted under load: the relay, a durable group and a gateway node’s carry on, and no event is lost or duplicated', async () => {
      const broker = await ownBroker();
      const world = await relayWorld(broker.brokers);
      const { store, relayTo } = world;
      const got: RecordedEvent[] = [];
      // A gateway node's group commits no offsets: restarted by kafkajs once the broker is back, it goes on from
      // what it took, not from the live end.
      const gotLive: RecordedEvent[] = [];
      const errors: unknown[] = [];
      await world.bus.consume(
        'delivery',
        { durable: true },
        (events) => void got.push(...events),
        (error) => void errors.push(error),
      );
      await world.bus.consume(
        'gateway',
        { durable: false },
        (events) => void gotLive.push(...events),
        (error) => void errors.push(error),
      );
      const relay = relayTo(await world.bus.publisher());
      const sent: RecordedEvent[] = [];
      let appending = true;
      // Appends go on all along, a small batch every 20 ms, whatever the broker is doing.
      const load = (async () => {
        for (let i = 0; appending; i += 5) {
          sent.push(...(await appendNumbered(store, 'Load', i, 5, (n) => ({ guildId: `g${n % 6}` }))));
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      try {
        await relay.start();
        await world.live(got, gotLive);
        await eventually(() => expect(numbered(got, 'Load').length).toBeGreaterThanOrEqual(100), 60_000);
        await broker.stop();
        // Down for longer than the clients' retries last: their consumers crash and are restarted by kafkajs.
        const whileDown = sent.length;
        await eventually(() => expect(sent.length).toBeGreaterThanOrEqual(whileDown + 500), 60_000);
        await broker.start();
        await eventually(() => expect(sent.length).toBeGreaterThanOrEqual(whileDown + 100), 60_000);
        appending = false;
        await load;
        await relay.caughtUp();
        await store.appendToStream('closing', [event('Closing', {})]);
        await relay.caughtUp();
        for (const [group, list] of [
          ['durable', got],
          ['gateway', gotLive],
        ] as const) {
          // Each partition catches up on its own: the closing event may come before another partition's last.
          const handled = () => list.filter((e) => e.type === 'Load');
          await eventually(() => expect(handled().length, group).toBeGreaterThanOrEqual(sent.length), 120_000);
          await eventually(() => expect(list.some((e) => e.type === 'Closing')).toBe(true), 60_000);
          expect(
            handled()
              .map((e) => e.id)
              .sort(),
            group,
          ).toEqual(sent.map((e) => e.id).sort());
          expectOrderPerKey(handled(), sent);
        }
        expect(errors).toEqual([]);
        await relay.stop();
      } finally {
        appending = false;
        await load.catch(() => {});
        await world.close();
        await broker.remove();
      }
    }, 420_000);
  });
});

/**
 * An event log, read store and leases in a fresh folder, and a bus on a topic, with a client id (so groups), of its
 * own; `relayTo` makes a relay from that log whose failure fails the test, `anotherBus` another process's bus on the
 * same topic and groups, `live` waits until consumers receive what is published, and `close` ends it all.
 */
async function relayWorld(brokers: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'parley-kafka-'));
  const store = new SqliteEventStore(join(dir, 'events.db'));
  const readStore = new SqliteReadStore(join(dir, 'read.db'));
  const leases = new SqliteLeases(join(dir, 'leases.db'));
  const unique = randomBytes(6).toString('hex');
  const env = { KAFKA_TOPIC: `parley.contract.${unique}`, KAFKA_CLIENT_ID: `contract-${unique}` };
  const buses = [await KafkaEventBus.connect(settings(brokers, env), createLogger('silent'))];
  return {
    store,
    readStore,
    bus: buses[0],
    async anotherBus(member: string) {
      const bus = await KafkaEventBus.connect(settings(brokers, { ...env, KAFKA_GROUP_MEMBER: member }), createLogger('silent'));
      buses.push(bus);
      return bus;
    },
    relayTo: (publisher: EventPublisher) =>
      new Relay(store, readStore, publisher, leases, (error) => {
        throw error;
      }),
    /** Consumers join at the live end: each of these lists has a marker published after they did. */
    async live(...lists: RecordedEvent[][]) {
      await eventually(async () => {
        await store.appendToStream('marker', [event('Marker', {})]);
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(lists.every((list) => list.some((e) => e.type === 'Marker'))).toBe(true);
      }, 60_000);
    },
    async close() {
      await Promise.all(buses.map((bus) => bus.close()));
      await store.close();
      await readStore.close();
      await leases.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One broker: one copy of each partition. */
function settings(brokers: string[], env: Record<string, string>) {
  return loadKafkaSettings({
    KAFKA_BROKERS: brokers.join(','),
    KAFKA_PARTITIONS: '4',
    KAFKA_REPLICATION_FACTOR: '1',
    KAFKA_MIN_INSYNC_REPLICAS: '1',
    KAFKA_GROUP_MEMBER: 'contract-node',
    ...env,
  });
}

function event(type: string, data: unknown): NewEvent {
  return { type, data, metadata: { actorId: null, createdAt: new Date().toISOString() } };
}

/** Appends events `type` numbered from..from+count-1, each on a stream of its own; returns them as recorded. */
async function appendNumbered(
  store: SqliteEventStore,
  type: string,
  from: number,
  count: number,
  data: (i: number) => object = () => ({ guildId: 'g' }),
): Promise<RecordedEvent[]> {
  for (let i = from; i < from + count; i++) await store.appendToStream(`${type.toLowerCase()}-${i}`, [event(type, { ...data(i), i })]);
  const all = await store.readAll({ maxCount: 100_000 });
  const wanted = new Set(range(from, count));
  return all.filter((e) => e.type === type && wanted.has((e.data as { i: number }).i));
}

function numbered(events: RecordedEvent[], type: string): number[] {
  return events.filter((e) => e.type === type).map((e) => (e.data as { i: number }).i);
}

function range(from: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => from + i);
}

/** Within each key, `got` holds events in the order they were sent (a subset of them, when a group shares the work). */
function expectOrderPerKey(got: RecordedEvent[], sent: RecordedEvent[]): void {
  const order = new Map(sent.map((e, index) => [e.id, index]));
  for (const key of new Set(got.map(messageKey))) {
    const indexes = got.filter((e) => messageKey(e) === key).map((e) => order.get(e.id)!);
    expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
  }
}
