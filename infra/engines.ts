// Which engines and which process role this process runs, from the environment (documented in docs/distributed.md), and the
// one error every adapter raises when its engine cannot be reached at start.
import { hostname } from 'node:os';
import { integer } from './config.js';
export type Role = 'api' | 'projector' | 'relay' | 'gateway' | 'delivery' | 'all';
export const ROLES: readonly Role[] = ['api', 'projector', 'relay', 'gateway', 'delivery', 'all'];

export interface EngineConfig {
  role: Role;
  /** `poolSize`: the most connections each PostgreSQL pool of the process opens (POSTGRES_POOL_SIZE; pg's 10 when unset). */
  store: { kind: 'sqlite' } | { kind: 'esdb'; url: string } | { kind: 'postgres'; url: string; poolSize?: number };
  readStore: { kind: 'embedded' } | { kind: 'mongodb'; url: string; database: string } | { kind: 'postgres'; url: string; poolSize?: number };
  bus: { kind: 'local' } | ({ kind: 'kafka' } & KafkaSettings);
  /** Projections a projector process runs (PROJECTIONS=users,applications); all of them when unset. */
  projections: string[] | null;
  /** How long an api waits for the read models to include its own write before answering anyway. */
  settleTimeoutMs: number;
}

export type SaslMechanism = 'plain' | 'scram-sha-256' | 'scram-sha-512';

/** The Kafka bus's settings (docs/distributed.md: every KAFKA_* variable and its default). */
export interface KafkaSettings {
  brokers: string[];
  topic: string;
  clientId: string;
  /** Partitions of the topic when the bus creates it. */
  partitions: number;
  /** Copies of each partition, and how many must have a write before acks=-1 holds it as written (topic creation). */
  replicationFactor: number;
  minInsyncReplicas: number;
  ssl: boolean;
  /** Its password is left out of JSON and util.inspect: settings may be logged, secrets never. */
  sasl: { mechanism: SaslMechanism; username: string; password: string } | null;
  /** This process in its consumer groups: the same across restarts, distinct between processes. */
  member: string;
  /** The most bytes of messages one send carries: under the brokers' message.max.bytes (1,048,588 by default). */
  maxBatchBytes: number;
  /** How long a consumer may take to join its group before the start fails. */
  joinTimeoutMs: number;
}

/** What a password looks like wherever settings are printed. */
function hidden<T extends object>(value: T, secret: keyof T): T {
  const shown = () => ({ ...value, [secret]: '***' });
  Object.defineProperty(value, 'toJSON', { value: shown, enumerable: false });
  Object.defineProperty(value, Symbol.for('nodejs.util.inspect.custom'), { value: shown, enumerable: false });
  return value;
}

export function loadKafkaSettings(env: NodeJS.ProcessEnv): KafkaSettings {
  const replicationFactor = integer(env, 'KAFKA_REPLICATION_FACTOR', 3, 1, 32);
  const minInsyncReplicas = integer(env, 'KAFKA_MIN_INSYNC_REPLICAS', Math.min(2, replicationFactor), 1, 32);
  if (minInsyncReplicas > replicationFactor)
    throw new Error(`KAFKA_MIN_INSYNC_REPLICAS (${minInsyncReplicas}) cannot exceed KAFKA_REPLICATION_FACTOR (${replicationFactor}): no write could succeed`);
  const mechanism = choice(env, 'KAFKA_SASL_MECHANISM', ['none', 'plain', 'scram-sha-256', 'scram-sha-512'] as const, 'none');
  const sasl =
    mechanism === 'none'
      ? null
      : hidden(
          {
            mechanism,
            username: required(env, 'KAFKA_SASL_USERNAME', `KAFKA_SASL_MECHANISM=${mechanism}`),
            password: required(env, 'KAFKA_SASL_PASSWORD', `KAFKA_SASL_MECHANISM=${mechanism}`),
          },
          'password',
        );
  return {
    brokers: required(env, 'KAFKA_BROKERS', 'BUS=kafka')
      .split(',')
      .map((b) => b.trim())
      .filter(Boolean),
    topic: env.KAFKA_TOPIC || 'parley.events',
    clientId: env.KAFKA_CLIENT_ID || 'parley',
    partitions: integer(env, 'KAFKA_PARTITIONS', 12, 1, 10_000),
    replicationFactor,
    minInsyncReplicas,
    ssl: env.KAFKA_SSL === '1' || env.KAFKA_SSL === 'true',
    sasl,
    member: env.KAFKA_GROUP_MEMBER || `${hostname()}-${env.WORKER_ID || 0}-${env.PROCESS_ID || 0}`,
    // Its floor leaves room for the largest event (infra/eventStore/limits.ts) with its key and headers.
    maxBatchBytes: integer(env, 'KAFKA_MAX_BATCH_BYTES', 1_000_000, 1_000_000, 100 * 1024 * 1024),
    joinTimeoutMs: integer(env, 'KAFKA_JOIN_TIMEOUT_MS', 60_000, 1000, 600_000),
  };
}

