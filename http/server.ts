// The HTTPS server (TLS 1.2 minimum, as the spec requires); plain HTTP only when PLAIN_HTTP opts in for a
// TLS-terminating proxy in front.
import { createServer as createHttpServer } from 'node:http';
import { type Server, createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Gateway } from '../gateway/server.js';
import type { Runtime } from '../infra/runtime.js';
import { loadTls } from '../infra/tls.js';
import { createApp } from './app.js';

export interface RunningServer {
  server: Server | ReturnType<typeof createHttpServer>;
  port: number;
  /** The self-signed or configured certificate, for clients that must trust it (tests). */
  cert: string | null;
  gateway: Gateway | null;
  close(): Promise<void>;
}

export async function startServer(runtime: Runtime): Promise<RunningServer> {
  const { config } = runtime;
  let ready = false;
  const app = createApp(runtime, { ready: () => ready });
  const handler = app.callback();
  let cert: string | null = null;
  let server: Server | ReturnType<typeof createHttpServer>;
  // A client that drips its request a byte at a time is cut off: Node checks these timeouts every few seconds.
  const timeouts = { headersTimeout: config.headersTimeoutMs, requestTimeout: config.requestTimeoutMs, connectionsCheckingInterval: 2_000, keepAliveTimeout: 65_000 };
  if (config.plainHttp) {
    server = createHttpServer(timeouts, handler);
  } else {
    const tls = await loadTls(config.dataDir, config.tls, config.host);
    cert = tls.cert;
    // A TLS handshake gets as long as the request headers do.
    server = createHttpsServer({ ...timeouts, cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2', handshakeTimeout: config.headersTimeoutMs }, handler);
  }
  // API-only processes of the distributed mode leave the WebSocket gateway to the gateway role (see GATEWAY_URL).
  const gateway = runtime.engines.role === 'api' ? null : new Gateway(runtime, { heartbeatIntervalMs: config.gatewayHeartbeatMs });
  await gateway?.start(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  ready = true;
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    cert,
    gateway,
    async close() {
      ready = false;
      await gateway?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
