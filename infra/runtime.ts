// The embedded runtime: the whole service in one process — SQLite log, SQLite read models, files for blobs, and the
// projectors fed in-process from the log.
import { join } from 'node:path';
import { AggregateCache, CommandHandler } from '../commands/handle.js';
import type { CommandDeps } from '../commands/deps.js';
import { SnowflakeGenerator } from '../domain/snowflake.js';
import { allProjections } from '../projections/index.js';
import { ProjectionRunner } from '../projections/runner.js';
import { FileBlobStore } from './blobs/files.js';
import type { BlobStore } from './blobs/port.js';
import type { Config } from './config.js';
import { type HintBus, LocalHintBus } from './hints.js';
import type { EventStore } from './eventStore/port.js';
import { SqliteEventStore } from './eventStore/sqlite.js';
import type { Logger } from './logger.js';
import type { ReadStore } from './readStore/port.js';
import { SqliteReadStore } from './readStore/sqlite.js';

export interface Runtime extends CommandDeps {
  config: Config;
  log: Logger;
  store: EventStore;
  blobs: BlobStore;
  projections: ProjectionRunner;
  hints: HintBus;
  close(): Promise<void>;
}

export async function startRuntime(config: Config, log: Logger): Promise<Runtime> {
  const store = new SqliteEventStore(join(config.dataDir, 'events.db'));
  const readStore = new SqliteReadStore(join(config.dataDir, 'read-models.db'));
  const blobs = new FileBlobStore(join(config.dataDir, 'blobs'));
  const projections = new ProjectionRunner(store, readStore, allProjections, (error) => log.fatal({ err: error }, 'projections stopped'));
  await projections.start();
  await projections.caughtUp();
  return {
    config,
    log,
    store,
    readStore,
    blobs,
    projections,
    hints: new LocalHintBus(),
    commands: new CommandHandler(store, new AggregateCache()),
    ids: new SnowflakeGenerator({ workerId: config.workerId, processId: config.processId }),
    settle: (position) => projections.waitFor(position),
    async close() {
      await projections.stop();
      await store.close();
      await readStore.close();
    },
  };
}
