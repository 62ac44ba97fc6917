// A 2xx means the events are on disk: the server is killed with SIGKILL right after acknowledging writes, started
// again on the same DATA_DIR, and everything it acknowledged is there.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';

const dataDir = await mkdtemp(join(tmpdir(), 'parley-kill-'));
afterAll(() => rm(dataDir, { recursive: true, force: true }));

function start(): Promise<{ child: ChildProcess; origin: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/main.ts'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const match = /"listening":"(https:\/\/[^"]+)"/.exec(output);
      if (match) resolve({ child, origin: match[1] });
    });
    child.stderr!.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}

async function client() {
  const ca = await readFile(join(dataDir, 'tls', 'self-signed.crt'), 'utf8');
  return new Agent({ connect: { ca, servername: 'localhost' } });
}

describe('durability', () => {
  it('keeps every acknowledged write across a SIGKILL', async () => {
    const first = await start();
    const dispatcher = await client();
    const names = Array.from({ length: 25 }, (_, i) => `durable${process.pid}n${i}`);
    const acknowledged: { id: string; name: string }[] = [];
    await Promise.all(
      names.map(async (name) => {
        const response = await request(`${first.origin}/api/v1/auth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: name, password: 'a long password' }),
          dispatcher,
        });
        const body = (await response.body.json()) as { user_id: string };
        if (response.statusCode === 201) acknowledged.push({ id: body.user_id, name });
      }),
    );
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    expect(acknowledged.length).toBe(names.length);

    const second = await start();
    try {
      for (const { id, name } of acknowledged) {
        let response = await request(`${second.origin}/api/v1/users/${id}`, { dispatcher });
        while (response.statusCode === 429) {
          // The users routes are rate limited (5/s): wait as a client should.
          await response.body.dump();
          await new Promise((resolve) => setTimeout(resolve, Number(response.headers['retry-after']) * 1000));
          response = await request(`${second.origin}/api/v1/users/${id}`, { dispatcher });
        }
        const user = (await response.body.json()) as { username: string };
        expect(response.statusCode).toBe(200);
        expect(user.username).toBe(name);
      }
    } finally {
      second.child.kill('SIGKILL');
      await dispatcher.close();
    }
  });
});
