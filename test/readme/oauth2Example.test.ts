// The example OAuth2 client of docs/oauth2.md, taken from that page (the js block after <!-- oauth2-example -->) and run
// with Node against a fresh server, a headless browser playing the person: the script prints the authorization URL,
// the person signs in and authorizes, and the script exchanges the code, reads GET /users/@me, refreshes and revokes.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileBrowser } from '../support/browser.js';
import { fileServer, registerUser } from '../support/server.js';
import { PASSWORD, registerClient } from '../http/oauth2Support.js';

const root = join(import.meta.dirname, '..', '..');
const server = await fileServer();
const browser = await fileBrowser();
const scratch = await mkdtemp(join(tmpdir(), 'parley-oauth2-example-'));
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) child.kill();
  await rm(scratch, { recursive: true, force: true });
});

async function example(): Promise<string> {
  const page = await readFile(join(root, 'docs', 'oauth2.md'), 'utf8');
  const match = /<!-- oauth2-example -->\s*```js\n([\s\S]*?)```/.exec(page);
  if (!match) throw new Error('docs/oauth2.md has no js block after <!-- oauth2-example -->');
  return match[1];
}

/** A loopback port nobody listens on now, for the script's redirect URI. */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe("docs/oauth2.md's example OAuth2 client", () => {
  it('signs the person in through the page, then exchanges, calls GET /users/@me, refreshes and revokes', { timeout: 90_000 }, async () => {
    const port = await freePort();
    const client = await registerClient(server, [`http://127.0.0.1:${port}/callback`]);
    const person = await registerUser(server);
    const script = join(scratch, 'oauth2-example.mjs');
    await writeFile(script, await example());

    const child = spawn(process.execPath, [script], {
      env: {
        PATH: process.env.PATH,
        PARLEY_ORIGIN: server.origin,
        CLIENT_ID: client.id,
        CLIENT_SECRET: client.secret,
        PORT: String(port),
        NODE_EXTRA_CA_CERTS: join(server.dataDir, 'tls', 'self-signed.crt'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const exited = once(child, 'exit');
    await expect.poll(() => stdout, { timeout: 15_000 }).toMatch(/^Open https:\/\/\S+\n/);
    const authorizeUrl = /^Open (\S+)/.exec(stdout)![1];

    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    try {
      const page = await context.newPage();
      await page.goto(authorizeUrl);
      await page.getByLabel('Username or email').fill(person.username);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Authorize' }).click();
      expect(await page.innerText('body')).toBe('Done: you can close this tab.');
    } finally {
      await context.close();
    }
    const [code] = await exited;
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout.trim().split('\n').slice(1)).toEqual([`signed in as ${person.username} (identify, 604800 s)`, 'refreshed: true', 'revoked: true']);
  });
});
