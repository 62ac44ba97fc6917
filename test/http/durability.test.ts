// A 2xx means the events are on disk: the server is killed with SIGKILL right after acknowledging writes, started
// again on the same DATA_DIR, and everything it acknowledged is there.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { killServerProcess, startServerProcess, stopServerProcesses } from '../support/process.js';

const dataDir = await mkdtemp(join(tmpdir(), 'parley-kill-'));
afterAll(async () => {
  await stopServerProcesses();
  await rm(dataDir, { recursive: true, force: true });
});

describe('durability', () => {
  it('keeps every acknowledged write across a SIGKILL', async () => {
    const first = await startServerProcess(dataDir);
    const names = Array.from({ length: 25 }, (_, i) => `durable${process.pid}n${i}`);
    const acknowledged: { id: string; name: string }[] = [];
    await Promise.all(
      names.map(async (name) => {
        const response = await request(`${first.origin}/api/v1/auth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: name, password: 'a long password' }),
          dispatcher: first.dispatcher,
        });
        const body = (await response.body.json()) as { user_id: string };
        if (response.statusCode === 201) acknowledged.push({ id: body.user_id, name });
      }),
    );
    await killServerProcess(first.child);
    expect(acknowledged.length).toBe(names.length);

    const second = await startServerProcess(dataDir);
    const { dispatcher } = second;
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
      await killServerProcess(second.child);
    }
  });
});
