// The composition root: what compose() starts for each role (on the embedded engines, which only ROLE=all uses in
// production: loadEngineConfig refuses them for the other roles, compose does not need to), its one close(), a failed
// start that leaves nothing running, and a stopped projector reaching onFatal.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compose } from '../../infra/compose.js';
import { freePort } from '../contracts/ports.js';
import { loadConfig } from '../../infra/config.js';
import { ROLES, type Role, loadEngineConfig } from '../../infra/engines.js';
import { createLogger } from '../../infra/logger.js';
import { RemoteProjections } from '../../infra/remoteProjections.js';
import { EMBEDDED, endsOnFatal } from '../../infra/roles.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function configFor(env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'parley-compose-'));
  dirs.push(dir);
  return loadConfig({
    DATA_DIR: dir,
    PORT: '0',
    HOST: '127.0.0.1',
    SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
    MASTER_KEY: Buffer.alloc(32, 8).toString('base64'),
    ...env,
  });
}

const log = createLogger('silent');

describe('compose()', () => {
  // operator: the operator's endpoints alone, for the health checks of the roles without the API.
  const expected: [Role, { http: boolean; operator: boolean; gateway: boolean; delivery: boolean; projectsHere: boolean }][] = [
    ['all', { http: true, operator: false, gateway: true, delivery: true, projectsHere: true }],
    ['api', { http: true, operator: false, gateway: false, delivery: false, projectsHere: false }],
    ['gateway', { http: true, operator: false, gateway: true, delivery: false, projectsHere: false }],
    ['projector', { http: false, operator: true, gateway: false, delivery: false, projectsHere: true }],
    ['relay', { http: false, operator: true, gateway: false, delivery: false, projectsHere: false }],
    ['delivery', { http: false, operator: true, gateway: false, delivery: true, projectsHere: false }],
  ];

  it.each(expected)('role %s starts what the README says, and close() stops it (twice is once)', async (role, wants) => {
    const composition = await compose(configFor(), { ...EMBEDDED, role, settleTimeoutMs: 50 }, log);
    expect({
      http: composition.http !== null,
      operator: composition.operator !== null,
      gateway: composition.gateway !== null,
      delivery: composition.delivery !== null,
      projectsHere: !(composition.runtime.projections instanceof RemoteProjections),
    }).toEqual(wants);
    await Promise.all([composition.close(), composition.close()]);
  });

  it.each(['api', 'projector'] as const)('role %s starts without Kafka: it consumes and publishes nothing on the bus', async (role) => {
    const kafka = loadEngineConfig({ BUS: 'kafka', KAFKA_BROKERS: `127.0.0.1:${await freePort()}` }).bus;
    const composition = await compose(configFor(), { ...EMBEDDED, role, bus: kafka, settleTimeoutMs: 50 }, log);
    await composition.close();
  });

  it('a distributed role without the shared SECRET_KEY is refused', async () => {
    await expect(compose(configFor({ SECRET_KEY: '' }), { ...EMBEDDED, role: 'api' }, log)).rejects.toThrow(
      'ROLE=api runs beside other processes: it needs the shared SECRET_KEY',
    );
  });

  it('a distributed role without the shared MASTER_KEY is refused', async () => {
    await expect(compose(configFor({ MASTER_KEY: '' }), { ...EMBEDDED, role: 'api' }, log)).rejects.toThrow(
      'ROLE=api runs beside other processes: it needs the shared MASTER_KEY',
    );
  });

  it('a failed start gives its error and stops what it had started, so the role starts again once the port is free', async () => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => blocker.once('listening', resolve));
    const port = (blocker.address() as { port: number }).port;
    const config = configFor({ PORT: String(port) });
    await expect(compose(config, EMBEDDED, log)).rejects.toThrow(/EADDRINUSE/);
    blocker.close();
    const again = await compose(config, EMBEDDED, log);
    expect(again.http?.port).toBe(port);
    await again.close();
  });

  it('a projector that stops is reported to onFatal', async () => {
    const stopped: string[] = [];
    const composition = await compose(configFor(), { ...EMBEDDED, role: 'projector' }, log, { onFatal: (_error, what) => stopped.push(what) });
    // The read models go away under the running projectors: their next batch fails.
    await composition.runtime.readStore.close();
    await composition.runtime.store.appendToStream('note-1', [{ type: 'Noted', data: {}, metadata: { actorId: null, createdAt: new Date().toISOString() } }]);
    await expect.poll(() => stopped, { timeout: 5000 }).toEqual(['projections stopped']);
    await composition.close().catch(() => {});
  });

  it('infra/main.ts ends the process on it in every distributed role, and keeps the single process serving', () => {
    expect(ROLES.filter(endsOnFatal)).toEqual(['api', 'projector', 'relay', 'gateway', 'delivery']);
  });
});
