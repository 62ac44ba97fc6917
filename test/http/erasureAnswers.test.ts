// An erasure's 2xx means the erased keys are destroyed (docs/privacy.md), not only that the erasure is in the
// log. Checked over HTTPS by keeping the key shredder from destroying anything: another connection holds keys.db's
// write lock while the request runs, and the answer must not come until the lock is let go. Account and thread
// deletions once answered as soon as the read models had the erasure, so a load right after the 204 could still fold
// the erased names from the log.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { groupDmStream, messageStream, threadStream, userStream } from '../../commands/streams.js';
import { groupDmDecider } from '../../domain/groupDm.js';
import { messageDecider } from '../../domain/message.js';
import { threadDecider } from '../../domain/thread.js';
import { userDecider } from '../../domain/user.js';
import { eventually } from '../contracts/eventually.js';
import { type ApiResponse, fileServer, registerUser, uniqueName } from '../support/server.js';
import { createGuild } from './guildSupport.js';

// The key store's WAL scrub checkpoints keys.db on the server's thread, which is this test's: waiting there for the
// lock this test holds, it would keep the test from letting go of it. Here it runs only past the test's end.
const server = await fileServer({ READ_MODEL_SCRUB_MS: '3600000' });

/** How long the request is given, once its erasure is in the log, to answer while no key can be destroyed. */
const HELD_MS = 300;

/**
 * Runs `request` while keys.db cannot be written, and checks that it answers only once it can: after the `erasure`
 * event is in the log and HELD_MS more, it has not answered; then the lock goes and it does.
 */
async function answeredAfterShredding(erasure: string, request: () => Promise<ApiResponse>, meanwhile?: () => Promise<void>): Promise<ApiResponse> {
  const before = await server.runtime.store.headPosition();
  const keys = new Database(join(server.dataDir, 'keys.db'));
  let answer: ApiResponse | null = null;
  let pending: Promise<ApiResponse>;
  try {
    keys.exec('BEGIN IMMEDIATE');
    pending = request().then((response) => (answer = response));
    // Well inside the shredder's own wait for the lock (busy_timeout, 5 s).
    await eventually(async () => {
      const appended = await server.runtime.store.readAll(before ? { fromPosition: before } : {});
      expect(appended.map((event) => event.type)).toContain(erasure);
    }, 3000);
    await meanwhile?.();
    await new Promise((resolve) => setTimeout(resolve, HELD_MS));
    expect(answer, 'answered while the keys could not be destroyed').toBeNull();
  } finally {
    if (keys.inTransaction) keys.exec('ROLLBACK');
    keys.close();
  }
  return pending;
}

const contentOf = async (messageId: string) => (await server.runtime.commands.load(messageStream(messageId), messageDecider)).state.message?.content;

describe('an erasure answers once its keys are destroyed', () => {
  it('an account’s deletion: a load after the 204 finds its names and email erased', async () => {
    const username = uniqueName('held');
    const registered = await server.api('POST', '/auth/register', { body: { username, password: 'correct horse battery', email: `${username}@example.com` } });
    expect(registered.status).toBe(201);
    const userId = registered.body.user_id as string;
    const deleted = await answeredAfterShredding('UserErased', () =>
      server.api('POST', '/users/@me/delete', { token: registered.body.token, body: { password: 'correct horse battery' } }),
    );
    expect(deleted.status).toBe(204);
    const after = (await server.runtime.commands.load(userStream(userId), userDecider)).state;
    expect({ username: after.username, email: after.email }).toEqual({ username: 'Deleted User', email: null });
  });

  it('a thread’s deletion: its messages’ text is gone', async () => {
    const guild = await createGuild(server);
    const thread = await server.api('POST', `/channels/${guild.channelId}/threads`, { token: guild.owner.token, body: { name: 'held', type: 11 } });
    expect(thread.status).toBe(201);
    const sent = await server.api('POST', `/channels/${thread.body.id}/messages`, { token: guild.owner.token, body: { content: 'held secret' } });
    expect(await contentOf(sent.body.id)).toBe('held secret');
    const deleted = await answeredAfterShredding('ThreadDeleted', () => server.api('DELETE', `/channels/${thread.body.id}`, { token: guild.owner.token }));
    expect(deleted.status).toBe(200);
    expect(await contentOf(sent.body.id)).toBe('');
  });

  it('a message’s deletion', async () => {
    const guild = await createGuild(server);
    const sent = await server.api('POST', `/channels/${guild.channelId}/messages`, { token: guild.owner.token, body: { content: 'held words' } });
    const deleted = await answeredAfterShredding('MessageDeleted', () =>
      server.api('DELETE', `/channels/${guild.channelId}/messages/${sent.body.id}`, { token: guild.owner.token }),
    );
    expect(deleted.status).toBe(204);
    expect(await contentOf(sent.body.id)).toBe('');
  });

  it('a thread’s deletion and a group DM’s end: a load before the keys are destroyed keeps neither name', async () => {
    const guild = await createGuild(server);
    const thread = await server.api('POST', `/channels/${guild.channelId}/threads`, { token: guild.owner.token, body: { name: 'held thread name', type: 11 } });
    expect(thread.status).toBe(201);
    const threadName = async () => (await server.runtime.commands.load(threadStream(thread.body.id), threadDecider)).state.thread?.name;
    // Loaded while the log still opens the name: the command side folds it again, as any load then would.
    const deleted = await answeredAfterShredding(
      'ThreadDeleted',
      () => server.api('DELETE', `/channels/${thread.body.id}`, { token: guild.owner.token }),
      async () => expect(await threadName()).toBe('held thread name'),
    );
    expect(deleted.status).toBe(200);
    expect(await threadName()).toBeNull();

    const other = await registerUser(server, uniqueName('grouped'));
    const group = await server.api('POST', '/users/@me/channels', { token: guild.owner.token, body: { recipients: [other.id] } });
    expect(group.status, group.text).toBe(200);
    const channelId = group.body.id as string;
    expect((await server.api('DELETE', `/channels/${channelId}`, { token: other.token })).status).toBe(200);
    expect((await server.api('PATCH', `/channels/${channelId}`, { token: guild.owner.token, body: { name: 'held group name' } })).status).toBe(200);
    const groupName = async () => (await server.runtime.commands.load(groupDmStream(channelId), groupDmDecider)).state.name;
    const left = await answeredAfterShredding(
      'RecipientRemoved',
      () => server.api('DELETE', `/channels/${channelId}`, { token: guild.owner.token }),
      async () => expect(await groupName()).toBe('held group name'),
    );
    expect(left.status).toBe(200);
    expect(await groupName()).toBeNull();
  });
});
