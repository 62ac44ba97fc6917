// Where a newcomer looks first: the origin's root and the API's lead to the reference (a browser to the page, a client
// to a JSON answer naming it, never a 404), and `npm start`'s line that says it listens says where the reference is.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServerProcess, stopServerProcesses } from '../support/process.js';
import { fileServer } from '../support/server.js';

const server = await fileServer();
const ROOTS = ['/', '/api', '/api/v1', '/api/v1/', '/api/v10'];
/** What Chrome and Firefox send for a page. */
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('GET / and the API roots', () => {
  it.each(ROOTS)('%s sends a browser to the reference page', async (path) => {
    const answer = await server.call('GET', path, { headers: { accept: BROWSER } });
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBe('/api/v1/docs');
    const page = await server.call('GET', answer.headers.location as string, { headers: { accept: BROWSER } });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it.each(ROOTS)('%s tells a client (curl’s */*, JSON, no Accept) where the reference and the OpenAPI document are', async (path) => {
    for (const accept of ['*/*', 'application/json', undefined]) {
      const answer = await server.call('GET', path, { headers: accept ? { accept } : {} });
      expect(answer.status, String(accept)).toBe(200);
      expect(answer.headers['content-type']).toBe('application/json');
      expect(answer.body).toEqual({ message: expect.stringContaining('/api/v1/docs'), docs: '/api/v1/docs', openapi: '/api/v1/openapi.json' });
    }
  });

  it('names a page and a document that are there', async () => {
    const { body } = await server.call('GET', '/');
    expect((await server.call('GET', body.docs)).status).toBe(200);
    expect((await server.call('GET', body.openapi)).body.openapi).toBe('3.1.0');
  });

  it('is still a 405 for another method, and the paths beside it still 404', async () => {
    const posted = await server.call('POST', '/api/v1', { body: {} });
    expect(posted.status).toBe(405);
    expect(posted.headers.allow).toBe('GET, HEAD');
    expect((await server.call('GET', '/nothing-here')).body.code).toBe('NOT_FOUND');
    expect((await server.api('GET', '/nothing-here')).body.code).toBe('NOT_FOUND');
  });
});

describe('npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-root-'));
  afterAll(async () => {
    await stopServerProcesses();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('says where the reference is in the line that says where it listens', async () => {
    const started = await startServerProcess(dataDir);
    const line = JSON.parse(
      started
        .output()
        .split('\n')
        .find((l) => l.includes('"listening"'))!,
    );
    expect(line.listening).toBe(started.origin);
    expect(line.docs).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/api\/v1\/docs$/);
    expect(line.msg).toBe(`Parley is listening: the API reference is at ${line.docs}`);
  });
});
