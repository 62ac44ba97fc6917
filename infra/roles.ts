// What each process role runs and on which engines: the composition behind ROLE, STORE, READ_STORE and BUS.
// ROLE=all on the embedded engines is the default single process; every other role shares ESDB and MongoDB with
// its peers (and Kafka for the relay and the bus consumers).
import { join } from 'node:path';
import { allProjections } from '../projections/index.js';
import type { Projection } from '../projections/projection.js';
import { gatewayUrl } from '../presenters/urls.js';
import { FileBlobStore } from './blobs/files.js';
import type { BlobStore } from '../ports/blobs.js';
import { LocalEventBus } from './bus/local.js';
import type { EventBus } from '../ports/bus.js';
import { Relay } from './bus/relay.js';
import type { Config } from './config.js';
import type { EngineConfig, Role } from './engines.js';
import { SqliteEventStore } from './eventStore/sqlite.js';
import type { Logger } from './logger.js';
import { SealingEventStore } from './eventStore/sealing.js';
import { SqliteKeyStore } from './keys/sqlite.js';
import type { KeyStore } from '../ports/keyStore.js';
import { MasterKeys } from './masterKeys.js';
import { SecretBox } from './secrets.js';
import { CachedReadStore } from './readStore/cached.js';
import type { ReadStore } from '../ports/readStore.js';
import { SqliteReadStore } from './readStore/sqlite.js';
import { SqliteLeases } from './leases/sqlite.js';
import type { Leases } from '../ports/leases.js';
import type { RateLimits } from '../ports/rateLimits.js';
import { MemoryRateLimits } from './rateLimits/counters.js';

/** The embedded default: ROLE=all on SQLite and files, what loadEngineConfig gives for an empty environment. */
export const EMBEDDED: EngineConfig = {
  role: 'all',
  store: { kind: 'sqlite' },
  readStore: { kind: 'embedded' },
  bus: { kind: 'local' },
  projections: null,
  settleTimeoutMs: 5000,
};

export const servesHttp = (role: Role) => role === 'api' || role === 'gateway' || role === 'all';
/** The WebSocket gateway rides on the HTTP server of these roles; an api process leaves it to the gateway role. */
export const runsGateway = (role: Role) => role === 'gateway' || role === 'all';
export const runsProjectors = (role: Role) => role === 'projector' || role === 'all';
export const runsDelivery = (role: Role) => role === 'delivery' || role === 'all';
export const runsRelay = (engines: EngineConfig) => engines.bus.kind === 'kafka' && (engines.role === 'relay' || engines.role === 'all');

/**
 * The roles that need Kafka to start: the relay publishes the log, gateway nodes and the delivery worker consume it.
 * An api process only publishes hints (typing) and a projector reads the log itself: neither waits for Kafka.
 */
export const consumesOrPublishes = (role: Role) => role !== 'api' && role !== 'projector';

/**
 * In the distributed roles a stopped projector or relay ends the process, for its supervisor to restart it from its
 * checkpoint; the single process keeps serving and says so in the log.
 */
export const endsOnFatal = (role: Role) => role !== 'all';

/** Addresses a server listens on but no client can reach: advertised, they send every client nowhere. */
const UNSPECIFIED_HOSTS = new Set(['0.0.0.0', '[::]']);

/**
 * Refuses a role that would hand clients an address they cannot reach (GET /gateway/bot's url, READY's
 * resume_gateway_url, CDN URLs): one that derives them from an unspecified HOST, or, in the distributed mode, that
 * derives them at all (an api process runs no gateway, and every node must name the API's and the gateway's public
 * addresses, not its own). The embedded single process keeps its derived default for a developer's machine. A gateway
 * node's own GATEWAY_NODE_URL (READY's resume_gateway_url) is held to the same rules, and refused where no gateway runs.
 */
