// Rate-limit buckets across nodes. The embedded server counts in memory; on shared engines every api node counts in
// one store (MongoDB: test/contracts/mongo.test.ts), so the limits hold for the deployment, not per node. Here the
// shared adapter runs over rate-limiter-flexible's SQLite store, one database file opened by two "nodes": the contract
// (one budget, burst included; a failing store falls back to the node's memory), then two API servers over one log
// and read store, whose requests spend one budget and whose 429 is the single server's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { RateLimiterSQLite } from 'rate-limiter-flexible';
import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryRateLimits, SharedRateLimits } from '../../infra/rateLimits/counters.js';
import { type RunningHttpServer, startHttpServer } from '../../http/server.js';
import { apiClient, fileServer, registerUser } from '../support/server.js';
import { createGuild, expectError } from '../http/guildSupport.js';
import { describeRateLimitsContract } from '../contracts/rateLimitsContract.js';

const dir = mkdtempSync(join(tmpdir(), 'parley-rate-limits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const server = await fileServer();

/** A node's connection to the shared database file, and its counters there. */
async function sqliteNode(file: string) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  const table = { storeClient: db, storeType: 'better-sqlite3', tableName: 'rate_limits' };
  // The store makes its table after construction: made once here, so no bucket counts before it exists.
  await new Promise<void>((resolve, reject) => new RateLimiterSQLite(table, (error?: Error) => (error ? reject(error) : resolve())));
  return { db, limits: new SharedRateLimits((options) => new RateLimiterSQLite({ ...options, ...table, tableCreated: true })) };
}

describeRateLimitsContract('SQLite (shared file)', async () => {
  const file = join(dir, `limits-${files++}.db`);
  const [one, two] = [await sqliteNode(file), await sqliteNode(file)];
  return {
    first: one.limits,
    second: two.limits,
    breakFirst: async () => void one.db.close(),
    close: async () => {
      if (one.db.open) one.db.close();
      two.db.close();
    },
  };
});

describe('rate limits of api nodes', () => {
  it('count in memory in the embedded server', () => {
    expect(server.runtime.rateLimits).toBeInstanceOf(MemoryRateLimits);
  });

  it('given two api nodes on one shared store, when a client spreads its requests over both, then it gets one budget and the same 429', async () => {
    const file = join(dir, 'nodes.db');
    const nodes: RunningHttpServer[] = [];
    const agents: Agent[] = [];
    const connections: Database.Database[] = [];
    try {
      const clients: ReturnType<typeof apiClient>[] = [];
      for (let n = 0; n < 2; n++) {
        const { db, limits } = await sqliteNode(file);
        connections.push(db);
        const node = await startHttpServer({ ...server.runtime, rateLimits: limits }, null, { lag: async () => 0, metrics: async () => '' });
        nodes.push(node);
        const agent = new Agent();
        agents.push(agent);
        clients.push(apiClient(`http://127.0.0.1:${node.port}`, agent));
      }
      const guild = await createGuild(server);
      const reader = await registerUser(server);
      const fetchInvite = (n: number) => clients[n % 2].api('GET', `/invites/${guild.code}`, { token: reader.token });
      // GET /invites/:code allows 5 per 10 seconds: 3 on one node and 2 on the other spend them all.
      for (let i = 0; i < 5; i++) {
        const answer = await fetchInvite(i);
        expect(answer.status).toBe(200);
        expect(answer.headers['x-ratelimit-remaining']).toBe(String(4 - i));
      }
      for (const n of [0, 1]) {
        const limited = await fetchInvite(n);
        expectError(limited, 429, 'RATE_LIMITED');
        expect(limited.body).toMatchObject({ global: false });
        expect(limited.body.retry_after).toBeGreaterThan(0);
        expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
        expect(limited.headers).toMatchObject({ 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0', 'x-ratelimit-scope': 'user' });
        expect(limited.headers['x-ratelimit-global']).toBeUndefined();
      }
    } finally {
      for (const agent of agents) await agent.close();
      for (const node of nodes) await node.close();
      for (const db of connections) db.close();
    }
  });
});
