// The composition root: compose() builds every role of the service from configuration — the engines, the secrets,
// the projectors (or the shared read store's progress where they run elsewhere), the relay, the attachment remover,
// the runtime, the delivery worker, the HTTP(S) API and the WebSocket gateway on its server — and gives back what it
// started with one close() that stops it all in reverse order. openToolEngines() opens the same engines for the replay
// tool. Only the entry points import this module: infra/main.ts, infra/replay.ts, and test/support/server.ts for tests.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { CommandHandler } from '../commands/handle.js';
import { systemClock } from '../ports/clock.js';
import { Gateway } from '../gateway/server.js';
import { READY_MAX_LAG } from '../http/operations.js';
import { type RunningHttpServer, startHttpServer, startOperatorServer } from '../http/server.js';
import { AcknowledgementDeadline } from '../processes/acknowledgementDeadline.js';
import { AttachmentRemover } from '../processes/attachmentRemoval.js';
import { KeyShredder } from '../processes/keyShredding.js';
import { LeftoverDms } from '../processes/leftoverDms.js';
import { ThreadAutoArchive } from '../processes/threadAutoArchive.js';
import { DeliveryWorker } from '../processes/delivery.js';
import { allProjections } from '../projections/index.js';
import { ProjectionRunner } from '../projections/runner.js';
import type { Config } from './config.js';
import { secureDataDir } from './dataDir.js';
import { holdForServer, usesEmbeddedStores } from './dataDirLock.js';
import type { EngineConfig } from './engines.js';
import { SqliteEventStore } from './eventStore/sqlite.js';
import { signInteraction } from './interactionSignature.js';
import type { Logger } from './logger.js';
import { PrometheusMetrics } from './metrics.js';
import { ProcessIdLease } from './processIds.js';
import { postJson } from './outbound.js';
import { RemoteProjections } from './remoteProjections.js';
import { type Engines, consumesOrPublishes, openEngines, runsDelivery, runsGateway, runsProjectors, selectProjections, servesHttp } from './roles.js';
import { type Runtime, assembleRuntime } from './runtime.js';
import { MasterKeys } from './masterKeys.js';
import { SecretBox } from './secrets.js';
import { loadTls } from './tls.js';

/** The projection lag /metrics reports is counted up to this many events: a count reads them, and a scrape must stay cheap. */
const METRICS_LAG_CAP = 10_000;

/** What compose() started for this process's role (null where the role does not run it). */
export interface Composition {
  runtime: Runtime;
  /** The HTTP(S) API: roles api, gateway and all. */
  http: RunningHttpServer | null;
  /** The operator's endpoints alone (/healthz, /readyz, /metrics), on PORT: roles projector, relay and delivery. */
  operator: RunningHttpServer | null;
  /** The WebSocket gateway on the HTTP server: roles gateway and all. */
  gateway: Gateway | null;
  /** The interaction delivery worker: roles delivery and all. */
  delivery: DeliveryWorker | null;
  /** What removes the files of deleted messages, channels and guilds: roles delivery and all. */
  remover: AttachmentRemover | null;
  /** What destroys the keys of erased messages, channels, guilds and accounts: roles delivery and all. */
  shredder: KeyShredder | null;
  /**
   * Stops everything compose() started, last started first: server and gateway, delivery, attachment remover, relay,
   * projectors, bus, engines.
   */
  close(): Promise<void>;
}

export interface ComposeOptions {
  /**
   * Hears of a background part that stopped (projectors, relay) after it is logged as fatal; infra/main.ts ends a
   * distributed role's process on it.
   */
  onFatal?(error: unknown, what: string): void;
}

