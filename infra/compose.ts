// The composition root's wiring of the API role: the HTTP(S) server and, on the same server, the WebSocket gateway.
// infra/main.ts runs it; tests start the same wiring through test/support/server.ts.
import { Gateway } from '../gateway/server.js';
import { type RunningHttpServer, startHttpServer } from '../http/server.js';
import type { Runtime } from './runtime.js';
import { loadTls } from './tls.js';

export interface RunningServer extends RunningHttpServer {
  gateway: Gateway | null;
}

export async function startServer(runtime: Runtime): Promise<RunningServer> {
  const { config } = runtime;
  const tls = config.plainHttp ? null : await loadTls(config.dataDir, config.tls, config.host);
  let gateway: Gateway | null = null;
  const http = await startHttpServer(runtime, tls, {
    async beforeListen(server) {
      // API-only processes of the distributed mode leave the WebSocket gateway to the gateway role (see GATEWAY_URL).
      if (runtime.engines.role === 'api') return;
      gateway = new Gateway(runtime, { heartbeatIntervalMs: config.gatewayHeartbeatMs });
      await gateway.start(server);
    },
    async beforeClose() {
      await gateway?.close();
    },
  });
  return { ...http, gateway };
}
