// The contracts against the PostgreSQL adapters, each test on a database of its own (dropped after it), on the server
// every session and CI run starts.
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CHANNEL, PostgresEventStore, type PostgresEventStoreOptions, appendStatement } from '../../infra/eventStore/postgres.js';
import { MAX_EVENT_BYTES } from '../../infra/eventStore/limits.js';
import { SealingEventStore } from '../../infra/eventStore/sealing.js';
import { SqliteKeyStore } from '../../infra/keys/sqlite.js';
import { MasterKeys } from '../../infra/masterKeys.js';
import { SecretBox } from '../../infra/secrets.js';
import {
  type EventStore,
  type NewEvent,
  type RecordedEvent,
  WrongExpectedVersionError,
  comparePositions,
  decodePosition,
  encodePosition,
} from '../../ports/eventStore.js';
import { messageFields } from '../support/messageFields.js';
import { PostgresBlobStore } from '../../infra/blobs/postgres.js';
import { DATA_KEYS, DATA_KEY_OWNERS, DATA_KEY_PROGRESS, PostgresKeyStore } from '../../infra/keys/postgres.js';
import { PostgresLeases } from '../../infra/leases/postgres.js';
import { PostgresRateLimits } from '../../infra/rateLimits/postgres.js';
import { CachedReadStore } from '../../infra/readStore/cached.js';
import { PostgresReadStore } from '../../infra/readStore/postgres.js';
import { messageStream } from '../../commands/streams.js';
import { envelopesOf } from '../../ports/keyStore.js';
import type { EngineConfig } from '../../infra/engines.js';
import { EMBEDDED } from '../../infra/roles.js';
import { registerUser, startTestServer } from '../support/server.js';
import { POSTGRES_ADMIN_URL, type TestDatabase, createTestDatabase, withEngine } from './engines.js';
import { describeEventStoreContract } from './eventStoreContract.js';
import { eventually } from './eventually.js';
import { describeBlobStoreContract } from './blobStoreContract.js';
import { describeKeyStoreContract } from './keyStoreContract.js';
import { describeLeasesContract } from './leasesContract.js';
import { describeRateLimitsContract } from './rateLimitsContract.js';
import { describeReadStoreContract } from './readStoreContract.js';

/** The databases the test made, dropped after it. */
const databases: TestDatabase[] = [];
const freshDatabase = async () => {
  const database = await createTestDatabase('parley_read');
  databases.push(database);
  return database;
};
afterEach(async () => {
  for (const database of databases.splice(0)) await database.drop();
});

const run = promisify(execFile);

/** A pool of connections to a fresh database, standing for one process of the deployment. */
/** A pool of the test's own; the database's drop (WITH FORCE) ends its idle connections, which is no test's failure. */
const pool = (url: string) => new pg.Pool({ connectionString: url }).on('error', () => {});