function choice<T extends string>(env: NodeJS.ProcessEnv, name: string, options: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(options as readonly string[]).includes(raw)) throw new Error(`${name} must be one of ${options.join(', ')}, got "${raw}"`);
  return raw as T;
}

function required(env: NodeJS.ProcessEnv, name: string, because: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is required when ${because}`);
  return value;
}

export function loadEngineConfig(env: NodeJS.ProcessEnv = process.env): EngineConfig {
  const role = choice(env, 'ROLE', ROLES, 'all');
  const store = choice(env, 'STORE', ['sqlite', 'esdb', 'postgres'] as const, 'sqlite');
  const readStore = choice(env, 'READ_STORE', ['embedded', 'mongodb', 'postgres'] as const, 'embedded');
  const bus = choice(env, 'BUS', ['local', 'kafka'] as const, 'local');
  if (role !== 'all' && store === 'sqlite')
    throw new Error(`ROLE=${role} runs beside other processes: it needs a shared log (STORE=postgres with POSTGRES_URL, or STORE=esdb with ESDB_URL)`);
  if (role !== 'all' && readStore === 'embedded')
    throw new Error(
      `ROLE=${role} runs beside other processes: it needs shared read models (READ_STORE=postgres with POSTGRES_URL, or READ_STORE=mongodb with MONGO_URL)`,
    );
  if (role === 'relay' && bus !== 'kafka') throw new Error('ROLE=relay publishes to Kafka: it needs BUS=kafka with KAFKA_BROKERS');
  const poolSize = integer(env, 'POSTGRES_POOL_SIZE', 10, 1, 1000);
  const settle = Number(env.SETTLE_TIMEOUT_MS || 5000);
  if (!Number.isInteger(settle) || settle < 0 || settle > 60_000)
    throw new Error(`SETTLE_TIMEOUT_MS must be an integer from 0 to 60000, got "${env.SETTLE_TIMEOUT_MS}"`);
  return {
    role,
    store:
      store === 'esdb'
        ? { kind: 'esdb', url: required(env, 'ESDB_URL', 'STORE=esdb') }
        : store === 'postgres'
          ? { kind: 'postgres', url: required(env, 'POSTGRES_URL', 'STORE=postgres'), poolSize }
          : { kind: 'sqlite' },
    readStore:
      readStore === 'mongodb'
        ? { kind: 'mongodb', url: required(env, 'MONGO_URL', 'READ_STORE=mongodb'), database: env.MONGO_DB || 'parley' }
        : readStore === 'postgres'
          ? { kind: 'postgres', url: required(env, 'POSTGRES_URL', 'READ_STORE=postgres'), poolSize }
          : { kind: 'embedded' },
    bus: bus === 'kafka' ? { kind: 'kafka', ...loadKafkaSettings(env) } : { kind: 'local' },
    projections: env.PROJECTIONS
      ? env.PROJECTIONS.split(',')
          .map((p) => p.trim())
          .filter(Boolean)
      : null,
    settleTimeoutMs: settle,
  };
}

/** An engine that could not be reached at start: main prints the message alone, on one line, and exits non-zero. */
export class EngineUnreachableError extends Error {
  constructor(
    readonly engine: 'EventStoreDB' | 'MongoDB' | 'PostgreSQL' | 'Kafka',
    readonly address: string,
    cause: unknown,
  ) {
    super(`${engine} is unreachable at ${redact(address)}: ${firstLine(cause)}`);
    this.name = 'EngineUnreachableError';
  }
}

/** Bounds a start-up step: an engine that never answers must not leave the process hanging. */
export async function withDeadline<T>(step: Promise<T>, ms: number, engine: EngineUnreachableError['engine'], address: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new EngineUnreachableError(engine, address, `no answer within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([
      step.catch((error) => Promise.reject(error instanceof EngineUnreachableError ? error : new EngineUnreachableError(engine, address, error))),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function firstLine(cause: unknown): string {
  const text = cause instanceof Error ? cause.message : String(cause);
  // gRPC appends an empty "Resolution note:" to its messages: leave it out of the one line.
  return (
    text
      .split('\n')[0]
      .replace(/\s*Resolution note:\s*$/, '')
      .trim() || 'no answer'
  );
}

/** Connection strings may carry a password: never print it. */
function redact(address: string): string {
  return address.replace(/\/\/([^@/]*)@/, '//***@');
}
