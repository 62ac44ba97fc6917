// The event store contract against a real EventStoreDB, started by testcontainers when a Docker engine answers.
import type { StartedTestContainer } from 'testcontainers';
import { afterAll, beforeAll } from 'vitest';
import { EsdbEventStore } from '../../infra/eventStore/esdb.js';
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
}
