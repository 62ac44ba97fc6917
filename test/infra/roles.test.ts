// Role and engine settings, and read-your-writes across processes: an api process that does not project waits for
// the checkpoint the projector process commits to the shared read store (two SQLite connections to the same files
// stand for the two processes).
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorHandler } from '../../http/errors.js';
import { type Role, loadEngineConfig } from '../../infra/engines.js';
import type { NewEvent, Position, ReadAllOptions } from '../../ports/eventStore.js';
import { SqliteEventStore } from '../../infra/eventStore/sqlite.js';
import { SqliteReadStore } from '../../infra/readStore/sqlite.js';
import { ReadModelsUnreachableError, RemoteProjections } from '../../infra/remoteProjections.js';
import { EMBEDDED, checkAdvertisedUrls, selectProjections } from '../../infra/roles.js';
import { loadConfig } from '../../infra/config.js';
import type { Projection } from '../../projections/projection.js';
import { ProjectionRunner, lagsOf } from '../../projections/runner.js';

describe('engine settings', () => {
  it('default to the embedded single process', () => {
    expect(loadEngineConfig({})).toEqual(EMBEDDED);
  });

  it('read the distributed engines and the role', () => {
    const engines = loadEngineConfig({
      ROLE: 'projector',
      STORE: 'esdb',
      ESDB_URL: 'esdb://es:2113?tls=false',
      READ_STORE: 'mongodb',
      MONGO_URL: 'mongodb://mongo:27017/?replicaSet=rs0',
      BUS: 'kafka',
      KAFKA_BROKERS: 'k1:9092, k2:9092',
      PROJECTIONS: 'users, applications',
      SETTLE_TIMEOUT_MS: '2000',
    });
    expect(engines).toEqual({
      role: 'projector',
      store: { kind: 'esdb', url: 'esdb://es:2113?tls=false' },
      readStore: { kind: 'mongodb', url: 'mongodb://mongo:27017/?replicaSet=rs0', database: 'parley' },
      bus: {
        kind: 'kafka',
        brokers: ['k1:9092', 'k2:9092'],
        topic: 'parley.events',
        clientId: 'parley',
        partitions: 12,
        replicationFactor: 3,
        minInsyncReplicas: 2,
        ssl: false,
        sasl: null,
        member: `${hostname()}-0-0`,
        maxBatchBytes: 1_000_000,
        joinTimeoutMs: 60_000,
      },
      projections: ['users', 'applications'],
      settleTimeoutMs: 2000,
    });
  });

  it('take PostgreSQL as the shared log of a role', () => {
    const engines = loadEngineConfig({ ROLE: 'api', STORE: 'postgres', POSTGRES_URL: 'postgres://pg/parley', READ_STORE: 'mongodb', MONGO_URL: 'mongodb://m' });
    expect(engines.store).toEqual({ kind: 'postgres', url: 'postgres://pg/parley', poolSize: 10 });
  });

  it('take PostgreSQL as the shared read models of a role', () => {
    const engines = loadEngineConfig({ ROLE: 'projector', STORE: 'postgres', POSTGRES_URL: 'postgres://pg/parley', READ_STORE: 'postgres' });
    expect(engines.readStore).toEqual({ kind: 'postgres', url: 'postgres://pg/parley', poolSize: 10 });
  });

  it('size both PostgreSQL pools by POSTGRES_POOL_SIZE, refusing a size that is not a positive integer', () => {
    const env = { ROLE: 'api', STORE: 'postgres', POSTGRES_URL: 'postgres://pg/parley', READ_STORE: 'postgres', POSTGRES_POOL_SIZE: '3' };
    const engines = loadEngineConfig(env);
    expect([engines.store, engines.readStore]).toEqual([
      { kind: 'postgres', url: 'postgres://pg/parley', poolSize: 3 },
      { kind: 'postgres', url: 'postgres://pg/parley', poolSize: 3 },
    ]);
    expect(() => loadEngineConfig({ ...env, POSTGRES_POOL_SIZE: '0' })).toThrow('POSTGRES_POOL_SIZE must be an integer from 1 to 1000, got "0"');
  });

  it('refuse what cannot work, saying what to set', () => {
    expect(() => loadEngineConfig({ ROLE: 'web' })).toThrow('ROLE must be one of api, projector, relay, gateway, delivery, all, got "web"');
    expect(() => loadEngineConfig({ STORE: 'esdb' })).toThrow('ESDB_URL is required when STORE=esdb');
    expect(() => loadEngineConfig({ STORE: 'postgres' })).toThrow('POSTGRES_URL is required when STORE=postgres');
    expect(() => loadEngineConfig({ READ_STORE: 'mongodb' })).toThrow('MONGO_URL is required when READ_STORE=mongodb');
    expect(() => loadEngineConfig({ READ_STORE: 'postgres' })).toThrow('POSTGRES_URL is required when READ_STORE=postgres');
    expect(() => loadEngineConfig({ BUS: 'kafka' })).toThrow('KAFKA_BROKERS is required when BUS=kafka');
    expect(() => loadEngineConfig({ ROLE: 'projector', STORE: 'esdb', ESDB_URL: 'esdb://x' })).toThrow(/needs shared read models/);
    expect(() => loadEngineConfig({ ROLE: 'relay', STORE: 'esdb', ESDB_URL: 'esdb://x', READ_STORE: 'mongodb', MONGO_URL: 'mongodb://x' })).toThrow(
      /needs BUS=kafka/,
    );
    expect(() => loadEngineConfig({ SETTLE_TIMEOUT_MS: 'soon' })).toThrow(/SETTLE_TIMEOUT_MS/);
  });

  it('PROJECTIONS picks the projections a projector runs, and refuses unknown names', () => {
    expect(selectProjections(['users']).map((p) => p.name)).toEqual(['users']);
    expect(selectProjections(null).length).toBeGreaterThan(1);
    expect(() => selectProjections(['users', 'nope'])).toThrow(/unknown projections: nope/);
  });
});

