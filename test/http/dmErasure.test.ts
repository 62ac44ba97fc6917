// A group DM ends when its last participant leaves, as on the widely used API: whether each left, its owner removed the
// others and then left, or every participant's account was deleted (which leaves its group DMs first). A DM ends the same
// way once both its participants' accounts are deleted, and at the next start where both were deleted before deletions
// left DMs (an earlier version's DATA_DIR). No one can reach it any more, so its name and messages are
// erased: its keys are destroyed, and a byte search of the whole DATA_DIR (log, read models, key store, blobs) and the
// operator's export find none of it. A DM or group DM someone is still in keeps both.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { settleWithFiles } from '../../commands/deps.js';
import { userStream } from '../../commands/streams.js';
import { type UserCommand, userDecider } from '../../domain/user.js';
import { eventually } from '../contracts/eventually.js';
import { filesHolding } from '../support/files.js';
import { type ServerProcess, replayIn, startServerProcess, stopServerProcesses } from '../support/process.js';
import { type TestUser, registerUser, startTestServer } from '../support/server.js';

const SCRUB_MS = 100;
const dataDir = await mkdtemp(join(tmpdir(), 'parley-group-dm-erasure-'));
let server = await startTestServer({ READ_MODEL_SCRUB_MS: String(SCRUB_MS) }, dataDir);
afterAll(async () => {
  await stopServerProcesses();
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
});

const secret = (label: string) => `SECRET-${randomBytes(8).toString('hex')}-${label}`;
const expectNowhere = (text: string) => eventually(async () => expect(await filesHolding(dataDir, text)).toEqual([]), SCRUB_MS + 1500);

async function exported(): Promise<string> {
  const { code, stdout, stderr } = await replayIn(dataDir, 'export');
  expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
  return stdout;
}

/** A group DM of `owner` with `others`, named and written in by each; the texts it holds. */
async function groupDm(owner: TestUser, others: TestUser[]): Promise<{ channelId: string; name: string; said: string[] }> {
  const created = await server.api('POST', '/users/@me/channels', { token: owner.token, body: { recipients: others.map((user) => user.id) } });
  expect(created.status, created.text).toBe(200);
  const channelId = created.body.id as string;
  const name = secret('group-name');
  expect((await server.api('PATCH', `/channels/${channelId}`, { token: others[0].token, body: { name } })).status).toBe(200);
  return { channelId, name, said: await writeIn(channelId, [owner, ...others]) };
}

/**
 * A file from the first of `users`, then a message from each: the file's bytes, its name, then what each said. The file's
 * bytes are in the blob store, its name in the log.
 */
async function writeIn(channelId: string, users: TestUser[]): Promise<string[]> {
  const [fileText, fileName] = [secret('file-bytes'), secret('file-name')];
  const form = new FormData();
  form.append('payload_json', JSON.stringify({ content: '' }));
  form.append('files[0]', new Blob([fileText], { type: 'text/plain' }), `${fileName}.txt`);
  const encoded = new Response(form);
  const withFile = await server.api('POST', `/channels/${channelId}/messages`, {
    token: users[0].token,
    rawBody: Buffer.from(await encoded.arrayBuffer()),
    headers: { 'content-type': encoded.headers.get('content-type')! },
  });
  expect(withFile.status, withFile.text).toBe(200);
  const said: string[] = [fileText, fileName];
  for (const user of users) {
    const text = secret('said');
    const sent = await server.api('POST', `/channels/${channelId}/messages`, { token: user.token, body: { content: text } });
    expect(sent.status, sent.text).toBe(200);
    said.push(text);
  }
  return said;
}

const deleteAccount = async (user: TestUser) =>
  expect((await server.api('POST', '/users/@me/delete', { token: user.token, body: { password: 'correct horse battery' } })).status).toBe(204);

const leave = async (user: TestUser, channelId: string) =>
  expect((await server.api('DELETE', `/channels/${channelId}`, { token: user.token })).status).toBe(200);

/** Every text erased so far: a rebuild of the read models must bring none back. */
const erased: string[] = [];

/** `texts`: what the DM or group DM held (its name, its files' bytes and names, its messages). */
async function expectErased(channelId: string, texts: string[], formerMember: TestUser | null) {
  erased.push(...texts);
  for (const text of texts) await expectNowhere(text);
  const exportText = await exported();
  for (const text of texts) expect(exportText).not.toContain(text);
  if (formerMember) {
    expect((await server.api('GET', `/channels/${channelId}`, { token: formerMember.token })).status).toBe(404);
    const listed = await server.api('GET', '/users/@me/channels', { token: formerMember.token });
    expect(listed.body.map((channel: { id: string }) => channel.id)).not.toContain(channelId);
  }
}

describe('a group DM no one is in any more', () => {
  it('is erased once its last participant leaves; while one stays, its name and messages read', async () => {
    const [ada, bob, carol] = [await registerUser(server), await registerUser(server), await registerUser(server)];
    const group = await groupDm(ada, [bob, carol]);
    await leave(ada, group.channelId);
    await leave(bob, group.channelId);
    // Carol is still in it: everything reads, for her.
    const page = await server.api('GET', `/channels/${group.channelId}/messages`, { token: carol.token });
    expect(page.body.map((message: { content: string }) => message.content).sort()).toEqual(['', ...group.said.slice(2)].sort());
    expect((await server.api('GET', `/channels/${group.channelId}`, { token: carol.token })).body.name).toBe(group.name);
    expect((await filesHolding(dataDir, group.name)).length).toBeGreaterThan(0);

    await leave(carol, group.channelId);
    await expectErased(group.channelId, [group.name, ...group.said], carol);
  });

  it('is erased once its owner removed the others and left', async () => {
    const [ada, bob] = [await registerUser(server), await registerUser(server)];
    const group = await groupDm(ada, [bob]);
    expect((await server.api('DELETE', `/channels/${group.channelId}/recipients/${bob.id}`, { token: ada.token })).status).toBe(204);
    await leave(ada, group.channelId);
    await expectErased(group.channelId, [group.name, ...group.said], ada);
  });

  it('is erased once every participant’s account is deleted', async () => {
    const [ada, bob] = [await registerUser(server), await registerUser(server)];
    const group = await groupDm(ada, [bob]);
    for (const user of [ada, bob]) await deleteAccount(user);
    await expectErased(group.channelId, [group.name, ...group.said], null);
  });
});