export function checkAdvertisedUrls(role: Role, config: Pick<Config, 'publicBaseUrl' | 'gatewayUrl' | 'gatewayNodeUrl'>, env: NodeJS.ProcessEnv): void {
  if (!servesHttp(role)) return;
  if (role !== 'all') {
    if (!env.PUBLIC_BASE_URL) throw new Error(`ROLE=${role} needs PUBLIC_BASE_URL: the address clients reach the API and its CDN URLs at`);
    if (!env.GATEWAY_URL) throw new Error(`ROLE=${role} needs GATEWAY_URL: the wss:// address clients reach the gateway at (GET /gateway, READY)`);
  }
  if (config.gatewayNodeUrl && !runsGateway(role))
    throw new Error(`ROLE=${role} runs no gateway: GATEWAY_NODE_URL names the address of a gateway node, set it on that node`);
  const advertised = [
    { name: 'PUBLIC_BASE_URL', url: config.publicBaseUrl, schemes: ['https:', 'http:'] },
    { name: 'GATEWAY_URL', url: gatewayUrl(config), schemes: ['wss:', 'ws:'] },
    ...(config.gatewayNodeUrl ? [{ name: 'GATEWAY_NODE_URL', url: config.gatewayNodeUrl, schemes: ['wss:', 'ws:'] }] : []),
  ];
  for (const { name, url, schemes } of advertised) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error(`${name} must be a URL, got "${url}"`);
    }
    if (!schemes.includes(parsed.protocol)) throw new Error(`${name} must start with ${schemes.map((s) => `${s}//`).join(' or ')}, got "${url}"`);
    if (UNSPECIFIED_HOSTS.has(parsed.hostname))
      throw new Error(`clients would be sent to ${url}, which none can reach (HOST is where this server listens): set ${name} to the address clients use`);
  }
}

export interface Engines {
  /** The log with personal fields opened (sealed on append): what every reader but the shredder and the relay uses. */
  store: SealingEventStore;
  /** The data keys personal fields are sealed with (docs/privacy.md). */
  keys: KeyStore;
  readStore: ReadStore;
  blobs: BlobStore;
  bus: EventBus;
  /** Present when this process publishes the log (relay role, or all with BUS=kafka). */
  relay: Relay | null;
  /** Where the processes of the deployment hold their snowflake process ids (infra/processIds.ts). */
  leases: Leases;
  /**
   * Where the HTTP API's rate-limit buckets count: in the read store's database (PostgreSQL or MongoDB), which every
   * node shares, on the distributed engines (each node counting on its own would allow N times the limits); in memory
   * for the embedded server.
   */
  rateLimits: RateLimits;
  close(): Promise<void>;
}

/** The projections a projector runs: PROJECTIONS names a subset, so projectors can be split across processes. */
export function selectProjections(names: string[] | null): Projection[] {
  if (!names) return allProjections;
  const unknown = names.filter((name) => !allProjections.some((p) => p.name === name));
  if (unknown.length) throw new Error(`PROJECTIONS names unknown projections: ${unknown.join(', ')} (known: ${allProjections.map((p) => p.name).join(', ')})`);
  return allProjections.filter((p) => names.includes(p.name));
}

/**
 * Opens the engines one after the other, each bounded, so an unreachable one fails start-up with its own one-line
 * error; whatever was already open is closed again.
 */
