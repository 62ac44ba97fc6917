// A SIGKILL in the middle of an erasure: the server process is killed while an account deletion
// or a message deletion is under way and other users write; after a restart the erasure is either done or not begun
// as far as anyone can tell (never a half-erased account that can neither log in nor be deleted again), a request to
// finish it succeeds, and every write acknowledged to the others is there.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../contracts/eventually.js';
import { filesHolding } from '../support/files.js';
import { type ServerProcess, callProcess, killServerProcess, okFromProcess, replayIn, startServerProcess, stopServerProcesses } from '../support/process.js';

const PASSWORD = 'correct horse battery';
const ENV = { READ_MODEL_SCRUB_MS: '100' };
const dirs: string[] = [];
afterAll(async () => {
  await stopServerProcesses();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const register = (server: ServerProcess, username: string, email?: string) =>
  okFromProcess(server, 'POST', '/auth/register', undefined, { username, password: PASSWORD, email });

/** Messages the owner sends one after another until told to stop or the server dies; those acknowledged. */
function keepWriting(server: ServerProcess, token: string, channelId: string) {
  const acknowledged: { id: string; content: string }[] = [];
  let stopped = false;
  const done = (async () => {
    for (let i = 0; !stopped; i++) {
      const content = `still here ${i}`;
      const sent = await callProcess(server, 'POST', `/channels/${channelId}/messages`, token, { content }).catch(() => null);
      if (!sent) return;
      if (sent.status === 200) acknowledged.push({ id: sent.body.id, content });
    }
  })();
  return {
    acknowledged,
    /** Resolves once a write was acknowledged, so that the kill cuts into writes under way. */
    started: async () => {
      while (acknowledged.length === 0) await sleep(5);
    },
    stop: async () => ((stopped = true), await done),
  };
}

async function expectAcknowledged(server: ServerProcess, token: string, channelId: string, acknowledged: { id: string; content: string }[]) {
  expect(acknowledged.length).toBeGreaterThan(0);
  for (const { id, content } of acknowledged)
    expect((await callProcess(server, 'GET', `/channels/${channelId}/messages/${id}`, token)).body.content).toBe(content);
}

describe('a SIGKILL in the middle of an erasure', () => {
  it.each([5, 60])(
    'of an account, after %i ms: the account is whole or erased, a second request finishes it, others’ writes stay',
    async (delay) => {
      const dir = mkdtempSync(join(tmpdir(), 'parley-erasure-crash-'));
      dirs.push(dir);
      let server = await startServerProcess(dir, ENV);
      const name = `crash${randomBytes(4).toString('hex')}`;
      const email = `${name}@example.org`;
      const leaving = await register(server, name, email);
      const owner = await register(server, `owner${randomBytes(4).toString('hex')}`);
      // Guilds to leave (as many as the invite limit allows at once), so that the deletion has steps to be cut between.
      let channelId = '';
      for (let i = 0; i < 4; i++) {
        const guild = await okFromProcess(server, 'POST', '/guilds', owner.token, { name: `guild ${i}` });
        channelId ||= guild.system_channel_id;
        const invite = await okFromProcess(server, 'POST', `/guilds/${guild.id}/invites`, owner.token, {});
        await okFromProcess(server, 'POST', `/invites/${invite.code}`, leaving.token);
      }
      const writes = keepWriting(server, owner.token, channelId);
      await writes.started();
      const deletion = callProcess(server, 'POST', '/users/@me/delete', leaving.token, { password: PASSWORD }).catch(() => null);
      await sleep(delay);
      await killServerProcess(server.child);
      await Promise.all([deletion, writes.stop()]);

      server = await startServerProcess(dir, ENV);
      const me = await callProcess(server, 'GET', '/users/@me', leaving.token);
      if (me.status === 200) {
        // Not erased: the account is whole to its owner, and deleting it again finishes what was begun.
        expect(me.body.username).toBe(name);
        expect((await callProcess(server, 'POST', '/users/@me/delete', leaving.token, { password: PASSWORD })).status).toBe(204);
      } else {
        expect(me.status).toBe(401);
      }
      expect((await callProcess(server, 'GET', '/users/@me', leaving.token)).status).toBe(401);
      await eventually(async () => expect(await filesHolding(dir, email)).toEqual([]), 3000);
      await expectAcknowledged(server, owner.token, channelId, writes.acknowledged);
      await killServerProcess(server.child);
      const exported = await replayIn(dir, 'export');
      expect(exported.code).toBe(0);
      expect(exported.stdout).not.toContain(email);
      expect(exported.stdout).toContain(owner.username ?? 'owner');
    },
    60_000,
  );

  it.each([0])(
    'of a message, after %i ms: the message reads whole or is gone with its text, others’ writes stay',
    async (delay) => {
      const dir = mkdtempSync(join(tmpdir(), 'parley-erasure-crash-'));
      dirs.push(dir);
      let server = await startServerProcess(dir, ENV);
      const owner = await register(server, `owner${randomBytes(4).toString('hex')}`);
      const guild = await okFromProcess(server, 'POST', '/guilds', owner.token, { name: 'crash' });
      const channelId = guild.system_channel_id;
      const text = `SECRET-${randomBytes(8).toString('hex')}`;
      const message = await okFromProcess(server, 'POST', `/channels/${channelId}/messages`, owner.token, { content: text });
      const writes = keepWriting(server, owner.token, channelId);
      await writes.started();
      const deletion = callProcess(server, 'DELETE', `/channels/${channelId}/messages/${message.id}`, owner.token).catch(() => null);
      await sleep(delay);
      await killServerProcess(server.child);
      await Promise.all([deletion, writes.stop()]);

      server = await startServerProcess(dir, ENV);
      const read = await callProcess(server, 'GET', `/channels/${channelId}/messages/${message.id}`, owner.token);
      if (read.status === 200) {
        expect(read.body.content).toBe(text);
        expect((await callProcess(server, 'DELETE', `/channels/${channelId}/messages/${message.id}`, owner.token)).status).toBe(204);
      } else {
        expect(read.status).toBe(404);
      }
      await eventually(async () => expect(await filesHolding(dir, text)).toEqual([]), 3000);
      await expectAcknowledged(server, owner.token, channelId, writes.acknowledged);
    },
    60_000,
  );
});
