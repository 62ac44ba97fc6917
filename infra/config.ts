// Configuration comes from the environment; every variable is documented in the README.
import { resolve } from 'node:path';
import type { Config } from '../ports/config.js';

export type { Config };

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
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 5000, 0, 60_000),
    metricsToken: env.METRICS_TOKEN || null,
    gatewayUrl: env.GATEWAY_URL ? env.GATEWAY_URL.replace(/\/+$/, '') : null,
    gatewayHeartbeatMs: integer(env, 'GATEWAY_HEARTBEAT_MS', 41_250, 100, 600_000),
    gatewaySessionStartLimit: integer(env, 'GATEWAY_SESSION_START_LIMIT', 1000, 1, 1_000_000),
    secretKey: env.SECRET_KEY || null,
    interactionsAllowPrivate: env.INTERACTIONS_ALLOW_PRIVATE === '1' || env.INTERACTIONS_ALLOW_PRIVATE === 'true',
    deliveryBackoffBaseMs: integer(env, 'DELIVERY_BACKOFF_BASE_MS', 30_000, 1, 30 * 60_000),
    deliveryTimeoutMs: integer(env, 'DELIVERY_TIMEOUT_MS', 10_000, 100, 120_000),
    oauth2AccessTokenTtl: integer(env, 'OAUTH2_ACCESS_TOKEN_TTL', 604_800, 1, 365 * 86_400),
  };
}