describe('a DM both of whose accounts are deleted', () => {
  /** Ada opens a DM with Bob; both write in it, Ada a file too. */
  async function dm(ada: TestUser, bob: TestUser): Promise<{ channelId: string; said: string[]; fileUrl: string }> {
    const opened = await server.api('POST', '/users/@me/channels', { token: ada.token, body: { recipient_id: bob.id } });
    expect(opened.status, opened.text).toBe(200);
    const channelId = opened.body.id as string;
    const said = await writeIn(channelId, [ada, bob]);
    const page = await server.api('GET', `/channels/${channelId}/messages`, { token: bob.token });
    const withFile = page.body.find((message: { attachments: unknown[] }) => message.attachments.length > 0);
    return { channelId, said, fileUrl: withFile.attachments[0].url };
  }

  for (const first of ['opener', 'recipient'] as const) {
    it(`is kept while one of them is left, and erased with the second (the ${first} deleted first)`, async () => {
      const [ada, bob] = [await registerUser(server), await registerUser(server)];
      const { channelId, said, fileUrl } = await dm(ada, bob);
      const [leaving, staying] = first === 'opener' ? [ada, bob] : [bob, ada];
      await deleteAccount(leaving);
      // The other one still reads all of it, authored by Deleted User where the deleted account wrote, file included.
      const page = await server.api('GET', `/channels/${channelId}/messages`, { token: staying.token });
      expect(page.body.map((message: { content: string }) => message.content).sort()).toEqual(['', ...said.slice(2)].sort());
      const file = await server.call('GET', new URL(fileUrl).pathname);
      expect({ status: file.status, body: file.text }).toEqual({ status: 200, body: said[0] });

      await deleteAccount(staying);
      await expectErased(channelId, said, null);
      expect((await server.call('GET', new URL(fileUrl).pathname)).status).toBe(404);
    });
  }

  it('is erased at the next start when both were deleted before deletions left DMs', async () => {
    const [ada, bob] = [await registerUser(server), await registerUser(server)];
    const { channelId, said, fileUrl } = await dm(ada, bob);
    for (const user of [ada, bob]) await eraseAsBefore(user);
    // Nothing ended the DM: its file is still served.
    expect((await server.call('GET', new URL(fileUrl).pathname)).status).toBe(200);

    // The upgraded server, as `npm start` runs it, ends the DM in the background and says so once its keys and files are gone.
    await server.close();
    const upgraded = await startServerProcess(dataDir, { READ_MODEL_SCRUB_MS: String(SCRUB_MS) });
    try {
      await logged(upgraded, 'ended 1 DM(s) whose two accounts were deleted');
      await expectErased(channelId, said, null);
      const file = await request(`${upgraded.origin}${new URL(fileUrl).pathname}`, { dispatcher: upgraded.dispatcher });
      await file.body.dump();
      expect(file.statusCode).toBe(404);
    } finally {
      const exited = once(upgraded.child, 'exit');
      upgraded.child.kill('SIGTERM');
      await exited;
      server = await startTestServer({ READ_MODEL_SCRUB_MS: String(SCRUB_MS) }, dataDir);
    }
  });
});

/**
 * The account's deletion as versions before DmRecipientLeft made it: UserErased, its DMs not left (the account here is
 * in no guild, group DM or grant, and its claims do not matter to its DMs).
 */
async function eraseAsBefore(user: TestUser) {
  const { runtime } = server;
  const erasedAt = new Date().toISOString();
  const command: UserCommand = { type: 'EraseUser', userId: user.id, erasedAt, passwordMatches: null, ownedGuildIds: [], ownedApplicationIds: [] };
  const { position } = await runtime.commands.handle(userStream(user.id), userDecider, command, { actorId: user.id, createdAt: erasedAt });
  await settleWithFiles(runtime, position);
}

/** An outer bound only, below the test's own, so that a server that never logs it fails with what it did log. */
const LOGGED_WITHIN_MS = 60_000;

/** Resolves once the process has logged `text`. */
function logged(running: ServerProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      running.child.stdout!.off('data', check);
      reject(new Error(`the server did not log "${text}" within ${LOGGED_WITHIN_MS} ms: ${running.output()}`));
    }, LOGGED_WITHIN_MS);
    const check = () => {
      if (!running.output().includes(text)) return;
      clearTimeout(timer);
      running.child.stdout!.off('data', check);
      resolve();
    };
    running.child.stdout!.on('data', check);
    check();
  });
}

describe('DMs and group DMs that ended', () => {
  it('stays erased through a rebuild of the read models', async () => {
    await server.close();
    const rebuilt = await replayIn(dataDir, 'rebuild');
    expect({ code: rebuilt.code, stderr: rebuilt.code === 0 ? '' : rebuilt.stderr }).toEqual({ code: 0, stderr: '' });
    server = await startTestServer({ READ_MODEL_SCRUB_MS: String(SCRUB_MS) }, dataDir);
    expect(erased.length).toBeGreaterThan(0);
    for (const text of erased) await expectNowhere(text);
  });
});
