// The event store contract against a real EventStoreDB, started by testcontainers when a Docker engine answers, and
// the adapter's catch-up batches (as large as its buffer, not the ~31 events of the client's default).
import type { StartedTestContainer } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH, EsdbEventStore } from '../../infra/eventStore/esdb.js';
import { CONTAINER_START_MS, probeDocker, skipWithoutDocker } from './docker.js';
import { describeEventStoreContract } from './eventStoreContract.js';

const docker = await probeDocker();

if (!docker.reachable) {
  skipWithoutDocker('EventStoreDB', docker.why, 'runs the event store contract against EventStoreDB');
} else {
  let container: StartedTestContainer;
  let url = '';
  beforeAll(async () => {
    const { GenericContainer, Wait } = await import('testcontainers');
    container = await new GenericContainer('eventstore/eventstore:24.10')
      .withEnvironment({ EVENTSTORE_INSECURE: 'true', EVENTSTORE_MEM_DB: 'true', EVENTSTORE_RUN_PROJECTIONS: 'None' })
      .withExposedPorts(2113)
      .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCode(204))
      .start();
    url = `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`;
  }, CONTAINER_START_MS);
  afterAll(async () => {
    await container?.stop();
  });
  describeEventStoreContract('EventStoreDB', () => EsdbEventStore.connect(url));

  describe('EventStoreDB catch-up', () => {
    it('hands a slow handler batches of up to BATCH events, well past the 31 of a default buffer', async () => {
      const store = await EsdbEventStore.connect(url);
      try {
        const stream = `catch-up-${Date.now()}`;
        for (let i = 0; i < 20; i++) {
          const events = Array.from({ length: 100 }, (_, n) => ({
            type: 'Noted',
            data: { n: i * 100 + n },
            metadata: { actorId: null, createdAt: new Date().toISOString() },
          }));
          await store.appendToStream(stream, events);
        }
        const sizes: number[] = [];
        const subscription = store.subscribeToAll({}, async (events) => {
          sizes.push(events.length);
          await new Promise((resolve) => setTimeout(resolve, 50));
        });
        await subscription.caughtUp();
        await subscription.stop();
        expect(Math.max(...sizes)).toBeGreaterThan(100);
        expect(Math.max(...sizes)).toBeLessThanOrEqual(BATCH);
      } finally {
        await store.close();
      }
    }, 120_000);
  });
}
