// Entry point: `npm start` serves the whole API over HTTPS from this one process (the embedded default); ROLE and
// the engine settings make it one role of the distributed mode instead. compose() (infra/compose.ts) builds it.
import { type Composition, compose } from './compose.js';
import { loadConfig } from './config.js';
import { loadEngineConfig } from './engines.js';
import { createLogger } from './logger.js';
import { checkAdvertisedUrls, endsOnFatal } from './roles.js';
import { onUnhandledRejection } from './unhandled.js';

async function main() {
  const config = loadConfig();
  const engines = loadEngineConfig();
  checkAdvertisedUrls(engines.role, config, process.env);
  const log = createLogger(config.logLevel);
  let composition: Composition | null = null;
  let stopping = false;
  async function stop(signal: string, code = 0) {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    // Whatever still hangs after 10 s (a stuck engine) does not keep a supervisor waiting.
    setTimeout(() => {
      log.error({ signal }, 'shutdown took over 10 s: exiting anyway');
      process.exit(1);
    }, 10_000).unref();
    await composition?.close();
    log.info({ signal }, 'stopped');
    process.exit(code);
  }
  process.on('unhandledRejection', onUnhandledRejection(log, engines.role, stop));
  // In the distributed roles a stopped projector or relay ends the process (compose has logged it as fatal), for its
  // supervisor to restart it from its checkpoint; the single process keeps serving, as before.
  composition = await compose(config, engines, log, {
    onFatal: () => {
      if (endsOnFatal(engines.role)) void stop('fatal', 1);
    },
  });
  // Before the line that says it listens: a supervisor may send SIGTERM as soon as it reads it, and a signal that
  // came before its handler would end the process without a graceful stop.
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  const { http } = composition;
  const scheme = config.plainHttp ? 'http' : 'https';
  // The line a newcomer reads first: it says where the API's reference is, as GET / does.
  const docs = `${config.publicBaseUrl}/api/v1/docs`;
  // A role without the API still listens: the operator's endpoints, for its health check and scrapes.
  const listening = `${scheme}://${config.host}:${(http ?? composition.operator)?.port}`;
  const where = http ? { listening, api: `${config.publicBaseUrl}/api/v1`, docs } : { listening };
  const what = { role: engines.role, store: engines.store.kind, readStore: engines.readStore.kind, bus: engines.bus.kind };
  log.info({ ...where, ...what, dataDir: config.dataDir }, http ? `Parley is listening: the API reference is at ${docs}` : 'Parley is running');
}

main().catch((error) => {
  console.error(`Parley failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