/** Starts the role `engines.role` on its engines (EMBEDDED, from infra/roles.ts, is the default single process). */
export async function compose(config: Config, engines: EngineConfig, log: Logger, options: ComposeOptions = {}): Promise<Composition> {
  const fatal = (error: unknown, what: string) => {
    log.fatal({ err: error }, what);
    options.onFatal?.(error, what);
  };
  // Processes of a distributed deployment seal and open the same secrets: they cannot each generate a key file.
  if (engines.role !== 'all' && !config.secretKey) throw new Error(`ROLE=${engines.role} runs beside other processes: it needs the shared SECRET_KEY`);
  if (engines.role !== 'all' && !config.masterKey) throw new Error(`ROLE=${engines.role} runs beside other processes: it needs the shared MASTER_KEY`);
  secureDataDir(config.dataDir);
  const { secrets, masterKeys } = await loadKeys(config);
  if (masterKeys.rotationPending)
    log.warn('a master key rotation was interrupted (DATA_DIR/master.key.next): stop the server and run `replay rotate-master-key` to finish it');

  // Whatever has started, in order; close() and a failed start stop it last first.
  const started: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of started.splice(0).reverse()) await stop();
  };
  try {
    if (usesEmbeddedStores(engines)) {
      const lock = holdForServer(config.dataDir);
      started.push(async () => lock.release());
    }
    const opened = await openEngines(config, engines, masterKeys, log, (error) => fatal(error, 'relay stopped'));
    started.push(async () => {
      await opened.bus.close();
      await opened.close();
    });
    const projections = runsProjectors(engines.role)
      ? new ProjectionRunner(opened.store, opened.readStore, selectProjections(engines.projections), (error) => fatal(error, 'projections stopped'))
      : new RemoteProjections(opened.store, opened.readStore, allProjections, engines.settleTimeoutMs, log);
    started.push(() => projections.stop());
    await projections.start();
    await projections.caughtUp();
    const { relay } = opened;
    if (relay) {
      await relay.start();
      started.push(() => relay.stop());
    }

    // The background workers' role follows the log to remove dropped files and destroy erased keys; the commands of
    // this process wait for both.
    let remover: AttachmentRemover | null = null;
    let shredder: KeyShredder | null = null;
    if (runsDelivery(engines.role)) {
      // The remover needs only ids, which the log keeps in clear: it follows the log as stored, with nothing to open.
      const worker = new AttachmentRemover(
        { ...opened, store: opened.store.sealedLog, commands: new CommandHandler(opened.store), clock: systemClock },
        config.uploadGraceMs,
        (error) => fatal(error, 'attachment removal stopped'),
      );
      remover = worker;
      started.push(() => worker.stop());
      await worker.start();
      const keys = new KeyShredder(opened.store.sealedLog, opened.keys, (error) => fatal(error, 'key shredding stopped'));
      shredder = keys;
      started.push(() => keys.stop());
      await keys.start();
    }

    const metrics = new PrometheusMetrics();
    if (opened.store.sealedLog instanceof SqliteEventStore) opened.store.sealedLog.observe(metrics);
    const holder = `${hostname()}:${process.pid}:${randomUUID()}`;
    const lease = await ProcessIdLease.take(opened.leases, config, holder, systemClock, (error) => fatal(error, 'snowflake process id lost'));
    started.push(() => lease.release());
    const runtime = assembleRuntime(config, log, engines, opened, secrets, projections, metrics, { remover, shredder }, lease.processId);
    // States the command side folded from what is now erased leave its cache once the keys are gone (commands/erasedStates.ts).
    opened.keys.onDestroyed(() => runtime.commands.keysDestroyed());

    let delivery: DeliveryWorker | null = null;
    if (runsDelivery(engines.role)) {
      const worker = new DeliveryWorker(runtime, { postJson, sign: signInteraction });
      delivery = worker;
      started.push(() => worker.stop());
      await worker.start();
      const deadline = new AcknowledgementDeadline(runtime);
      started.push(() => deadline.stop());
      await deadline.start();
      // The background workers' role, beside the other clocks: it serves no requests, and two of them would only find
      // each other's archivings made (the thread's decider appends each once).
      const archiver = new ThreadAutoArchive(runtime, config.threadArchiveSweepMs);
      started.push(() => archiver.stop());
      archiver.start();
      // Once a start, in the background: DMs whose two accounts were deleted before deletions left DMs end.
      const leftoverDms = new LeftoverDms(runtime);
      started.push(() => leftoverDms.stop());
      leftoverDms.start();
    }

    let http: RunningHttpServer | null = null;
    let operator: RunningHttpServer | null = null;
    let gateway: Gateway | null = null;
    const tls = config.plainHttp ? null : await loadTls(config.dataDir, config.tls, config.host);
    // Every role reports the lag of the projections it reads: a projector its own, the others the shared checkpoints.
    // The roles that consume or publish the bus are not ready while it cannot be reached (an api node's hints are
    // best effort, and it serves without them).
    const busNeeded = consumesOrPublishes(engines.role);
    const observed = {
      lag: async () => {
        const [lags] = await Promise.all([projections.lag(READY_MAX_LAG + 1), busNeeded && opened.bus.reachable()]);
        return Math.max(0, ...Object.values(lags));
      },
      metrics: () => metrics.render(),
    };
    metrics.watch({
      projectionLag: () => projections.lag(METRICS_LAG_CAP),
      gateway: () => gateway && { sessions: gateway.registry.size, dispatches: gateway.registry.dispatchesSent },
    });
    if (!servesHttp(engines.role)) {
      const server = await startOperatorServer(config, tls, observed);
      operator = server;
      started.push(() => server.close());
    } else {
      // API-only processes of the distributed mode leave the WebSocket gateway to the gateway role (see GATEWAY_URL).
      const ws = runsGateway(engines.role)
        ? new Gateway(runtime, { heartbeatIntervalMs: config.gatewayHeartbeatMs, soleNode: engines.bus.kind === 'local' })
        : null;
      gateway = ws;
      try {
        // The gateway takes the server's upgrades before it listens, and is closed first when the server closes.
        const server = await startHttpServer(runtime, tls, observed, {
          beforeListen: async (server) => ws?.start(server),
          beforeClose: async () => ws?.close(),
        });
        http = server;
        started.push(() => server.close());
      } catch (error) {
        await ws?.close();
        throw error;
      }
    }

    let closing: Promise<void> | null = null;
    return { runtime, http, operator, gateway, delivery, remover, shredder, close: () => (closing ??= stopAll()) };
  } catch (error) {
    await stopAll().catch(() => {});
    throw error;
  }
}