describe('advertised addresses', () => {
  const check = (role: Role, env: Record<string, string>) => () => checkAdvertisedUrls(role, loadConfig(env), env);
  const urls = { PUBLIC_BASE_URL: 'https://chat.example', GATEWAY_URL: 'wss://gateway.chat.example' };

  it('refuse an unspecified address, derived from HOST or set, in every role that serves clients', () => {
    expect(check('all', { HOST: '0.0.0.0' })).toThrow('clients would be sent to https://0.0.0.0:8443, which none can reach');
    expect(check('all', { HOST: '::' })).toThrow('clients would be sent to https://[::]:8443, which none can reach');
    expect(check('api', { ...urls, GATEWAY_URL: 'wss://0.0.0.0:8445/gateway' })).toThrow(/set GATEWAY_URL to the address clients use/);
    expect(check('gateway', { ...urls, PUBLIC_BASE_URL: 'https://[::]:8443' })).toThrow(/set PUBLIC_BASE_URL to the address clients use/);
  });

  it('refuse a distributed node that would derive them from its own address, and URLs of the wrong kind', () => {
    expect(check('api', { HOST: '10.0.0.5' })).toThrow('ROLE=api needs PUBLIC_BASE_URL');
    expect(check('api', { PUBLIC_BASE_URL: 'https://chat.example' })).toThrow('ROLE=api needs GATEWAY_URL');
    expect(check('gateway', { PUBLIC_BASE_URL: 'https://chat.example' })).toThrow('ROLE=gateway needs GATEWAY_URL');
    expect(check('api', { ...urls, GATEWAY_URL: 'https://gateway.chat.example' })).toThrow('GATEWAY_URL must start with wss:// or ws://');
    expect(check('api', { ...urls, PUBLIC_BASE_URL: 'chat.example' })).toThrow('PUBLIC_BASE_URL must be a URL');
  });

  it('refuse a gateway node URL that is unspecified, of the wrong kind, or set where no gateway runs', () => {
    expect(check('gateway', { ...urls, GATEWAY_NODE_URL: 'wss://0.0.0.0:8446/gateway' })).toThrow(/set GATEWAY_NODE_URL to the address clients use/);
    expect(check('gateway', { ...urls, GATEWAY_NODE_URL: 'wss://[::]:8446/gateway' })).toThrow(/set GATEWAY_NODE_URL to the address clients use/);
    expect(check('gateway', { ...urls, GATEWAY_NODE_URL: 'https://gw-2.chat.example/gateway' })).toThrow('GATEWAY_NODE_URL must start with wss:// or ws://');
    expect(check('api', { ...urls, GATEWAY_NODE_URL: 'wss://gw-2.chat.example/gateway' })).toThrow('ROLE=api runs no gateway');
    expect(check('gateway', { ...urls, GATEWAY_NODE_URL: 'wss://gw-2.chat.example/gateway' })).not.toThrow();
  });

  it('let through what clients can reach, and the roles that advertise nothing', () => {
    expect(check('all', {})).not.toThrow();
    expect(check('api', urls)).not.toThrow();
    expect(check('gateway', urls)).not.toThrow();
    for (const role of ['projector', 'relay', 'delivery'] as const) expect(check(role, { HOST: '0.0.0.0' })).not.toThrow();
  });
});

