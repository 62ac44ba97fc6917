// The read store, blob store, key store, lease and rate-limit contracts against a real MongoDB (a one-node replica set,
// for transactions), started by testcontainers when a Docker engine answers; and the composition that picks MongoDB's
// rate limits on it.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BSON, Collection } from 'mongodb';
import type { StartedTestContainer } from 'testcontainers';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { GridFsBlobStore } from '../../infra/blobs/gridfs.js';
import { DATA_KEYS, DATA_KEY_OWNERS, DATA_KEY_PROGRESS, MongoKeyStore } from '../../infra/keys/mongo.js';
import { MongoLeases } from '../../infra/leases/mongo.js';
import { loadConfig } from '../../infra/config.js';
import { createLogger } from '../../infra/logger.js';
import { MasterKeys } from '../../infra/masterKeys.js';
import { SharedRateLimits } from '../../infra/rateLimits/counters.js';
import { mongoRateLimits } from '../../infra/rateLimits/mongo.js';
import { MongoReadStore } from '../../infra/readStore/mongo.js';
import { openEngines } from '../../infra/roles.js';
import { SecretBox } from '../../infra/secrets.js';
import { describeBlobStoreContract } from './blobStoreContract.js';
import { CONTAINER_START_MS, probeDocker, skipWithoutDocker } from './docker.js';
import { describeKeyStoreContract } from './keyStoreContract.js';
import { describeLeasesContract } from './leasesContract.js';
import { describeRateLimitsContract } from './rateLimitsContract.js';
import { describeReadStoreContract } from './readStoreContract.js';

const docker = await probeDocker();

if (!docker.reachable) {
  skipWithoutDocker('MongoDB', docker.why, 'runs the read store, GridFS blob and key store contracts against MongoDB');
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
  // Two clients stand for two processes of the deployment; a database of its own per test.
  describeLeasesContract('MongoDB', async () => {
    const database = `parley_leases_${randomUUID().slice(0, 8)}`;
    const [one, two] = await Promise.all([connectWhenPrimary(url, database), connectWhenPrimary(url, database)]);
    return {
      first: new MongoLeases(one.db),
      second: new MongoLeases(two.db),
      close: async () => {
        await one.close();
        await two.close();
      },
    };
  });
  // Two clients stand for two api nodes; closing the first one's client is its MongoDB becoming unreachable.
  describeRateLimitsContract('MongoDB', async () => {
    const database = `parley_limits_${randomUUID().slice(0, 8)}`;
    const [one, two] = [await connectWhenPrimary(url, database), await connectWhenPrimary(url, database)];
    return {
      first: await mongoRateLimits(one.db),
      second: await mongoRateLimits(two.db),
      breakFirst: () => one.close(),
      close: async () => {
        await one.close();
        await two.close();
      },
    };
  });
  it('counts the rate limits of a process on READ_STORE=mongodb in MongoDB, which its peers share', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-mongo-engines-'));
    const config = loadConfig({ DATA_DIR: dataDir });
    const engines = await openEngines(
      config,
      {
        role: 'all',
        store: { kind: 'sqlite' },
        readStore: { kind: 'mongodb', url, database: 'parley_engines' },
        bus: { kind: 'local' },
        projections: null,
        settleTimeoutMs: 5000,
      },
      MasterKeys.load(config, SecretBox.fromKey(randomBytes(32))),
      createLogger('silent'),
      () => {},
    );
    try {
      expect(engines.rateLimits).toBeInstanceOf(SharedRateLimits);
    } finally {
      await engines.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
  // A database of its own per test: the contract starts from a store without keys or checkpoint.
  describeKeyStoreContract('MongoDB', async () => {
    const store = await connectWhenPrimary(url, `parley_keys_${randomUUID().slice(0, 8)}`);
    const secrets = SecretBox.fromKey(randomBytes(32));
    const keys = await MongoKeyStore.open(store.db, secrets);
    const documents = async (collection: string) => (await store.db.collection(collection).find().toArray()).map((doc) => BSON.serialize(doc));
    return {
      keys,
      close: async () => {
        await keys.close();
        await store.close();
      },
      reopen: () => MongoKeyStore.open(store.db, secrets),
      stored: async () => Buffer.concat((await Promise.all([DATA_KEYS, DATA_KEY_OWNERS, DATA_KEY_PROGRESS].map(documents))).flat()),
      breakCheckpointWrite: () => {
        // The checkpoint is the key store's only updateOne.
        vi.spyOn(Collection.prototype, 'updateOne').mockRejectedValueOnce(new Error('write failed'));
      },
    };
  });
}

/** Right after rs.initiate the node takes a moment to become primary. */
async function connectWhenPrimary(url: string, database = 'parley_contract'): Promise<MongoReadStore> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await MongoReadStore.connect(url, database);
    } catch (error) {
      if (attempt >= 30) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
