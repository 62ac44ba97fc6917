// A route's checked query is kept by its query string (http/route.ts): each request still gets a query of its own, so
// a handler that changes its copy changes nothing another request reads, and a query refused once is refused again.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryRateLimits } from '../../infra/rateLimits/counters.js';
import type { HttpDeps } from '../../http/context.js';
import { errorHandler } from '../../http/errors.js';
import { route, router } from '../../http/route.js';

const listQuery = {
  type: 'object',
  properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 }, tag: { type: 'string' } },
  additionalProperties: false,
} as const;

const echo = route({
  method: 'GET',
  path: '/echo',
  summary: 'Echo the query',
  tag: 'Messages',
  auth: 'none',
  query: listQuery,
  responses: { 200: { description: 'The query.', schema: { type: 'object' } } },
  errors: [],
  handle(_ctx, { query }) {
    const seen = { ...query };
    // What a careless handler might do to its input: no other request may see it.
    (query as Record<string, unknown>).limit = 0;
    return seen;
  },
});

const silent = { error() {}, warn() {}, info() {}, debug() {} };
const deps = { rateLimits: new MemoryRateLimits() } as unknown as HttpDeps;
const app = new Koa();
app.use(errorHandler(silent as never));
app.use(router([echo], deps).routes());
const handle = app.callback();
const server = createServer((request, response) => void handle(request, response)).listen(0, '127.0.0.1');
await once(server, 'listening');
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
afterAll(() => new Promise((resolve) => server.close(resolve)));

const get = async (query: string) => {
  const response = await fetch(`${origin}/echo${query}`);
  return { status: response.status, body: await response.json() };
};

describe('a route’s checked query, kept by its query string', () => {
  it('is each request’s own', async () => {
    for (let i = 0; i < 3; i++) expect(await get('?limit=5&tag=a')).toEqual({ status: 200, body: { limit: 5, tag: 'a' } });
    for (let i = 0; i < 2; i++) expect(await get('')).toEqual({ status: 200, body: { limit: 50 } });
  });

  it('is refused each time it is bad', async () => {
    for (let i = 0; i < 2; i++) expect((await get('?limit=500')).status).toBe(400);
  });
});