await withEngine('postgres', 'runs the read store, key store, lease, rate-limit and blob contracts against PostgreSQL', () => {
  describeReadStoreContract('PostgreSQL', async () => PostgresReadStore.connect((await freshDatabase()).url));
  // The cache a projector process puts in front of it, keeping every collection's documents read by _id.
  describeReadStoreContract(
    'PostgreSQL, cached',
    async (collections) => new CachedReadStore(await PostgresReadStore.connect((await freshDatabase()).url), collections),
  );
  describeBlobStoreContract('PostgreSQL', async () => {
    const connections = pool((await freshDatabase()).url);
    return { blobs: await PostgresBlobStore.open(connections), close: () => connections.end() };
  });
  // Two pools stand for two processes of the deployment.
  describeLeasesContract('PostgreSQL', async () => {
    const { url } = await freshDatabase();
    const [one, two] = [pool(url), pool(url)];
    return {
      first: await PostgresLeases.open(one),
      second: await PostgresLeases.open(two),
      close: async () => {
        await one.end();
        await two.end();
      },
    };
  });
  // Two pools stand for two api nodes; ending the first one's pool is its PostgreSQL becoming unreachable.
  describeRateLimitsContract('PostgreSQL', async () => {
    const { url } = await freshDatabase();
    const [one, two] = [pool(url), pool(url)];
    const [first, second] = [await PostgresRateLimits.open(one), await PostgresRateLimits.open(two)];
    return {
      first,
      second,
      breakFirst: () => one.end(),
      close: async () => {
        await Promise.all([first.close(), second.close()]);
        if (!one.ended) await one.end();
        await two.end();
      },
    };
  });
  describeKeyStoreContract('PostgreSQL', async () => {
    const connections = pool((await freshDatabase()).url);
    const secrets = SecretBox.fromKey(randomBytes(32));
    const keys = await PostgresKeyStore.open(connections, secrets);
    const rows = async (table: string) => (await connections.query<{ row: string }>(`SELECT t::text AS row FROM ${table} t`)).rows.map((r) => r.row);
    return {
      keys,
      close: async () => {
        await keys.close();
        await connections.end();
      },
      reopen: () => PostgresKeyStore.open(connections, secrets),
      stored: async () => Buffer.from((await Promise.all([DATA_KEYS, DATA_KEY_OWNERS, DATA_KEY_PROGRESS].map(rows))).flat().join('\n')),
      breakCheckpointWrite: () => {
        // The checkpoint is the key store's only write to its progress table: that statement fails, once.
        const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
        const failingOnce = function (this: pg.Client, ...args: unknown[]): unknown {
          if (typeof args[0] !== 'string' || !args[0].includes(`INTO ${DATA_KEY_PROGRESS}`)) return query.apply(this, args);
          spy.mockRestore();
          return Promise.reject(new Error('write failed'));
        };
        const spy = vi.spyOn(pg.Client.prototype as { query: (...args: unknown[]) => unknown }, 'query').mockImplementation(failingOnce);
      },
    };
  });

  describe('PostgreSQL key store: a master key rotation', () => {
    it('re-wraps every stored key with the new master key, after which the keys open without the old one', async () => {
      const connections = pool((await freshDatabase()).url);
      const secrets = SecretBox.fromKey(randomBytes(32));
      const [before, after] = [randomBytes(32), randomBytes(32)];
      try {
        const keys = await PostgresKeyStore.open(connections, MasterKeys.of(before, [], secrets));
        const made = await Promise.all(Array.from({ length: 300 }, () => keys.create()));
        const stored = Number((await connections.query(`SELECT count(*) AS n FROM ${DATA_KEYS}`)).rows[0].n);
        const rotating = MasterKeys.of(after, [before], secrets);
        expect(await (await PostgresKeyStore.open(connections, rotating)).rewrap(rotating)).toBe(stored);
        expect(await (await PostgresKeyStore.open(connections, rotating)).rewrap(rotating)).toBe(0);
        const loaded = await (await PostgresKeyStore.open(connections, MasterKeys.of(after, [], secrets))).load(made.map((key) => key.id));
        expect(made.every((key) => loaded.get(key.id)?.equals(key.key))).toBe(true);
      } finally {
        await connections.end();
      }
    });
  });

  describe('PostgreSQL read store: text JSONB refuses', () => {
    it('writes NUL and lone surrogates as U+FFFD instead of failing the batch (and its projection for good); filters alike', async () => {
      const store = await PostgresReadStore.connect((await freshDatabase()).url);
      try {
        const odd = { _id: 'm1', content: 'a\u0000b', half: '\ud800!', typed: '\\u0000', emoji: '\u{1F600}' };
        await store.bulkWrite([{ insertOne: { collection: 'messages', document: odd } }], [{ projection: 'messages', position: { commit: 1n, prepare: 1n } }]);
        const stored = { _id: 'm1', content: 'a\ufffdb', half: '\ufffd!', typed: '\\u0000', emoji: '\u{1F600}' };
        expect(await store.findOne('messages', { _id: 'm1' })).toEqual(stored);
        expect(await store.findOne('messages', { content: 'a\u0000b', typed: '\\u0000' })).toEqual(stored);
        await store.bulkWrite([{ updateOne: { collection: 'messages', filter: { _id: 'm1' }, update: { $set: { content: '\u0000' } } } }]);
        expect((await store.findOne('messages', { _id: 'm1' }))?.content).toBe('\ufffd');
      } finally {
        await store.close();
      }
    });
  });

  // The erasure promise on these engines: a server whose read models, keys, leases, rate limits and blobs are
  // in PostgreSQL (its log embedded) deletes a message, and the database keeps neither its text nor its key.
  describe('PostgreSQL read models: a deleted message', () => {
    const dumped = async (url: string) => (await run('pg_dump', ['--data-only', '--dbname', url])).stdout;
    const statistic = async (url: string, sql: string, params: unknown[]) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(sql, params)).rows;
      } finally {
        await client.end();
      }
    };

    // On the embedded log, and on PostgreSQL's, where the database holds the log too: only ever as ciphertext.
    it.each([
      ['the embedded log', (url: string): EngineConfig => ({ ...EMBEDDED, readStore: { kind: 'postgres', url } })],
      ['the PostgreSQL log', (url: string): EngineConfig => ({ ...EMBEDDED, store: { kind: 'postgres', url }, readStore: { kind: 'postgres', url } })],
    ])(
      'on %s: leaves its text nowhere in the database (pg_dump --data-only) and its key gone from the key table once the deletion is answered',
      async (_, engines) => {
        const { url } = await freshDatabase();
        const config = engines(url);
        const server = await startTestServer({ READ_MODEL_SCRUB_MS: '100' }, undefined, config);
        try {
          const [ada, bob] = [await registerUser(server), await registerUser(server)];
          const channel = (await server.api('POST', '/users/@me/channels', { token: ada.token, body: { recipient_id: bob.id } })).body.id as string;
          const text = `SECRET-${randomBytes(8).toString('hex')}-pg`;
          const sent = await server.api('POST', `/channels/${channel}/messages`, { token: ada.token, body: { content: text } });
          expect(sent.status).toBe(200);
          const subject = `message:${sent.body.id}`;
          // The search finds what is there: the read model holds the text (a log here holds none of it in clear), and the
          // key table the keys its event is sealed with.
          expect(await dumped(url)).toContain(text);
          if (config.store.kind === 'postgres') expect(await statistic(url, 'SELECT id FROM event_log WHERE data LIKE $1', [`%${text}%`])).toEqual([]);
          const sealed = await (server.runtime.store as SealingEventStore).sealedLog.readStream(messageStream(sent.body.id));
          const keyIds = sealed.flatMap((event) =>
            envelopesOf(event)
              .filter((envelope) => envelope.s.includes(subject))
              .map((envelope) => envelope.k),
          );
          expect(keyIds.length).toBeGreaterThan(0);
          expect(await statistic(url, `SELECT id FROM ${DATA_KEYS} WHERE id = ANY($1::text[])`, [keyIds])).toHaveLength(new Set(keyIds).size);
          const vacuums = async () =>
            Number((await statistic(url, "SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'c_messages'", []))[0].vacuum_count);
          const vacuumedBefore = await vacuums();

          expect((await server.api('DELETE', `/channels/${channel}/messages/${sent.body.id}`, { token: ada.token })).status).toBe(204);
          expect(await dumped(url)).not.toContain(text);
          expect(await statistic(url, `SELECT id FROM ${DATA_KEYS} WHERE id = ANY($1::text[])`, [keyIds])).toEqual([]);
          // The deleted row's dead tuple is vacuumed soon after (docs/distributed.md: what PostgreSQL keeps after an erasure).
          await eventually(async () => expect(await vacuums()).toBeGreaterThan(vacuumedBefore));
        } finally {
          await server.close();
        }
      },
      60_000,
    );
  });
});

