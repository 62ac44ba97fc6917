// The containers' health check (infra/healthcheck.ts) against real processes' ports: a role without the API answers
// the operator's endpoints and nothing else, and the check passes on a 200 only, trusting that process's certificate.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { compose } from '../../infra/compose.js';
import { loadConfig } from '../../infra/config.js';
import type { Role } from '../../infra/engines.js';
import { checkHealth } from '../../infra/healthcheck.js';
import { createLogger } from '../../infra/logger.js';
import { EMBEDDED } from '../../infra/roles.js';
import { freePort } from '../contracts/ports.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A process of the role, on the embedded engines, with the environment its health check reads. */
async function start(role: Role) {
  const dir = mkdtempSync(join(tmpdir(), 'parley-health-'));
  dirs.push(dir);
  const env = {
    DATA_DIR: dir,
    HOST: '127.0.0.1',
    PORT: String(await freePort()),
    SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
    MASTER_KEY: Buffer.alloc(32, 8).toString('base64'),
  };
  const composition = await compose(loadConfig(env), { ...EMBEDDED, role, settleTimeoutMs: 50 }, createLogger('silent'));
  return { env, composition };
}

describe('the health check', () => {
  it.each(['projector', 'relay', 'delivery'] as const)('a %s serves the operator’s endpoints alone, and is healthy', async (role) => {
    const { env, composition } = await start(role);
    const server = composition.operator!;
    const dispatcher = new Agent({ connect: { ca: server.cert!, servername: 'localhost' } });
    try {
      const get = async (path: string) => {
        const response = await request(`https://127.0.0.1:${server.port}${path}`, { dispatcher });
        return { status: response.statusCode, body: await response.body.json() };
      };
      expect(await get('/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
      expect(await get('/readyz')).toEqual({ status: 200, body: { status: 'ready', projection_lag: 0 } });
      expect(await get('/api/v10/gateway')).toEqual({ status: 404, body: { code: 'NOT_FOUND', message: expect.stringContaining('serves no API') } });
      expect(await checkHealth('/healthz', env)).toEqual({ healthy: true, answer: '200 {"status":"ok"}' });
    } finally {
      await composition.close();
      await dispatcher.close();
    }
  });

  it('checks an api node on /readyz', async () => {
    const { env, composition } = await start('api');
    try {
      expect(await checkHealth('/readyz', env)).toEqual({ healthy: true, answer: '200 {"status":"ready","projection_lag":0}' });
    } finally {
      await composition.close();
    }
  });

  it('fails where nothing answers, and asks only the operator’s endpoints', async () => {
    const { env, composition } = await start('delivery');
    await composition.close();
    await expect(checkHealth('/healthz', env)).rejects.toThrow(/ECONNREFUSED/);
    await expect(checkHealth('/metrics', env)).rejects.toThrow('the health check asks /healthz or /readyz, not "/metrics"');
  });
});
