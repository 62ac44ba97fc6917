// PostgreSQL out of reach for a while — stopped and started again, or refusing connections for want of them — on a
// server of the file's own (the machine's is shared and is never restarted): the log's subscribers read on from
// where they were, a transaction whose connection is ended fails alone, and the API answers 503 with Retry-After meanwhile, in each version's error form, never a 500.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PostgresEventStore } from '../../infra/eventStore/postgres.js';
import { inTransaction } from '../../infra/postgres.js';
import type { NewEvent, RecordedEvent } from '../../ports/eventStore.js';
import { createGuild } from '../http/guildSupport.js';
import { type TestServer, registerUser, startTestServer } from '../support/server.js';
import { allOnPostgres } from './engines.js';
import { eventually } from './eventually.js';
import { type PrivatePostgres, onPrivateServer, startPrivatePostgres, withPrivatePostgres } from './postgresPrivateServer.js';

const note = (n: number): NewEvent => ({ type: 'Noted', data: { n }, metadata: { actorId: null, createdAt: '2024-01-01T00:00:00.000Z' } });

withPrivatePostgres('PostgreSQL stopped and out of connections', () => {
  let server: PrivatePostgres;
  beforeAll(async () => {
    server = await startPrivatePostgres();
  });
  afterAll(async () => {
    await server?.remove();
  });

  /** A database of its own on the private server, owned by `owner` (a role made for the test when it is not postgres). */
  async function database(name: string, owner = 'postgres'): Promise<string> {
    if (owner !== 'postgres') await onPrivateServer(server, `CREATE ROLE ${owner} LOGIN`);
    await onPrivateServer(server, `CREATE DATABASE ${name} OWNER ${owner}`);
    return `postgres://${owner}@127.0.0.1:${server.port}/${name}`;
  }

  describe('the log', () => {
    it('a subscriber waits the server’s restart out and reads on from its last position: nothing skipped, nothing twice', async () => {
      const log = await PostgresEventStore.connect(await database('log_restart'), { pollMs: 100 });
      const reads = vi.spyOn(log as unknown as { readForwards(...args: unknown[]): Promise<RecordedEvent[]> }, 'readForwards');
      const seen: number[] = [];
      const failures: unknown[] = [];
      const subscription = log.subscribeToAll(
        {},
        (batch) => void seen.push(...batch.map((e) => (e.data as { n: number }).n)),
        (error) => failures.push(error),
      );
      try {
        for (let n = 0; n < 5; n++) await log.appendToStream(`s-${n % 2}`, [note(n)]);
        await eventually(() => expect(seen).toEqual([0, 1, 2, 3, 4]));
        await server.stop();
        // The subscriber's poll has met the stopped server.
        await eventually(() => expect(reads.mock.settledResults.some((result) => result.type === 'rejected')).toBe(true));
        await server.start();
        for (let n = 5; n < 10; n++) await log.appendToStream(`s-${n % 2}`, [note(n)]);
        await eventually(() => expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]), 20_000);
        expect(failures).toEqual([]);
      } finally {
        await subscription.stop();
        await log.close();
      }
    });
  });

  describe('a transaction', () => {
    it('on a connection the server ends midway fails, and the process and the pool go on', async () => {
      const pool = new pg.Pool({ connectionString: await database('ended_midway') });
      pool.on('error', () => {});
      try {
        const transaction = inTransaction(pool, async (client) => {
          const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
          // Not events.once: it listens for 'error' too, which is what is tested here.
          const ended = new Promise((resolve) => client.once('end', resolve));
          await onPrivateServer(server, `SELECT pg_terminate_backend(${rows[0].pid})`);
          await ended;
          await client.query('SELECT 1');
        });
        await expect(transaction).rejects.toThrow(/not queryable/);
        expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      } finally {
        await pool.end();
      }
    });
  });

  describe('the API', () => {
    let api: TestServer;
    afterAll(async () => {
      await api?.close();
    });

    /** A send through each API version: both answered 503 with Retry-After in that version's form, nothing 500. */
    async function expectUnavailable(token: string, channelId: string) {
      for (const [prefix, code] of [
        ['/api/v10', 0],
        ['/api/v1', 'SERVICE_UNAVAILABLE'],
      ] as const) {
        const response = await api.call('POST', `${prefix}/channels/${channelId}/messages`, { token, body: { content: 'during the outage' } });
        expect(response.status, response.text).toBe(503);
        expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
        expect(response.body).toEqual({ code, message: expect.any(String) });
      }
    }

    async function expectServing(token: string, channelId: string) {
      await eventually(async () => expect((await api.call('GET', '/readyz')).status).toBe(200), 30_000);
      const sent = await api.api('POST', `/channels/${channelId}/messages`, { token, body: { content: 'after the outage' } });
      expect(sent.status, sent.text).toBe(200);
      // Read back at once: the projections rode the outage out (a stopped subscription would leave it unread).
      const page = await api.api('GET', `/channels/${channelId}/messages?limit=5`, { token });
      expect(page.body.map((m: { id: string }) => m.id)).toContain(sent.body.id);
      return sent.body.id as string;
    }

    it('stopped: requests are answered 503 with Retry-After, /readyz says why; started again, it serves, no restart needed', async () => {
      api = await startTestServer({}, undefined, allOnPostgres(await database('api_stopped')));
      const owner = await registerUser(api);
      const guild = await createGuild(api, owner);
      await server.stop();
      try {
        await expectUnavailable(owner.token, guild.channelId);
        const ready = await api.call('GET', '/readyz');
        expect(ready.status).toBe(503);
        expect(ready.body).toEqual({ status: 'engine unreachable', reason: expect.stringMatching(/ECONNREFUSED|terminat|shut/) });
      } finally {
        await server.start();
      }
      await expectServing(owner.token, guild.channelId);
      await api.close();
    });

    it('out of connections ("too many connections"): requests are answered 503 with Retry-After, and served once there are', async () => {
      const role = 'parley_limited';
      api = await startTestServer({}, undefined, allOnPostgres(await database('api_limited', role)));
      const owner = await registerUser(api);
      const guild = await createGuild(api, owner);
      // The role may open no connection; those it holds are ended, as the server ends them when it runs out.
      await onPrivateServer(server, `ALTER ROLE ${role} CONNECTION LIMIT 0`);
      await onPrivateServer(server, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '${role}'`);
      try {
        await expectUnavailable(owner.token, guild.channelId);
      } finally {
        await onPrivateServer(server, `ALTER ROLE ${role} CONNECTION LIMIT -1`);
      }
      await expectServing(owner.token, guild.channelId);
    });
  });
});
