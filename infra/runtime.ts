// The runtime: what the core and the edges are handed — the command side, the read models, the blobs, the bus and
// the adapters behind the ports — assembled from engines the composition root (infra/compose.ts) has opened. It
// starts and stops nothing itself: compose() owns every lifecycle and the one close().
import type { CommandDeps } from '../commands/deps.js';
import { type GuildEventLog, StreamSlots } from '../commands/guildEvents.js';
import { AggregateCache, CommandHandler } from '../commands/handle.js';
import { SnowflakeGenerator } from '../domain/snowflake.js';
import type { BlobStore } from '../ports/blobs.js';
import { systemClock } from '../ports/clock.js';
import type { EventBus } from '../ports/bus.js';
import { type EventStore, encodePosition } from '../ports/eventStore.js';
import type { HintBus } from '../ports/hints.js';
import type { Leases } from '../ports/leases.js';
import type { Images } from '../ports/images.js';
import type { Metrics } from '../ports/metrics.js';
import type { RateLimits } from '../ports/rateLimits.js';
import type { CheckOutboundUrl, GetBytes, PostForAnswer } from '../ports/outbound.js';
import type { SecretBox } from '../ports/secrets.js';
import type { AttachmentRemover } from '../processes/attachmentRemoval.js';
import type { KeyShredder } from '../processes/keyShredding.js';
import type { ProjectionRunner } from '../projections/runner.js';
import type { Config } from './config.js';
import type { EngineConfig } from './engines.js';
import { sharpImages } from './images.js';
import type { Logger } from './logger.js';
import { checkOutboundUrl, getBytes, postForAnswer } from './outbound.js';
import type { Engines } from './roles.js';
import { guildEventLog } from './guildEventLog.js';

export interface Runtime extends CommandDeps {
  config: Config;
  log: Logger;
  store: EventStore;
  blobs: BlobStore;
  projections: ProjectionRunner;
  hints: HintBus;
  images: Images;
  checkOutboundUrl: CheckOutboundUrl;
  getBytes: GetBytes;
  postForAnswer: PostForAnswer;
  /** The role and engines this process runs (gateway and delivery code consume `bus` in theirs). */
  engines: EngineConfig;
  /** The log's events for consumers other than projectors; Kafka when BUS=kafka. */
  bus: EventBus;
  metrics: Metrics;
  rateLimits: RateLimits;
  leases: Leases;
  /** The analysts' event streams: the log as they read it, and the places this process gives them. */
  guildEvents: { log: GuildEventLog; slots: StreamSlots };
}

/**
 * The runtime on opened engines, with this process's projections (run here, or followed in the shared read store) and
 * its attachment remover (null where another process runs it).
 */
export function assembleRuntime(
  config: Config,
  log: Logger,
  engines: EngineConfig,
  opened: Pick<Engines, 'store' | 'readStore' | 'blobs' | 'bus' | 'rateLimits' | 'leases'>,
  secrets: SecretBox,
  projections: ProjectionRunner,
  metrics: Metrics,
  /** The followers erasing commands wait for (files and keys): none where another process runs them. */
  erasers: { remover?: Pick<AttachmentRemover, 'waitFor'> | null; shredder?: Pick<KeyShredder, 'waitFor'> | null },
  /** The snowflake process id this process holds (infra/processIds.ts). */
  processId: number,
): Runtime {
  const { store, readStore, blobs, bus, rateLimits, leases } = opened;
  return {
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
    getBytes,
    postForAnswer,
    clock: systemClock,
    metrics,
    rateLimits,
    leases,
    guildEvents: { log: guildEventLog(store), slots: new StreamSlots(config.eventStreams) },
    commands: new CommandHandler(store, new AggregateCache()),
    ids: new SnowflakeGenerator({ workerId: config.workerId, processId }),
    settle: (position) => projections.waitFor(position, engines.settleTimeoutMs),
    settleFiles: async (position) => {
      const [, keysGone] = await Promise.all([
        erasers.remover?.waitFor(position, engines.settleTimeoutMs),
        erasers.shredder?.waitFor(position, engines.settleTimeoutMs) ?? true,
      ]);
      // The erasure is answered anyway (docs/privacy.md): the keys go when the shredder gets to them.
      if (!keysGone && position)
        log.warn(
          { position: encodePosition(position) },
          `an erasure is answered before its keys are destroyed: the key shredder is more than ${engines.settleTimeoutMs} ms behind`,
        );
    },
  };
}