// The event store: the contract, and what a shared log on PostgreSQL must add to it — appends that commit out of order
// are read in their place (never skipped), racing appends from several connections, and readers woken by NOTIFY.
/** A database of its own for a test's logs: every store opened on it is closed, then the database dropped. */
async function logDatabase() {
  const database = await createTestDatabase('parley_log');
  const stores: PostgresEventStore[] = [];
  return {
    url: database.url,
    async open(options?: PostgresEventStoreOptions): Promise<PostgresEventStore> {
      const store = await PostgresEventStore.connect(database.url, options);
      stores.push(store);
      return store;
    },
    async close(): Promise<void> {
      await Promise.all(stores.map((store) => store.close()));
      await database.drop();
    },
  };
}

/** A log on a fresh database, which its close drops. */
async function freshLog(): Promise<EventStore> {
  const database = await logDatabase();
  const store = await database.open();
  return new Proxy(store, {
    get: (target, key) => (key === 'close' ? database.close : Reflect.get(target, key, target)),
  });
}

const meta = { actorId: '9', createdAt: '2026-01-01T00:00:00.000Z' };
const note = (label: string): NewEvent => ({ type: 'Noted', data: { label }, metadata: meta });
const labels = (events: RecordedEvent[]) => events.map((event) => (event.data as { label: string }).label);