export async function openEngines(
  config: Config,
  engines: EngineConfig,
  masterKeys: MasterKeys,
  log: Logger,
  onRelayError: (error: unknown) => void,
): Promise<Engines> {
  const opened: { close(): Promise<void> }[] = [];
  const keep = <T extends { close(): Promise<void> }>(engine: T): T => {
    opened.push(engine);
    return engine;
  };
  const close = async () => {
    for (const engine of opened.splice(0).reverse()) await engine.close();
  };
  try {
    // The shared engines' clients are imported only by the processes that use them: together they are seconds of
    // module loading on a loaded machine, which the embedded default and its tests would pay at every start.
    const sealedLog = keep(
      engines.store.kind === 'esdb'
        ? await (await import('./eventStore/esdb.js')).EsdbEventStore.connect(engines.store.url)
        : engines.store.kind === 'postgres'
          ? await (await import('./eventStore/postgres.js')).PostgresEventStore.connect(engines.store.url, { poolSize: engines.store.poolSize })
          : new SqliteEventStore(join(config.dataDir, 'events.db')),
    );
    let readStore: ReadStore;
    let blobs: BlobStore;
    let keys: KeyStore;
    let leases: Leases;
    let rateLimits: RateLimits;
    if (engines.readStore.kind === 'mongodb') {
      const [{ MongoReadStore }, { GridFsBlobStore }, { MongoKeyStore }, { MongoLeases }, { mongoRateLimits }] = await Promise.all([
        import('./readStore/mongo.js'),
        import('./blobs/gridfs.js'),
        import('./keys/mongo.js'),
        import('./leases/mongo.js'),
        import('./rateLimits/mongo.js'),
      ]);
      const mongo = keep(await MongoReadStore.connect(engines.readStore.url, engines.readStore.database));
      readStore = mongo;
      blobs = new GridFsBlobStore(mongo.db);
      keys = keep(await MongoKeyStore.open(mongo.db, masterKeys));
      leases = new MongoLeases(mongo.db);
      rateLimits = await mongoRateLimits(mongo.db);
    } else if (engines.readStore.kind === 'postgres') {
      const [{ PostgresReadStore }, { PostgresBlobStore }, { PostgresKeyStore }, { PostgresLeases }, { PostgresRateLimits }] = await Promise.all([
        import('./readStore/postgres.js'),
        import('./blobs/postgres.js'),
        import('./keys/postgres.js'),
        import('./leases/postgres.js'),
        import('./rateLimits/postgres.js'),
      ]);
      const postgres = keep(
        await PostgresReadStore.connect(engines.readStore.url, { vacuumAfterMs: config.readModelScrubMs, poolSize: engines.readStore.poolSize }),
      );
      readStore = postgres;
      blobs = await PostgresBlobStore.open(postgres.pool);
      keys = keep(await PostgresKeyStore.open(postgres.pool, masterKeys));
      leases = await PostgresLeases.open(postgres.pool);
      rateLimits = keep(await PostgresRateLimits.open(postgres.pool));
    } else {
      readStore = keep(new SqliteReadStore(join(config.dataDir, 'read-models.db'), config.readModelScrubMs));
      blobs = new FileBlobStore(join(config.dataDir, 'blobs'));
      keys = keep(new SqliteKeyStore(join(config.dataDir, 'keys.db'), masterKeys, config.readModelScrubMs, masterKeys.wrappingKey));
      leases = keep(new SqliteLeases(join(config.dataDir, 'leases.db')));
      rateLimits = new MemoryRateLimits();
    }
    const store = new SealingEventStore(sealedLog, keys);
    // Only the process that projects a collection sees every write to it, so only it may keep the collection in memory.
    const cached = runsProjectors(engines.role) ? selectProjections(engines.projections).flatMap((p) => p.cachedById ?? []) : [];
    if (cached.length) readStore = new CachedReadStore(readStore, cached);
    let bus: EventBus;
    let relay: Relay | null = null;
    if (engines.bus.kind === 'kafka') {
      const { KafkaEventBus } = await import('./bus/kafka.js');
      const kafka = keep(consumesOrPublishes(engines.role) ? await KafkaEventBus.connect(engines.bus, log) : KafkaEventBus.lazy(engines.bus, log));
      bus = openingBus(kafka, store);
      // Kafka carries the log as stored: its topics hold personal fields only as ciphertext.
      if (runsRelay(engines)) relay = new Relay(sealedLog, readStore, await kafka.publisher(), leases, onRelayError);
    } else {
      bus = new LocalEventBus(store, readStore);
    }
    return { store, keys, readStore, blobs, bus, relay, leases, rateLimits, close };
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
}

/** No key given by the environment: a DATA_DIR's own key files (secret.key, master.key) serve. */
export const KEY_FILES: Pick<Config, 'secretKey' | 'masterKey' | 'masterKeysRetired'> = { secretKey: null, masterKey: null, masterKeysRetired: [] };

/** A DATA_DIR's embedded log as the server opens it (sealed on append, opened on read), for tools and tests. */
export async function openEmbeddedLog(dataDir: string, keys = KEY_FILES): Promise<SealingEventStore> {
  const secrets = await SecretBox.load(keys.secretKey, join(dataDir, 'secret.key'));
  const masterKeys = MasterKeys.load({ ...keys, dataDir }, secrets);
  return new SealingEventStore(new SqliteEventStore(join(dataDir, 'events.db')), new SqliteKeyStore(join(dataDir, 'keys.db'), masterKeys), true);
}

/** A bus whose consumers get events opened, as readers of the log do. */
function openingBus(bus: EventBus, store: SealingEventStore): EventBus {
  return {
    hints: bus.hints,
    reachable: () => bus.reachable(),
    consume: (group, options, handler, onError) => bus.consume(group, options, async (events) => handler(await store.open(events)), onError),
    close: () => bus.close(),
  };
}
