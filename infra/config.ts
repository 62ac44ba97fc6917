// Configuration comes from the environment; every variable is documented in the README.
import { resolve } from 'node:path';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** Origin clients use to reach this server (API, CDN and gateway URLs are built from it). */
  publicBaseUrl: string;
  tls: { certFile: string; keyFile: string } | null;
  /** Plain HTTP, only for running behind a TLS-terminating proxy (PLAIN_HTTP=1). */
  plainHttp: boolean;
  workerId: number;
  processId: number;
  logLevel: string;
  jsonBodyLimit: number;
  /** How long a client may take to send its request headers (HEADERS_TIMEOUT_MS); a slower one is disconnected. */
  headersTimeoutMs: number;
  /** How long a client may take to send a whole request, body included (REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  /** The wss:// URL clients are sent to for the gateway; by default derived from publicBaseUrl. */
  gatewayUrl: string | null;
  gatewayHeartbeatMs: number;
  /** IDENTIFYs one user may make in 24 hours (GATEWAY_SESSION_START_LIMIT; 1000, as in the widely used API). */
  gatewaySessionStartLimit: number;
  /** The service's key for sealed secrets (SECRET_KEY, 32 bytes base64 or hex); null: a key file in DATA_DIR. */
  secretKey: string | null;
  /** Development only (INTERACTIONS_ALLOW_PRIVATE=1): interaction URLs may be private or loopback, with self-signed certificates. */
  interactionsAllowPrivate: boolean;
  /** The delay before the second delivery attempt; later ones grow from it (DELIVERY_BACKOFF_BASE_MS). */
  deliveryBackoffBaseMs: number;
  /** How long one delivery attempt may take (DELIVERY_TIMEOUT_MS). */
  deliveryTimeoutMs: number;
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.HOST || '127.0.0.1';
  const port = integer(env, 'PORT', 8443, 0, 65535);
  const plainHttp = env.PLAIN_HTTP === '1' || env.PLAIN_HTTP === 'true';
  const certFile = env.TLS_CERT_FILE;
  const keyFile = env.TLS_KEY_FILE;
  if (Boolean(certFile) !== Boolean(keyFile)) throw new Error('TLS_CERT_FILE and TLS_KEY_FILE go together: set both or neither');
  const scheme = plainHttp ? 'http' : 'https';
  return {
    host,
    port,
    dataDir: resolve(env.DATA_DIR || './data'),
    publicBaseUrl: (env.PUBLIC_BASE_URL || `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, ''),
    tls: certFile && keyFile ? { certFile, keyFile } : null,
    plainHttp,
    workerId: integer(env, 'WORKER_ID', 0, 0, 31),
    processId: integer(env, 'PROCESS_ID', 0, 0, 31),
    logLevel: env.LOG_LEVEL || 'info',
    jsonBodyLimit: integer(env, 'JSON_BODY_LIMIT', 8 * 1024 * 1024, 1024, 512 * 1024 * 1024),
    headersTimeoutMs: integer(env, 'HEADERS_TIMEOUT_MS', 20_000, 100, 600_000),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 300_000, 1000, 3_600_000),
    gatewayUrl: env.GATEWAY_URL ? env.GATEWAY_URL.replace(/\/+$/, '') : null,
    gatewayHeartbeatMs: integer(env, 'GATEWAY_HEARTBEAT_MS', 41_250, 100, 600_000),
    gatewaySessionStartLimit: integer(env, 'GATEWAY_SESSION_START_LIMIT', 1000, 1, 1_000_000),
    secretKey: env.SECRET_KEY || null,
    interactionsAllowPrivate: env.INTERACTIONS_ALLOW_PRIVATE === '1' || env.INTERACTIONS_ALLOW_PRIVATE === 'true',
    deliveryBackoffBaseMs: integer(env, 'DELIVERY_BACKOFF_BASE_MS', 30_000, 1, 30 * 60_000),
    deliveryTimeoutMs: integer(env, 'DELIVERY_TIMEOUT_MS', 10_000, 100, 120_000),
  };
}
