// Entry point: `npm start` serves the whole API over HTTPS from this one process (the embedded default).
import { startServer } from '../http/server.js';
import { loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startRuntime } from './runtime.js';

async function main() {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const runtime = await startRuntime(config, log);
  const server = await startServer(runtime);
  const scheme = config.plainHttp ? 'http' : 'https';
  log.info({ listening: `${scheme}://${config.host}:${server.port}`, api: `${config.publicBaseUrl}/api/v1`, dataDir: config.dataDir }, 'Parley is listening');
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await server.close();
    await runtime.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error) => {
  console.error(`Parley failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
