// deploy/compose.yaml (EventStoreDB + MongoDB) and deploy/compose.postgres.yaml (PostgreSQL), both with Kafka, as
// Docker Compose reads them (YAML merge keys, services extended from compose.common.yaml, ${VAR:-default} from
// deploy/.env), checked without Docker: every role of the deployment is there with a PROCESS_ID of its own and starts
// with its environment (it would refuse an address no client can reach), on the deployment's engines and waiting for
// them to be healthy; the URLs it advertises lead to a published port of a node that serves them (a gateway node's
// resume URL to itself), an api node with that environment answers GET /gateway with the gateway's address, over
// HTTPS; and what an operator must be able to trust: each engine's data on a volume, a health check on every
// container, no container running as root, MongoDB and PostgreSQL with a password and EventStoreDB with TLS in every
// connection, their secrets from deploy/.env.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { compose } from '../../infra/compose.js';
import { loadConfig } from '../../infra/config.js';
import { type EngineConfig, type Role, loadEngineConfig } from '../../infra/engines.js';
import { createLogger } from '../../infra/logger.js';
import { EMBEDDED, checkAdvertisedUrls, runsGateway, servesHttp } from '../../infra/roles.js';
import { gatewayUrl, resumeGatewayUrl } from '../../presenters/urls.js';

interface Service {
  extends?: { file?: string; service: string };
  image?: string;
  user?: string;
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}

interface ComposeFile {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const deployDir = join(import.meta.dirname, '../../deploy');
const read = (file: string) => parse(readFileSync(join(deployDir, file), 'utf8'), { merge: true }) as ComposeFile;

/**
 * A service as Compose builds it: the service it extends, under its own settings, merged as Compose merges them
 * (mappings key by key, volumes by their target, ports appended, anything else replaced).
 */
function resolved(file: string, name: string): Service {
  const { extends: base, ...own } = read(file).services[name];
  if (!base) return own;
  const inherited = resolved(base.file ?? file, base.service);
  const target = (volume: string) => volume.split(':')[1];
  const ownTargets = new Set((own.volumes ?? []).map(target));
  return {
    ...inherited,
    ...own,
    environment: { ...inherited.environment, ...own.environment },
    depends_on: { ...inherited.depends_on, ...own.depends_on },
    volumes: [...(inherited.volumes ?? []).filter((volume) => !ownTargets.has(target(volume))), ...(own.volumes ?? [])],
    ports: [...(inherited.ports ?? []), ...(own.ports ?? [])],
  };
}

/** Compose's interpolation: ${NAME}, ${NAME:-default} and ${NAME:?error}, from the variables of deploy/.env. */
function interpolate(value: string, variables: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, kind: string | undefined, rest: string) => {
    if (variables[name]) return variables[name];
    if (kind === '?') throw new Error(`compose refuses: ${rest}`);
    return kind === '-' ? rest : '';
  });
}

/** The services as written (extended, before interpolation). */
function written(file: string): Record<string, Service> {
  return Object.fromEntries(Object.keys(read(file).services).map((name) => [name, resolved(file, name)]));
}

function services(file: string, variables: Record<string, string>): Record<string, Service> {
  return Object.fromEntries(
    Object.entries(written(file)).map(([name, service]) => [
      name,
      { ...service, environment: Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), variables)])) },
    ]),
  );
}

const keys = {
  PARLEY_SECRET_KEY: Buffer.alloc(32, 1).toString('base64'),
  PARLEY_MASTER_KEY: Buffer.alloc(32, 2).toString('base64'),
  PARLEY_MONGO_PASSWORD: 'mongo-secret',
  PARLEY_ESDB_PASSWORD: 'esdb-secret',
  PARLEY_ESDB_OPS_PASSWORD: 'ops-secret',
  PARLEY_POSTGRES_PASSWORD: 'postgres-secret',
};

/** The Parley services, with their role, their configuration as it loads, and the host port they publish 8443 on. */
function parleyNodes(file: string, variables: Record<string, string>) {
  return Object.entries(services(file, variables))
    .filter(([, service]) => service.environment?.ROLE)
    .map(([name, service]) => {
      const env = service.environment!;
      const published = (service.ports ?? []).find((port) => port.endsWith(':8443'))?.split(':')[0] ?? null;
      return { name, env, role: env.ROLE as Role, config: loadConfig(env), published };
    });
}

