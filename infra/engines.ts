// Which engines and which process role this process runs, from the environment (documented in the README), and the
// one error every adapter raises when its engine cannot be reached at start.
export type Role = 'api' | 'projector' | 'relay' | 'gateway' | 'delivery' | 'all';
export const ROLES: readonly Role[] = ['api', 'projector', 'relay', 'gateway', 'delivery', 'all'];

export interface EngineConfig {
  role: Role;
  store: { kind: 'sqlite' } | { kind: 'esdb'; url: string };
  readStore: { kind: 'embedded' } | { kind: 'mongodb'; url: string; database: string };
  bus: { kind: 'local' } | { kind: 'kafka'; brokers: string[]; topic: string; clientId: string };
  /** Projections a projector process runs (PROJECTIONS=users,applications); all of them when unset. */
  projections: string[] | null;
  /** How long an api waits for the read models to include its own write before answering anyway. */
  settleTimeoutMs: number;
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
  const store = choice(env, 'STORE', ['sqlite', 'esdb'] as const, 'sqlite');
  const readStore = choice(env, 'READ_STORE', ['embedded', 'mongodb'] as const, 'embedded');
  const bus = choice(env, 'BUS', ['local', 'kafka'] as const, 'local');
  if (role !== 'all' && store === 'sqlite') throw new Error(`ROLE=${role} runs beside other processes: it needs a shared log (STORE=esdb with ESDB_URL)`);
  if (role !== 'all' && readStore === 'embedded')
    throw new Error(`ROLE=${role} runs beside other processes: it needs shared read models (READ_STORE=mongodb with MONGO_URL)`);
  if (role === 'relay' && bus !== 'kafka') throw new Error('ROLE=relay publishes to Kafka: it needs BUS=kafka with KAFKA_BROKERS');
  const settle = Number(env.SETTLE_TIMEOUT_MS || 5000);
  if (!Number.isInteger(settle) || settle < 0 || settle > 60_000)
    throw new Error(`SETTLE_TIMEOUT_MS must be an integer from 0 to 60000, got "${env.SETTLE_TIMEOUT_MS}"`);
  return {
    role,
    store: store === 'esdb' ? { kind: 'esdb', url: required(env, 'ESDB_URL', 'STORE=esdb') } : { kind: 'sqlite' },
    readStore:
      readStore === 'mongodb'
        ? { kind: 'mongodb', url: required(env, 'MONGO_URL', 'READ_STORE=mongodb'), database: env.MONGO_DB || 'parley' }
        : { kind: 'embedded' },
    bus:
      bus === 'kafka'
        ? {
            kind: 'kafka',
            brokers: required(env, 'KAFKA_BROKERS', 'BUS=kafka')
              .split(',')
              .map((b) => b.trim())
              .filter(Boolean),
            topic: env.KAFKA_TOPIC || 'parley.events',
            clientId: env.KAFKA_CLIENT_ID || 'parley',
          }
        : { kind: 'local' },
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
    readonly engine: 'EventStoreDB' | 'MongoDB' | 'Kafka',
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
