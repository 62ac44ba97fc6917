// The HTTPS server (TLS 1.2 minimum, as the spec requires); plain HTTP only when PLAIN_HTTP opts in for a
// TLS-terminating proxy in front. It serves HTTP only: the composition root (infra/compose.ts) hands the server to
// the WebSocket gateway through the hooks below.
import { type IncomingMessage, type Server as PlainServer, type ServerResponse, createServer as createHttpServer } from 'node:http';
import { type Server, createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { type Admission, admission } from './admission.js';
import { type AppOptions, createApp } from './app.js';
import { answerClientErrors, refusePlainHttp } from './connectionErrors.js';
import type { HttpDeps } from './context.js';
import { operations } from './operations.js';

export type HttpServer = Server | PlainServer;

export interface RunningHttpServer {
  server: HttpServer;
  port: number;
  /** The self-signed or configured certificate, for clients that must trust it (tests). */
  cert: string | null;
  close(): Promise<void>;
}

export interface HttpServerHooks {
  /** Called with the server before it listens (the root attaches the WebSocket gateway's upgrade handler here). */
  beforeListen?(server: HttpServer): Promise<void>;
  /** Called first when the server closes. */
  beforeClose?(): Promise<void>;
}

/** tls: the certificate and key to serve HTTPS with; null when config.plainHttp. `observed`: what /readyz and /metrics read. */
export async function startHttpServer(
  deps: HttpDeps,
  tls: { cert: string; key: string } | null,
  observed: Omit<AppOptions, 'ready'>,
  hooks: HttpServerHooks = {},
): Promise<RunningHttpServer> {
  const admitted = admission(deps.config, deps.metrics);
  return serve(deps.config, tls, (ready) => createApp(deps, { ...observed, ready }, admitted), hooks, admitted);
}

/**
 * The operator's endpoints alone (/healthz, /readyz, /metrics), for the roles that serve no API (projector, relay,
 * delivery): their health checks and scrapes reach them as they reach every other process.
 */
export async function startOperatorServer(
  config: HttpDeps['config'],
  tls: { cert: string; key: string } | null,
  observed: Omit<AppOptions, 'ready'>,
): Promise<RunningHttpServer> {
  return serve(config, tls, (ready) => {
    const app = new Koa();
    app.silent = true;
    app.use(operations({ ...observed, ready, metricsToken: config.metricsToken }));
    app.use((ctx) => {
      ctx.status = 404;
      ctx.body = { code: 'NOT_FOUND', message: 'This process serves no API: only /healthz, /readyz and /metrics' };
    });
    return app;
  });
}

async function serve(
  config: HttpDeps['config'],
  tls: { cert: string; key: string } | null,
  createKoa: (ready: () => boolean) => Koa,
  hooks: HttpServerHooks = {},
  admitted?: Admission,
): Promise<RunningHttpServer> {
  let ready = false;
  const app = createKoa(() => ready);
  // koa answers its own failures (errorHandler): the server's request listener has nothing to wait for.
  const answer = app.callback();
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    if (admitted && !admitted.enter(req, res)) return;
    void answer(req, res);
  };
  let cert: string | null = null;
  let server: HttpServer;
  // A client that drips its request a byte at a time is cut off: Node checks these timeouts every few seconds.
  const timeouts = {
    headersTimeout: config.headersTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    connectionsCheckingInterval: 2_000,
    keepAliveTimeout: 65_000,
  };
  if (!tls) {
    server = createHttpServer(timeouts, handler);
  } else {
    cert = tls.cert;
    // A TLS handshake gets as long as the request headers do.
    const https = createHttpsServer({ ...timeouts, cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2', handshakeTimeout: config.headersTimeoutMs }, handler);
    refusePlainHttp(https, config.headersTimeoutMs);
    admitted?.watchHandshakes(https);
    server = https;
  }
  answerClientErrors(server);
  await hooks.beforeListen?.(server);
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
    /** Stops accepting, lets requests in flight finish for up to shutdownGraceMs, then cuts what is left. */
    async close() {
      ready = false;
      // No connection is taken from here on; the server closes once the open ones have ended.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await hooks.beforeClose?.();
      // A keep-alive connection goes as soon as it is idle: its current request, if any, is answered first.
      const idle = setInterval(() => server.closeIdleConnections(), 50);
      const cut = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs);
      server.closeIdleConnections();
      await closed;
      clearInterval(idle);
      clearTimeout(cut);
    },
  };
}