/** The named volume (or host path) mounted where `path` lies in the service's container. */
const volumeAt = (service: Service, path: string) =>
  (service.volumes ?? []).map((volume) => volume.split(':')).find(([, target]) => path === target || path.startsWith(`${target}/`))?.[0];

/** A job that runs to its end before the services that wait for it (service_completed_successfully) start. */
const oneOff = (all: Record<string, Service>, name: string) =>
  Object.values(all).some((service) => service.depends_on?.[name]?.condition === 'service_completed_successfully');

interface Deployment {
  file: string;
  roles: Role[];
  store: EngineConfig['store']['kind'];
  readStore: EngineConfig['readStore']['kind'];
  /** Where each engine keeps its data, by service. */
  data: Record<string, string[]>;
}

const deployments: Deployment[] = [
  {
    file: 'compose.yaml',
    roles: ['api', 'api', 'delivery', 'gateway', 'gateway', 'projector', 'relay'],
    store: 'esdb',
    readStore: 'mongodb',
    data: { eventstore: ['/var/lib/eventstore'], mongo: ['/data/db'] },
  },
  {
    file: 'compose.postgres.yaml',
    // The roles `npm run cluster` starts (infra/cluster.ts), a standby relay included.
    roles: ['api', 'api', 'delivery', 'gateway', 'gateway', 'projector', 'relay', 'relay'],
    store: 'postgres',
    readStore: 'postgres',
    data: { postgres: ['/var/lib/postgresql/data'] },
  },
];

/** The address of each engine a node's settings name: a host (a service of the deployment) and a port. */
function engineHosts(engines: EngineConfig): string[] {
  const urls = [engines.store, engines.readStore].flatMap((engine) => ('url' in engine ? [new URL(engine.url).hostname] : []));
  const brokers = engines.bus.kind === 'kafka' ? engines.bus.brokers.map((broker) => broker.split(':')[0]) : [];
  return [...urls, ...brokers];
}

