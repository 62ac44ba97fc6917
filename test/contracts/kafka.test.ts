// The relay and the Kafka bus against a real Kafka (KRaft, one node), started by testcontainers when a Docker engine
// answers: every event of the log reaches each consumer group once, in order per key, across a relay restart that
// republishes; and a gateway node whose handling of one fetch outlasts the session timeout stays in its group.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StartedTestContainer } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KafkaEventBus, messageKey } from '../../infra/bus/kafka.js';
import { RELAY_CHECKPOINT, Relay } from '../../infra/bus/relay.js';
import type { EventPublisher } from '../../ports/bus.js';
import type { NewEvent, RecordedEvent } from '../../ports/eventStore.js';
import { SqliteEventStore } from '../../infra/eventStore/sqlite.js';
import { loadKafkaSettings } from '../../infra/engines.js';
import { createLogger } from '../../infra/logger.js';
import { SqliteLeases } from '../../infra/leases/sqlite.js';
import { SqliteReadStore } from '../../infra/readStore/sqlite.js';
import { CONTAINER_START_MS, probeDocker, skipWithoutDocker } from './docker.js';
import { eventually } from './eventually.js';
import { freePort } from './ports.js';

const docker = await probeDocker();

if (!docker.reachable) {
  skipWithoutDocker('Kafka', docker.why, 'relays the log through Kafka to durable and per-node consumer groups');
} else {
  let container: StartedTestContainer;
  let brokers: string[] = [];
  beforeAll(async () => {
    const { GenericContainer, Wait } = await import('testcontainers');
    const port = await freePort();
    const host = process.env.TESTCONTAINERS_HOST_OVERRIDE ?? 'localhost';
    container = await new GenericContainer('apache/kafka:3.8.0')
      .withExposedPorts({ container: 9092, host: port })
      .withEnvironment({
        KAFKA_NODE_ID: '1',
        KAFKA_PROCESS_ROLES: 'broker,controller',
        KAFKA_LISTENERS: 'PLAINTEXT://:9092,CONTROLLER://:9093',
        KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://${host}:${port}`,
        KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
        KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
        KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
        KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
        KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
        KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
        KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      })
      .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
      .start();
    brokers = [`${host}:${port}`];
  }, CONTAINER_START_MS);
  afterAll(async () => {
    await container?.stop();
  });

  describe('Kafka bus', () => {
    it('relays every event to each group once, in order per key, even when a restarted relay republishes', async () => {
      const { store, readStore, bus, relayTo, close } = await relayWorld(brokers, 'parley.contract');
      const publisher = await bus.publisher();
      const delivered = { delivery: [] as RecordedEvent[], gateway: [] as RecordedEvent[] };
      await bus.consume('delivery', { durable: true }, (events) => void delivered.delivery.push(...events));
      await bus.consume('gateway', { durable: false }, (events) => void delivered.gateway.push(...events));
      const relay = relayTo(publisher);
      try {
        // Both groups are live once a marker published now reaches them.
        await relay.start();
        await eventually(async () => {
          await store.appendToStream('marker', [event('Marker', {})]);
          await new Promise((resolve) => setTimeout(resolve, 500));
          expect(delivered.delivery.some((e) => e.type === 'Marker') && delivered.gateway.some((e) => e.type === 'Marker')).toBe(true);
        }, 60_000);
        const sent: RecordedEvent[] = [];
        for (let i = 0; i < 60; i++) {
          await store.appendToStream(`message-${i}`, [event('MessageCreated', { guildId: `g${i % 3}`, channelId: `c${i % 5}`, n: i })]);
        }
        await relay.caughtUp();
        await relay.stop();
        // Move the relay's checkpoint back: the restarted relay publishes those 60 events a second time.
        const all = await store.readAll({ maxCount: 10_000 });
        sent.push(...all.filter((e) => e.type === 'MessageCreated'));
        await readStore.bulkWrite([], [{ projection: RELAY_CHECKPOINT, position: all.find((e) => e.type === 'Marker')!.position }]);
        const restarted = relayTo(publisher);
        await restarted.start();
        await restarted.caughtUp();
        await restarted.stop();
        for (const group of ['delivery', 'gateway'] as const) {
          await eventually(() => expect(delivered[group].filter((e) => e.type === 'MessageCreated')).toHaveLength(60), 30_000);
          await new Promise((resolve) => setTimeout(resolve, 1000));
          const got = delivered[group].filter((e) => e.type === 'MessageCreated');
          expect(new Set(got.map((e) => e.id)).size).toBe(60);
          for (const key of ['g0', 'g1', 'g2']) {
            const order = (list: RecordedEvent[]) => list.filter((e) => messageKey(e) === key).map((e) => e.id);
            expect(order(got)).toEqual(order(sent));
          }
        }
      } finally {
        await close();
      }
    }, 180_000);

    it('a first relay on a log with history publishes none of it, and a batch of large events arrives whole', async () => {
      const { store, bus, relayTo, close } = await relayWorld(brokers, 'parley.large');
      const got: RecordedEvent[] = [];
      try {
        for (let i = 0; i < 5; i++) await store.appendToStream(`old-${i}`, [event('History', { i })]);
        await bus.consume('delivery', { durable: true }, (events) => void got.push(...events));
        const relay = relayTo(await bus.publisher());
        await relay.start();
        // 12 events of 400 KB in one relay batch: about 5 MB, five times what the broker takes in one record batch.
        for (let i = 0; i < 12; i++) await store.appendToStream(`large-${i}`, [event('Large', { guildId: 'g', text: 'x'.repeat(400_000), i })]);
        await relay.caughtUp();
        await eventually(() => expect(got.filter((e) => e.type === 'Large')).toHaveLength(12), 60_000);
        expect(got.filter((e) => e.type === 'History')).toEqual([]);
        expect(got.map((e) => (e.data as { i: number }).i)).toEqual(Array.from({ length: 12 }, (_, i) => i));
        await relay.stop();
      } finally {
        await close();
      }
    }, 180_000);

    it('a gateway node whose handling of one fetch outlasts the session timeout is not evicted, and misses nothing', async () => {
      const { store, bus, relayTo, close } = await relayWorld(brokers, 'parley.slow');
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
        await eventually(async () => {
          await store.appendToStream('marker', [event('Marker', {})]);
          await new Promise((resolve) => setTimeout(resolve, 500));
          expect(got.some((e) => e.type === 'Marker')).toBe(true);
        }, 60_000);
        await store.appendToStream(
          'slow',
          Array.from({ length: 300 }, (_, i) => event('Slow', { guildId: 'g', i })),
        );
        await new Promise((resolve) => setTimeout(resolve, 10_000));
        await store.appendToStream(
          'later',
          Array.from({ length: 10 }, (_, i) => event('Slow', { guildId: 'g', i: 300 + i })),
        );
        await eventually(() => expect(got.filter((e) => e.type === 'Slow')).toHaveLength(310), 120_000);
        expect(got.filter((e) => e.type === 'Slow').map((e) => (e.data as { i: number }).i)).toEqual(Array.from({ length: 310 }, (_, i) => i));
        await relay.stop();
      } finally {
        await close();
      }
    }, 240_000);
  });
}

/**
 * An event log, read store and leases in a fresh folder, and a bus on `topic`; `relayTo` makes a relay from that log
 * whose failure fails the test, and `close` ends them all and removes the folder.
 */
async function relayWorld(brokers: string[], topic: string) {
  const dir = mkdtempSync(join(tmpdir(), 'parley-kafka-'));
  const store = new SqliteEventStore(join(dir, 'events.db'));
  const readStore = new SqliteReadStore(join(dir, 'read.db'));
  const leases = new SqliteLeases(join(dir, 'leases.db'));
  const bus = await KafkaEventBus.connect(settings(brokers, { KAFKA_TOPIC: topic }), createLogger('silent'));
  return {
    store,
    readStore,
    bus,
    relayTo: (publisher: EventPublisher) =>
      new Relay(store, readStore, publisher, leases, (error) => {
        throw error;
      }),
    async close() {
      await bus.close();
      await store.close();
      await readStore.close();
      await leases.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One broker: one copy of each partition. */
function settings(brokers: string[], env: Record<string, string> = {}) {
  return loadKafkaSettings({
    KAFKA_BROKERS: brokers.join(','),
    KAFKA_CLIENT_ID: 'contract',
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