/**
 * The replay tool's engines: the log and the read models of the environment it runs in, and never a bus or a relay
 * (it reads the log and writes read models only, whatever BUS says).
 */
export async function openToolEngines(
  config: Config,
  engines: EngineConfig,
  log: Logger,
): Promise<Pick<Engines, 'store' | 'keys' | 'readStore' | 'close'> & { secrets: SecretBox; masterKeys: MasterKeys }> {
  // Shared engines were written with SECRET_KEY and MASTER_KEY: what they sealed opens with no other, and key files
  // generated here would not match.
  if (!usesEmbeddedStores(engines) && !config.secretKey) throw new Error('the replay tool on shared engines needs the SECRET_KEY their processes use');
  if (!usesEmbeddedStores(engines) && !config.masterKey) throw new Error('the replay tool on shared engines needs the MASTER_KEY their processes use');
  const { secrets, masterKeys } = await loadKeys(config);
  return { ...(await openEngines(config, { ...engines, bus: { kind: 'local' } }, masterKeys, log, () => {})), secrets, masterKeys };
}

/** The service's SecretBox, and the master keys that wrap data keys (which open through it what it wrapped before them). */
async function loadKeys(config: Config): Promise<{ secrets: SecretBox; masterKeys: MasterKeys }> {
  const secrets = await SecretBox.load(config.secretKey, join(config.dataDir, 'secret.key'));
  return { secrets, masterKeys: MasterKeys.load(config, secrets) };
}