describe.each(deployments)('deploy/$file', ({ file, roles, store, readStore, data }) => {
  const nodes = parleyNodes(file, keys);
  const all = services(file, keys);
  const named = Object.keys(read(file).volumes ?? {});

  it('runs every role of the deployment, each with a PROCESS_ID of its own, each loading its engine settings and starting with the addresses it advertises', () => {
    expect(nodes.map((node) => node.role).sort()).toEqual(roles);
    const processIds = nodes.map((node) => node.env.PROCESS_ID);
    expect(new Set(processIds).size, processIds.join(',')).toBe(nodes.length);
    for (const node of nodes) {
      expect(() => loadEngineConfig(node.env), node.name).not.toThrow();
      expect(() => checkAdvertisedUrls(node.role, node.config, node.env), node.name).not.toThrow();
    }
  });

  it('points every role at the deployment’s engines, and starts it once they are healthy', () => {
    for (const node of nodes) {
      const engines = loadEngineConfig(node.env);
      expect([engines.store.kind, engines.readStore.kind, engines.bus.kind], node.name).toEqual([store, readStore, 'kafka']);
      for (const host of engineHosts(engines)) {
        expect(all[host]?.healthcheck?.test.length, `${node.name}: ${host}`).toBeGreaterThan(0);
        expect(all[node.name].depends_on?.[host]?.condition, `${node.name}: ${host}`).toBe('service_healthy');
      }
    }
  });

  it('asks no more copies of a partition than there are brokers', () => {
    const brokers = Object.keys(all).filter((name) => name.startsWith('kafka')).length;
    for (const node of nodes) {
      const { bus } = loadEngineConfig(node.env);
      expect(bus.kind === 'kafka' && bus.replicationFactor <= brokers && bus.minInsyncReplicas <= bus.replicationFactor, node.name).toBe(true);
    }
  });

  it('sends clients to published ports: the API to an api node, the gateway to a gateway node, a session back to its own node', () => {
    const byPort = (url: string) => nodes.find((node) => node.published === new URL(url).port);
    for (const node of nodes.filter((n) => servesHttp(n.role))) {
      const base = new URL(node.config.publicBaseUrl);
      expect(base.hostname, node.name).toBe('localhost');
      expect(byPort(node.config.publicBaseUrl)?.role, `${node.name}: PUBLIC_BASE_URL`).toBe('api');
      const gateway = gatewayUrl(node.config);
      expect(gateway, node.name).toMatch(/^wss:\/\/localhost:\d+\/gateway$/);
      expect(runsGateway(byPort(gateway)!.role), `${node.name}: GATEWAY_URL`).toBe(true);
      // READY's resume_gateway_url: the node itself, where the session's RESUME state lives.
      if (runsGateway(node.role)) expect(byPort(resumeGatewayUrl(node.config))?.name, `${node.name}: GATEWAY_NODE_URL`).toBe(node.name);
    }
  });

  it('takes the addresses of a load balancer from deploy/.env, and one address per gateway node', () => {
    const behind = parleyNodes(file, {
      ...keys,
      PARLEY_PUBLIC_BASE_URL: 'https://chat.example',
      PARLEY_GATEWAY_URL: 'wss://gateway.chat.example',
      PARLEY_GATEWAY_1_URL: 'wss://gw-1.chat.example/gateway',
      PARLEY_GATEWAY_2_URL: 'wss://gw-2.chat.example/gateway',
    });
    const api = behind.find((node) => node.role === 'api')!;
    expect(api.config.publicBaseUrl).toBe('https://chat.example');
    expect(gatewayUrl(api.config)).toBe('wss://gateway.chat.example');
    const gateways = behind.filter((node) => node.role === 'gateway');
    expect(gateways.map((node) => gatewayUrl(node.config))).toEqual(['wss://gateway.chat.example', 'wss://gateway.chat.example']);
    expect(gateways.map((node) => resumeGatewayUrl(node.config))).toEqual(['wss://gw-1.chat.example/gateway', 'wss://gw-2.chat.example/gateway']);
  });

  it('keeps each engine’s data on a named volume, Kafka’s log directories included, and declares every volume it mounts', () => {
    const kafka = all.kafka;
    expect(kafka.environment?.KAFKA_LOG_DIRS).toBeTruthy();
    const dataOf = { ...data, kafka: kafka.environment!.KAFKA_LOG_DIRS.split(',') };
    for (const [engine, paths] of Object.entries(dataOf)) for (const path of paths) expect(named, `${engine}: ${path}`).toContain(volumeAt(all[engine], path));
    // Compose refuses a named volume the file does not declare.
    for (const [name, service] of Object.entries(all))
      for (const [source] of (service.volumes ?? []).map((volume) => volume.split(':'))) expect(named, `${name}: ${source}`).toContain(source);
  });

  it('checks the health of every container, the roles on the operator’s endpoints of their own port', () => {
    for (const [name, service] of Object.entries(all)) {
      if (oneOff(all, name)) continue;
      expect(service.healthcheck?.test.length, name).toBeGreaterThan(0);
    }
    for (const node of nodes) {
      const [, ...command] = all[node.name].healthcheck!.test;
      expect(command, node.name).toEqual(['node', 'dist/infra/healthcheck.js', servesHttp(node.role) ? '/readyz' : '/healthz']);
    }
    expect(existsSync(join(import.meta.dirname, '../../infra/healthcheck.ts'))).toBe(true);
  });

  it('runs no container as root but the one-off job that hands new volumes to their users, nor the image', () => {
    const root = (user: string | undefined) => !user || /^(root|0)(:|$)/.test(user);
    for (const [name, service] of Object.entries(all)) if (!oneOff(all, name)) expect(root(service.user), `${name}: user ${service.user}`).toBe(false);
    const dockerfile = readFileSync(join(deployDir, 'Dockerfile'), 'utf8');
    const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(root(/^USER (\S+)/m.exec(finalStage)?.[1])).toBe(false);
  });

  it('an api node with its environment answers GET /gateway with the gateway’s address', async () => {
    const node = nodes.find((n) => n.name === 'api-1')!;
    const dir = mkdtempSync(join(tmpdir(), 'parley-deploy-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    // Its environment, on the embedded engines and a loopback port: what it answers does not depend on them.
    const config = loadConfig({ ...node.env, DATA_DIR: dir, HOST: '127.0.0.1', PORT: '0' });
    const composition = await compose(config, { ...EMBEDDED, role: 'api', settleTimeoutMs: 50 }, createLogger('silent'));
    const dispatcher = new Agent({ connect: { ca: composition.http!.cert!, servername: 'localhost' } });
    try {
      for (const version of ['v10', 'v1']) {
        const response = await request(`https://127.0.0.1:${composition.http!.port}/api/${version}/gateway`, { dispatcher });
        expect(await response.body.json()).toEqual({ url: 'wss://localhost:8445/gateway' });
      }
    } finally {
      await composition.close();
      await dispatcher.close();
    }
  });
});

describe('deploy/compose.yaml: EventStoreDB and MongoDB', () => {
  const file = 'compose.yaml';
  const nodes = parleyNodes(file, keys);
  const all = services(file, keys);
  const raw = written(file);

  it('connects to MongoDB with a user and to EventStoreDB over TLS, with passwords from deploy/.env', () => {
    const mongo = raw.mongo.environment!;
    for (const node of nodes) {
      const own = raw[node.name].environment ?? {};
      const url = new URL(node.env.MONGO_URL);
      expect([decodeURIComponent(url.username), url.searchParams.get('authSource')], node.name).toEqual([mongo.MONGO_INITDB_ROOT_USERNAME, 'admin']);
      expect(decodeURIComponent(url.password), node.name).toBe(keys.PARLEY_MONGO_PASSWORD);
      expect(all.mongo.environment?.MONGO_INITDB_ROOT_PASSWORD).toBe(keys.PARLEY_MONGO_PASSWORD);

      const esdb = new URL(node.env.ESDB_URL);
      expect([esdb.username, decodeURIComponent(esdb.password), esdb.searchParams.get('tls')], node.name).toEqual(['admin', keys.PARLEY_ESDB_PASSWORD, 'true']);
      expect(all.eventstore.environment?.EVENTSTORE_DEFAULT_ADMIN_PASSWORD).toBe(keys.PARLEY_ESDB_PASSWORD);
      // The CA it trusts is on a volume the certificate job writes.
      const ca = esdb.searchParams.get('tlsCAFile')!;
      expect(
        Object.entries(all).some(
          ([name, service]) => oneOff(all, name) && (service.volumes ?? []).some((v) => v.startsWith(`${volumeAt(all[node.name], ca)}:`)),
        ),
        node.name,
      ).toBe(true);
      // No password is written in the file itself.
      for (const value of [own.MONGO_URL, own.ESDB_URL, mongo.MONGO_INITDB_ROOT_PASSWORD]) expect(value, node.name).toMatch(/\$\{PARLEY_\w+_PASSWORD:\?/);
    }
    expect(all.eventstore.environment?.EVENTSTORE_INSECURE).toBeUndefined();
    expect(all.eventstore.environment?.EVENTSTORE_CERTIFICATE_FILE).toBeTruthy();
  });
});

describe('deploy/compose.postgres.yaml: PostgreSQL', () => {
  const file = 'compose.postgres.yaml';
  const nodes = parleyNodes(file, keys);
  const { postgres } = services(file, keys);
  const raw = written(file);

  it('runs PostgreSQL 15 with its password from deploy/.env, a database ordering text by its bytes, and a health check of its own server', () => {
    expect(postgres.image).toBe('postgres:15');
    expect(raw.postgres.environment?.POSTGRES_PASSWORD).toMatch(/^\$\{PARLEY_POSTGRES_PASSWORD:\?/);
    expect(postgres.environment?.POSTGRES_PASSWORD).toBe(keys.PARLEY_POSTGRES_PASSWORD);
    // The read store refuses a database whose collation is not byte order (infra/readStore/postgres.ts).
    expect(postgres.environment?.POSTGRES_INITDB_ARGS).toMatch(/--(locale|lc-collate)=(C|C\.UTF-8|POSIX)(\s|$)/);
    const [kind, command, ...options] = postgres.healthcheck!.test;
    expect([kind, command]).toEqual(['CMD', 'pg_isready']);
    // Over TCP, as the roles connect: not the Unix socket the image's initialising server listens on alone.
    expect(options).toEqual(expect.arrayContaining(['--host=127.0.0.1', `--username=${postgres.environment!.POSTGRES_USER}`]));
  });

  it('connects every role to that database as its user, with the password from deploy/.env', () => {
    for (const node of nodes) {
      const url = new URL(node.env.POSTGRES_URL);
      expect(
        [url.protocol, url.hostname, url.port, decodeURIComponent(url.username), decodeURIComponent(url.password), url.pathname.slice(1)],
        node.name,
      ).toEqual(['postgres:', 'postgres', '5432', postgres.environment!.POSTGRES_USER, keys.PARLEY_POSTGRES_PASSWORD, postgres.environment!.POSTGRES_DB]);
      expect(raw[node.name].environment?.POSTGRES_URL, node.name).toMatch(/\$\{PARLEY_POSTGRES_PASSWORD:\?/);
      // Nothing of the other deployment's engines.
      expect(
        Object.keys(node.env).filter((name) => /^(ESDB|MONGO)_/.test(name)),
        node.name,
      ).toEqual([]);
    }
  });
});