describe('read-your-writes in an api process without projectors', () => {
  const notes: Projection = {
    name: 'notes',
    handles: ['Noted'],
    collections: ['notes'],
    indexes: [],
    project: (event) => [{ insertOne: { collection: 'notes', document: { _id: event.id, text: (event.data as { text: string }).text } } }],
  };
  const note = (text: string): NewEvent => ({ type: 'Noted', data: { text }, metadata: { actorId: null, createdAt: '2024-01-01T00:00:00.000Z' } });
  let dir: string;
  let store: SqliteEventStore;
  let projectorReads: SqliteReadStore;
  let apiReads: SqliteReadStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'parley-ryw-'));
    store = new SqliteEventStore(join(dir, 'events.db'));
    projectorReads = new SqliteReadStore(join(dir, 'read.db'));
    apiReads = new SqliteReadStore(join(dir, 'read.db'));
  });
  afterEach(async () => {
    await store.close();
    await projectorReads.close();
    await apiReads.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('waits until the projector process has committed the write, then reads it', async () => {
    const projector = new ProjectionRunner(store, projectorReads, [notes]);
    const api = new RemoteProjections(store, apiReads, [notes], 5000);
    await api.start();
    // The projector starts late: the api must wait for it, not answer from a stale read model.
    const { position } = await store.appendToStream('note-1', [note('first')]);
    const waited = api.waitFor(position);
    setTimeout(() => void projector.start(), 150);
    const started = Date.now();
    await waited;
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(await apiReads.count('notes', { text: 'first' })).toBe(1);
    await projector.stop();
    await api.stop();
  });

  it('gives up after its bound when no projector runs, instead of hanging the request', async () => {
    const api = new RemoteProjections(store, apiReads, [notes], 200);
    const { position } = await store.appendToStream('note-1', [note('lost')]);
    const started = Date.now();
    await api.waitFor(position);
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(180);
    expect(waited).toBeLessThan(2000);
    expect(await apiReads.count('notes', {})).toBe(0);
    await api.stop();
  });

  /** The api's read store, failing its next `failures` checkpoint reads as an unreachable MongoDB does; counts the reads. */
  const failing = (failures: number) => {
    const reads = { one: 0, many: 0 };
    const store = new Proxy(apiReads, {
      get(target, property, receiver) {
        if (property !== 'getCheckpoint' && property !== 'getCheckpoints') return Reflect.get(target, property, receiver) as unknown;
        return (...args: unknown[]) => {
          reads[property === 'getCheckpoint' ? 'one' : 'many'] += 1;
          if (failures-- > 0) return Promise.reject(new Error('connection reset by peer'));
          return (target[property] as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const logged: string[] = [];
    const log = { warn: (_: object, message?: string) => logged.push(`warn: ${message}`), info: (message: string) => logged.push(`info: ${message}`) };
    return { store, reads, logged, log };
  };

  it('goes on polling through a read store that fails, says so once, and answers once it can be reached again', async () => {
    const projector = new ProjectionRunner(store, projectorReads, [notes]);
    await projector.start();
    const { position } = await store.appendToStream('note-1', [note('through a hiccup')]);
    await projector.waitFor(position);
    const reads = failing(3);
    const api = new RemoteProjections(store, reads.store, [notes], 5000, reads.log as never);
    await api.waitFor(position);
    expect(reads.logged).toEqual(['warn: the read models cannot be reached: retrying', 'info: the read models can be reached again']);
    await projector.stop();
    await api.stop();
  });

  it('fails a wait whose bound passes while the read store cannot be reached, with a clear error', async () => {
    const { position } = await store.appendToStream('note-1', [note('unreachable')]);
    const reads = failing(Infinity);
    const api = new RemoteProjections(store, reads.store, [notes], 300, reads.log as never);
    const refusal = await api.waitFor(position).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ReadModelsUnreachableError);
    expect((refusal as Error).message).toBe('the read models could not be reached for 300 ms: connection reset by peer');
    await api.stop();
  });

  it("answers the request whose wait ran out 503 with Retry-After and the spec's error body, not a 500", async () => {
    const { position } = await store.appendToStream('note-1', [note('unreachable over HTTP')]);
    const reads = failing(Infinity);
    const api = new RemoteProjections(store, reads.store, [notes], 200, reads.log as never);
    const logged: string[] = [];
    const app = new Koa();
    app.use(errorHandler({ ...reads.log, warn: (_: object, message?: string) => logged.push(`warn: ${message}`), error: () => logged.push('error') } as never));
    app.use(async (ctx) => {
      await api.waitFor(position);
      ctx.body = { read: true };
    });
    const answer = app.callback();
    const server = createServer((...request: Parameters<typeof answer>) => void answer(...request)).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('2');
      expect(await response.json()).toEqual({
        code: 'SERVICE_UNAVAILABLE',
        message: 'The service cannot read its data right now; what this request changed, if anything, is recorded. Try the read again shortly.',
      });
      expect(logged).toContain('warn: request failed: a dependency is unavailable');
      expect(logged).not.toContain('error');
    } finally {
      server.close();
      await api.stop();
    }
  });

  it('reports the lag of the projector processes in events, from their shared checkpoints, up to the cap', async () => {
    const projector = new ProjectionRunner(store, projectorReads, [notes]);
    await projector.start();
    const { position } = await store.appendToStream('note-1', [note('applied')]);
    await projector.waitFor(position);
    await projector.stop();
    for (let i = 0; i < 5; i++) await store.appendToStream(`note-${i + 2}`, [note('not yet')]);
    const api = new RemoteProjections(store, apiReads, [notes], 5000);
    expect(await api.lag(1000)).toEqual({ notes: 5 });
    expect(await api.lag(3)).toEqual({ notes: 3 });
    await projector.start();
    await projector.caughtUp();
    expect(await api.lag(1000)).toEqual({ notes: 0 });
    expect(await projector.lag(1000)).toEqual({ notes: 0 });
    await projector.stop();
    await api.stop();
  });

  it("counts the lag in events on a log whose positions are byte offsets, as EventStoreDB's are", async () => {
    // The same log, its positions a thousand times larger: a lag found by subtracting positions would be 5000.
    const scale = (p: Position, by: (n: bigint) => bigint): Position => ({ commit: by(p.commit), prepare: by(p.prepare) });
    const bytes = new Proxy(store, {
      get(target, property, receiver) {
        if (property !== 'readAll') return Reflect.get(target, property, receiver) as unknown;
        return async (options: ReadAllOptions = {}) => {
          const events = await target.readAll({ ...options, fromPosition: options.fromPosition && scale(options.fromPosition, (n) => n / 1000n) });
          return events.map((event) => ({ ...event, position: scale(event.position, (n) => n * 1000n) }));
        };
      },
    });
    const { position } = await store.appendToStream('note-1', [note('applied')]);
    for (let i = 0; i < 5; i++) await store.appendToStream(`note-${i + 2}`, [note('not yet')]);
    expect(await lagsOf(bytes, new Map([['notes', scale(position, (n) => n * 1000n)]]), 1000)).toEqual({ notes: 5 });
    expect(await lagsOf(bytes, new Map([['notes', null]]), 1000)).toEqual({ notes: 6 });
  });

  it('reads every projection’s checkpoint in one query a poll', async () => {
    const projector = new ProjectionRunner(store, projectorReads, [notes]);
    await projector.start();
    const { position } = await store.appendToStream('note-1', [note('one query')]);
    await projector.waitFor(position);
    const reads = failing(0);
    const others = ['a', 'b', 'c'].map((name) => ({ ...notes, name }));
    await projectorReads.bulkWrite(
      [],
      others.map((p) => ({ projection: p.name, position })),
    );
    const api = new RemoteProjections(store, reads.store, [notes, ...others], 5000, reads.log as never);
    await api.waitFor(position);
    expect(reads.reads).toEqual({ one: 0, many: 1 });
    await projector.stop();
    await api.stop();
  });

  it('answers at once for a position already applied, or no position', async () => {
    const projector = new ProjectionRunner(store, projectorReads, [notes]);
    await projector.start();
    const { position } = await store.appendToStream('note-1', [note('done')]);
    await projector.waitFor(position);
    const api = new RemoteProjections(store, apiReads, [notes], 5000);
    const started = Date.now();
    await api.waitFor(position);
    await api.waitFor(null);
    await api.caughtUp();
    expect(Date.now() - started).toBeLessThan(500);
    expect(await api.applied()).toEqual(position);
    await projector.stop();
  });

  it('reads the checkpoints once for a run of waits the first one covers, as a gateway node waits for each event of a batch', async () => {
    const projector = new ProjectionRunner(store, projectorReads, [notes]);
    await projector.start();
    const positions: Position[] = [];
    for (let i = 0; i < 50; i++) positions.push((await store.appendToStream(`note-${i}`, [note(`n${i}`)])).position);
    await projector.waitFor(positions[positions.length - 1]);
    const reads = failing(0);
    const api = new RemoteProjections(store, reads.store, [notes], 5000);
    for (const position of positions) await api.waitFor(position);
    // The first wait's query found all 50 applied; the other 49 needed none.
    expect(reads.reads).toEqual({ one: 0, many: 1 });
    // A position past what is known is asked for again, in one query for every projection's checkpoint.
    const { position: next } = await store.appendToStream('note-50', [note('n50')]);
    await projector.waitFor(next);
    await api.waitFor(next);
    await api.waitFor(positions[0]);
    expect(reads.reads).toEqual({ one: 0, many: 2 });
    await projector.stop();
    await api.stop();
  });
});
