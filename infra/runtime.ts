// The runtime: by default the whole service in one process — SQLite log, SQLite read models, files for blobs, and the
// projectors fed in-process from the log. The engines and the role come from infra/roles.ts (ROLE, STORE, ...).
import { join } from 'node:path';
import type { CommandDeps } from '../commands/deps.js';
import { AggregateCache, CommandHandler } from '../commands/handle.js';
import { SnowflakeGenerator } from '../domain/snowflake.js';
import type { BlobStore } from '../ports/blobs.js';
import type { EventBus } from '../ports/bus.js';
import type { EventStore } from '../ports/eventStore.js';
import type { HintBus } from '../ports/hints.js';
import type { Images } from '../ports/images.js';
import type { CheckOutboundUrl } from '../ports/outbound.js';
import { allProjections } from '../projections/index.js';
import { DeliveryWorker } from '../processes/delivery.js';
import { ProjectionRunner } from '../projections/runner.js';
import type { Config } from './config.js';
import { secureDataDir } from './dataDir.js';
import type { EngineConfig } from './engines.js';
import { sharpImages } from './images.js';
import type { Logger } from './logger.js';
import { signInteraction } from './interactionSignature.js';
import { checkOutboundUrl, postJson } from './outbound.js';
import { RemoteProjections } from './remoteProjections.js';
import { EMBEDDED, openEngines, runsDelivery, runsProjectors, selectProjections } from './roles.js';
import { SecretBox } from './secrets.js';

export interface Runtime extends CommandDeps {
  config: Config;
  log: Logger;
  store: EventStore;
  blobs: BlobStore;
  projections: ProjectionRunner;
  hints: HintBus;
  images: Images;
  checkOutboundUrl: CheckOutboundUrl;
  /** The role and engines this process runs (gateway and delivery code consume `bus` in theirs). */
  engines: EngineConfig;
  /** The log's events for consumers other than projectors; Kafka when BUS=kafka. */
  bus: EventBus;
  close(): Promise<void>;
}

/**
 * Starts the service on the engines and in the role given (the embedded single process by default). `onFatal` hears
 * of a background part that stopped (projectors, relay); main exits on it in the distributed roles.
 */
export async function startRuntime(
  config: Config,
  log: Logger,
  engines: EngineConfig = EMBEDDED,
  onFatal: (error: unknown, what: string) => void = (error, what) => log.fatal({ err: error }, what),
): Promise<Runtime> {
  // Processes of a distributed deployment seal and open the same secrets: they cannot each generate a key file.
  if (engines.role !== 'all' && !config.secretKey) throw new Error(`ROLE=${engines.role} runs beside other processes: it needs the shared SECRET_KEY`);
  secureDataDir(config.dataDir);
  const secrets = await SecretBox.load(config.secretKey, join(config.dataDir, 'secret.key'));
  const { store, readStore, blobs, bus, relay, close: closeEngines } = await openEngines(config, engines, log, (error) => onFatal(error, 'relay stopped'));
  const projections = runsProjectors(engines.role)
    ? new ProjectionRunner(store, readStore, selectProjections(engines.projections), (error) => onFatal(error, 'projections stopped'))
    : new RemoteProjections(store, readStore, allProjections, engines.settleTimeoutMs);
  try {
    await projections.start();
    await projections.caughtUp();
    await relay?.start();
  } catch (error) {
    await projections.stop();
    await closeEngines();
    throw error;
  }
  let delivery: DeliveryWorker | null = null;
  const runtime: Runtime = {
    config,
    log,
    engines,
    store,
    readStore,
    blobs,
    secrets,
    bus,
    projections,
    hints: bus.hints,
    images: sharpImages,
    checkOutboundUrl,
    commands: new CommandHandler(store, new AggregateCache()),
    ids: new SnowflakeGenerator({ workerId: config.workerId, processId: config.processId }),
    settle: (position) => projections.waitFor(position, engines.settleTimeoutMs),
    async close() {
      await delivery?.stop();
      await relay?.stop();
      await projections.stop();
      await bus.close();
      await closeEngines();
    },
  };
  if (runsDelivery(engines.role)) {
    delivery = new DeliveryWorker(runtime, { postJson, sign: signInteraction });
    await delivery.start();
  }
  return runtime;
}
