// Configuration comes from the environment; every variable is documented in the README's Configuration, the
// distributed mode's in docs/distributed.md.
import { resolve } from 'node:path';
import type { Config, RtcRegion } from '../ports/config.js';
import { SCRUB_AFTER_MS } from './readStore/sqlite.js';

export type { Config };

/** An integer setting within its bounds, or the fallback when unset; anything else fails the start with one line. */
export function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return value;
}

/** The regions of the widely used API, which clients show with these names and flags. */
const DEFAULT_RTC_REGIONS: RtcRegion[] = [
  { id: 'brazil', name: 'Brazil', emoji: '🇧🇷' },
  { id: 'hongkong', name: 'Hong Kong', emoji: '🇭🇰' },
  { id: 'india', name: 'India', emoji: '🇮🇳' },
  { id: 'japan', name: 'Japan', emoji: '🇯🇵' },
  { id: 'rotterdam', name: 'Rotterdam', emoji: '🇳🇱' },
  { id: 'singapore', name: 'Singapore', emoji: '🇸🇬' },
  { id: 'south-korea', name: 'South Korea', emoji: '🇰🇷' },
  { id: 'southafrica', name: 'South Africa', emoji: '🇿🇦' },
  { id: 'sydney', name: 'Sydney', emoji: '🇦🇺' },
  { id: 'us-central', name: 'US Central', emoji: '🇺🇸' },
  { id: 'us-east', name: 'US East', emoji: '🇺🇸' },
  { id: 'us-south', name: 'US South', emoji: '🇺🇸' },
  { id: 'us-west', name: 'US West', emoji: '🇺🇸' },
];

/** RTC_REGIONS: a JSON array of {id, name, emoji}, ids unique and made of lowercase letters, digits and dashes. */
function rtcRegions(raw: string | undefined): RtcRegion[] {
  if (raw === undefined || raw === '') return DEFAULT_RTC_REGIONS;
  const problem = 'RTC_REGIONS must be a non-empty JSON array of {"id","name","emoji"} strings with unique ids of a-z, 0-9 and -';
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new Error(problem);
  }
  const text = (v: unknown, max: number) => typeof v === 'string' && v.length > 0 && v.length <= max;
  if (!Array.isArray(value) || value.length === 0) throw new Error(problem);
  const regions = value.map((entry: Record<string, unknown>) => {
    if (
      typeof entry !== 'object' ||
      entry === null ||
      !text(entry.id, 32) ||
      !/^[a-z0-9-]+$/.test(entry.id as string) ||
      !text(entry.name, 100) ||
      !text(entry.emoji, 32)
    )
      throw new Error(problem);
    return { id: entry.id as string, name: entry.name as string, emoji: entry.emoji as string };
  });
  if (new Set(regions.map((r) => r.id)).size !== regions.length) throw new Error(problem);
  return regions;
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
    processId: env.PROCESS_ID ? integer(env, 'PROCESS_ID', 0, 0, 31) : null,
    logLevel: env.LOG_LEVEL || 'info',
    jsonBodyLimit: integer(env, 'JSON_BODY_LIMIT', 8 * 1024 * 1024, 1024, 512 * 1024 * 1024),
    headersTimeoutMs: integer(env, 'HEADERS_TIMEOUT_MS', 20_000, 100, 600_000),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 300_000, 1000, 3_600_000),
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 5000, 0, 60_000),
    maxRequestsInFlight: integer(env, 'MAX_REQUESTS_IN_FLIGHT', 512, 0, 1_000_000),
    admissionMinInFlight: integer(env, 'ADMISSION_MIN_IN_FLIGHT', 32, 1, 1_000_000),
    admissionTargetMs: integer(env, 'ADMISSION_TARGET_MS', 200, 0, 60_000),
    metricsToken: env.METRICS_TOKEN || null,
    gatewayUrl: env.GATEWAY_URL ? env.GATEWAY_URL.replace(/\/+$/, '') : null,
    gatewayNodeUrl: env.GATEWAY_NODE_URL ? env.GATEWAY_NODE_URL.replace(/\/+$/, '') : null,
    gatewayHeartbeatMs: integer(env, 'GATEWAY_HEARTBEAT_MS', 41_250, 100, 600_000),
    gatewaySessionStartLimit: integer(env, 'GATEWAY_SESSION_START_LIMIT', 1000, 1, 1_000_000),
    gatewayOutboundBufferBytes: integer(env, 'GATEWAY_OUTBOUND_BUFFER_BYTES', 4 * 1024 * 1024, 64 * 1024, 1024 * 1024 * 1024),
    readModelScrubMs: integer(env, 'READ_MODEL_SCRUB_MS', SCRUB_AFTER_MS, 10, 3_600_000),
    secretKey: env.SECRET_KEY || null,
    masterKey: env.MASTER_KEY || null,
    masterKeysRetired: (env.MASTER_KEYS_RETIRED ?? '')
      .split(',')
      .map((key) => key.trim())
      .filter(Boolean),
    interactionsAllowPrivate: env.INTERACTIONS_ALLOW_PRIVATE === '1' || env.INTERACTIONS_ALLOW_PRIVATE === 'true',
    deliveryBackoffBaseMs: integer(env, 'DELIVERY_BACKOFF_BASE_MS', 30_000, 1, 30 * 60_000),
    deliveryTimeoutMs: integer(env, 'DELIVERY_TIMEOUT_MS', 10_000, 100, 120_000),
    oauth2AccessTokenTtl: integer(env, 'OAUTH2_ACCESS_TOKEN_TTL', 604_800, 1, 365 * 86_400),
    rtcRegions: rtcRegions(env.RTC_REGIONS),
    voiceEndpoint: env.VOICE_ENDPOINT || null,
    callRingTimeoutMs: integer(env, 'CALL_RING_TIMEOUT_MS', 60_000, 100, 10 * 60_000),
    threadArchiveSweepMs: integer(env, 'THREAD_ARCHIVE_SWEEP_MS', 60_000, 10, 3_600_000),
    uploadGraceMs: integer(env, 'UPLOAD_GRACE_MS', 3_600_000, 100, 7 * 86_400_000),
    eventStreams: {
      bufferBytes: integer(env, 'EVENT_STREAM_BUFFER_BYTES', 1024 * 1024, 1024, 1024 * 1024 * 1024),
      stallMs: integer(env, 'EVENT_STREAM_STALL_MS', 30_000, 10, 3_600_000),
      heartbeatMs: integer(env, 'EVENT_STREAM_HEARTBEAT_MS', 15_000, 10, 600_000),
      perUser: integer(env, 'EVENT_STREAMS_PER_USER', 2, 1, 10_000),
      perGuild: integer(env, 'EVENT_STREAMS_PER_GUILD', 8, 1, 10_000),
    },
  };
}
