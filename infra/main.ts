// Entry point: `npm start` serves the whole API over HTTPS from this one process (the embedded default); ROLE and
// the engine settings make it one role of the distributed mode instead.
import { type RunningServer, startServer } from './compose.js';
import { loadConfig } from './config.js';
import { loadEngineConfig } from './engines.js';
import { createLogger } from './logger.js';
import { servesHttp } from './roles.js';
import { startRuntime } from './runtime.js';

async function main() {
  const config = loadConfig();
  const engines = loadEngineConfig();
  const log = createLogger(config.logLevel);
  let server: RunningServer | null = null;
  // In the distributed roles a stopped projector or relay ends the process, for its supervisor to restart it from
  // its checkpoint; the single process keeps serving and says so in the log, as before.
  const runtime = await startRuntime(config, log, engines, (error, what) => {
    log.fatal({ err: error }, what);
    if (engines.role !== 'all') void stop('fatal', 1);
  });
  if (servesHttp(engines.role)) server = await startServer(runtime);
  const scheme = config.plainHttp ? 'http' : 'https';
  const where = server ? { listening: `${scheme}://${config.host}:${server.port}`, api: `${config.publicBaseUrl}/api/v1` } : {};
  const what = { role: engines.role, store: engines.store.kind, readStore: engines.readStore.kind, bus: engines.bus.kind };
  log.info({ ...where, ...what, dataDir: config.dataDir }, server ? 'Parley is listening' : 'Parley is running');
  let stopping = false;
  async function stop(signal: string, code = 0) {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await server?.close();
    await runtime.close();
    process.exit(code);
  }
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error) => {
  console.error(`Parley failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