await withEngine('postgres', 'runs the event store contract against PostgreSQL', () => {
  describeEventStoreContract('PostgreSQL', freshLog, { startsEmpty: true });

  describe('PostgreSQL log: an append that commits late', () => {
    let database: Awaited<ReturnType<typeof logDatabase>>;
    let late: pg.Client;
    beforeEach(async () => {
      database = await logDatabase();
      late = new pg.Client({ connectionString: database.url });
      await late.connect();
    });
    afterEach(async () => {
      await late.end().catch(() => {});
      await database.close();
    });

    it('holds back what committed after it, then delivers it in its place: a subscriber that has delivered skips nothing', async () => {
      const store = await database.open();
      const seen: RecordedEvent[] = [];
      const subscription = store.subscribeToAll({}, (batch) => void seen.push(...batch));
      await store.appendToStream('early', [note('X')]);
      await eventually(() => expect(labels(seen)).toEqual(['X']));
      const [x] = seen;

      // A's transaction takes its position first and stays open while B appends and commits.
      await late.query('BEGIN');
      await late.query(appendStatement('late', [note('A')], 'no_stream'));
      await store.appendToStream('quick', [note('B')]);
      expect(labels(await store.readAll())).toEqual(['X']);
      expect(await store.headPosition()).toEqual(x.position);
      await subscription.caughtUp();
      expect(labels(seen)).toEqual(['X']);

      await late.query('COMMIT');
      await store.appendToStream('after', [note('Y')]);
      await eventually(() => expect(labels(seen)).toEqual(['X', 'A', 'B', 'Y']));
      await subscription.stop();
      const all = await store.readAll();
      expect(labels(all)).toEqual(['X', 'A', 'B', 'Y']);
      expect(all.map((event) => event.id)).toEqual(seen.map((event) => event.id));
      for (let i = 1; i < all.length; i++) expect(comparePositions(all[i - 1].position, all[i].position)).toBeLessThan(0);
    });

    it('orders the log by transaction: an append whose transaction began first reads first, whatever its sequence number', async () => {
      const store = await database.open();
      await late.query('BEGIN');
      await late.query('SELECT pg_current_xact_id()');
      await store.appendToStream('quick', [note('B')]);
      await late.query(appendStatement('late', [note('A')], 'no_stream'));
      await late.query('COMMIT');
      const all = await store.readAll();
      expect(labels(all)).toEqual(['A', 'B']);
      expect(all[0].position.prepare).toBeGreaterThan(all[1].position.prepare);
      expect(comparePositions(all[0].position, all[1].position)).toBeLessThan(0);
      const checkpoint = decodePosition(encodePosition(all[0].position));
      expect(labels(await store.readAll({ fromPosition: checkpoint }))).toEqual(['A', 'B']);
      const after: RecordedEvent[] = [];
      const subscription = store.subscribeToAll({ fromPosition: checkpoint }, (batch) => void after.push(...batch));
      await subscription.caughtUp();
      await subscription.stop();
      expect(labels(after)).toEqual(['B']);
    });
  });

  describe('PostgreSQL log: transaction ids that gain a digit', () => {
    it('reads, subscribes and finds its head in the ids’ numeric order: 99 before 100, as a server’s ids pass 999 and 9999 in its first minutes', async () => {
      const database = await logDatabase();
      const writer = new pg.Client({ connectionString: database.url });
      try {
        const store = await database.open();
        await writer.connect();
        // A server's own transaction ids cannot be chosen: the rows are written with the ids around a power of ten.
        await writer.query(
          `INSERT INTO event_log (transaction_id, stream_id, revision, id, type, data, metadata, schema_version)
           SELECT t::text::xid8, 'at-' || t, 0, gen_random_uuid()::text, 'Noted', json_build_object('label', t::text)::text, $1, 1
             FROM unnest(ARRAY[98, 99, 100, 101]) AS t`,
          [JSON.stringify(meta)],
        );
        const inOrder = ['98', '99', '100', '101'];
        expect(labels(await store.readAll())).toEqual(inOrder);
        expect(labels(await store.readAll({ direction: 'backwards' }))).toEqual([...inOrder].reverse());
        expect((await store.headPosition())?.commit).toBe(101n);
        const seen: RecordedEvent[] = [];
        const subscription = store.subscribeToAll({}, (batch) => void seen.push(...batch));
        await subscription.caughtUp();
        await subscription.stop();
        expect(labels(seen)).toEqual(inOrder);
      } finally {
        await writer.end().catch(() => {});
        await database.close();
      }
    });
  });

  describe('PostgreSQL log: a transaction of another database', () => {
    it('does not hold the log back: transaction ids are the server’s, but it can write no event here', async () => {
      const database = await logDatabase();
      const elsewhere = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      try {
        const store = await database.open();
        await elsewhere.connect();
        await elsewhere.query('BEGIN');
        await elsewhere.query('SELECT pg_current_xact_id()');
        const { position } = await store.appendToStream('while', [note('W')]);
        expect(labels(await store.readAll())).toEqual(['W']);
        expect(await store.headPosition()).toEqual(position);
        await elsewhere.query('COMMIT');
      } finally {
        await elsewhere.end().catch(() => {});
        await database.close();
      }
    });
  });

  describe('PostgreSQL log: appends from several connections', () => {
    let database: Awaited<ReturnType<typeof logDatabase>>;
    let stores: PostgresEventStore[];
    beforeEach(async () => {
      database = await logDatabase();
      stores = await Promise.all(Array.from({ length: 4 }, () => database.open()));
    });
    afterEach(() => database.close());

    it('at one revision: exactly one wins each round, the others are refused with the revision that won', async () => {
      await stores[0].appendToStream('contended', [note('0')]);
      for (let revision = 0n; revision < 8n; revision++) {
        const outcomes = await Promise.allSettled(
          stores.flatMap((store) => [1, 2].map(() => store.appendToStream('contended', [note(String(revision + 1n))], { expectedRevision: revision }))),
        );
        expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
        for (const outcome of outcomes) {
          if (outcome.status === 'rejected') {
            expect(outcome.reason).toBeInstanceOf(WrongExpectedVersionError);
            expect(outcome.reason).toMatchObject({ expected: revision, actual: revision + 1n });
          }
        }
      }
      const stream = await stores[1].readStream('contended');
      expect(stream.map((event) => event.revision)).toEqual([0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n]);
    });

    it('at any revision: every append lands, its events together at consecutive revisions', async () => {
      const results = await Promise.all(
        stores.flatMap((store, s) => Array.from({ length: 10 }, (_, i) => store.appendToStream('shared', [note(`${s}.${i}.first`), note(`${s}.${i}.second`)]))),
      );
      const stream = await stores[0].readStream('shared');
      expect(stream.map((event) => event.revision)).toEqual(Array.from({ length: 80 }, (_, i) => BigInt(i)));
      for (let i = 0; i < 80; i += 2) {
        const [first, second] = labels(stream.slice(i, i + 2));
        expect(second).toBe(first.replace('first', 'second'));
      }
      expect(new Set(results.map((result) => result.nextExpectedRevision)).size).toBe(40);
    });
  });

  describe('PostgreSQL log: limits', () => {
    it('refuses an event larger than the bus carries with a 413, appending nothing of its append', async () => {
      const database = await logDatabase();
      try {
        const store = await database.open();
        const huge: NewEvent = { type: 'Noted', data: { label: 'é'.repeat(MAX_EVENT_BYTES / 2) }, metadata: meta };
        await expect(store.appendToStream('large', [note('before'), huge])).rejects.toMatchObject({ kind: 'too_large', code: 'REQUEST_ENTITY_TOO_LARGE' });
        expect(await store.readStream('large')).toEqual([]);
      } finally {
        await database.close();
      }
    });
  });

  describe('PostgreSQL log: notifications', () => {
    it('an append in one process wakes a subscriber in another that does not poll', async () => {
      const database = await logDatabase();
      const admin = new pg.Client({ connectionString: database.url });
      try {
        const writer = await database.open();
        const reader = await database.open({ pollMs: 3_600_000 });
        const seen: RecordedEvent[] = [];
        const subscription = reader.subscribeToAll({}, (batch) => void seen.push(...batch));
        await subscription.caughtUp();
        // The reader's LISTEN is in place (its connection's last statement) before anything is appended.
        await admin.connect();
        await eventually(async () => {
          const { rows } = await admin.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND query = $1 AND state = 'idle'", [
            `LISTEN ${CHANNEL}`,
          ]);
          expect(rows).toHaveLength(1);
        });
        await writer.appendToStream('announced', [note('N')]);
        await eventually(() => expect(labels(seen)).toEqual(['N']));
        await subscription.stop();
      } finally {
        await admin.end().catch(() => {});
        await database.close();
      }
    });
  });

  describe('PostgreSQL log: sealed', () => {
    it('keeps personal data as ciphertext, opened on read while the key lasts', async () => {
      const database = await logDatabase();
      const keys = new SqliteKeyStore(':memory:', SecretBox.fromKey(randomBytes(32)));
      const raw = new pg.Client({ connectionString: database.url });
      try {
        const log = new SealingEventStore(await database.open(), keys);
        const author = { id: '9', username: 'ada', discriminator: '0001', global_name: null, avatar: null, bot: false, public_flags: 0 };
        const message = messageFields({ id: '1', channel_id: '2', guild_id: null, author, content: 'words only ada wrote', timestamp: meta.createdAt });
        await log.appendToStream('message-1', [
          { type: 'MessageCreated', data: { messageId: '1', channelId: '2', guildId: null, authorId: '9', message }, metadata: meta },
        ]);
        await raw.connect();
        const { rows } = await raw.query<{ data: string }>('SELECT data FROM event_log');
        expect(rows).toHaveLength(1);
        expect(rows[0].data).not.toContain('words only ada wrote');
        const [read] = await new SealingEventStore(log.sealedLog, keys).readStream('message-1');
        expect(read.data).toMatchObject({ message: { content: 'words only ada wrote' } });
      } finally {
        await raw.end().catch(() => {});
        await keys.close();
        await database.close();
      }
    });
  });
});
