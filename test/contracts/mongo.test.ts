// The read store and blob store contracts against a real MongoDB (a one-node replica set, for transactions),
// started by testcontainers when a Docker engine answers.
import type { StartedTestContainer } from 'testcontainers';
import { afterAll, beforeAll } from 'vitest';
import { GridFsBlobStore } from '../../infra/blobs/gridfs.js';
import { MongoReadStore } from '../../infra/readStore/mongo.js';
import { describeBlobStoreContract } from './blobStoreContract.js';
import { CONTAINER_START_MS, probeDocker, skipWithoutDocker } from './docker.js';
import { describeReadStoreContract } from './readStoreContract.js';

const docker = await probeDocker();

if (!docker.reachable) {
  skipWithoutDocker('MongoDB', docker.why, 'runs the read store and GridFS blob contracts against MongoDB');
} else {
  let container: StartedTestContainer;
  let url = '';
  beforeAll(async () => {
    const { GenericContainer, Wait } = await import('testcontainers');
    container = await new GenericContainer('mongo:7.0')
      .withCommand(['--replSet', 'rs0', '--bind_ip_all'])
      .withExposedPorts(27017)
      .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
      .start();
    const initiated = await container.exec(['mongosh', '--quiet', '--eval', "rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'localhost:27017' }] }).ok"]);
    if (initiated.exitCode !== 0) throw new Error(`rs.initiate failed: ${initiated.output}`);
    url = `mongodb://${container.getHost()}:${container.getMappedPort(27017)}/?directConnection=true`;
  }, CONTAINER_START_MS);
  afterAll(async () => {
    await container?.stop();
  });
  describeReadStoreContract('MongoDB', () => connectWhenPrimary(url));
  describeBlobStoreContract('GridFS', async () => {
    const store = await connectWhenPrimary(url);
    return { blobs: new GridFsBlobStore(store.db), close: () => store.close() };
  });
}

/** Right after rs.initiate the node takes a moment to become primary. */
async function connectWhenPrimary(url: string): Promise<MongoReadStore> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await MongoReadStore.connect(url, 'parley_contract');
    } catch (error) {
      if (attempt >= 30) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
