// Deleted means deleted, in the log too (docs/privacy.md): personal fields enter events.db only as
// ciphertext under per-subject keys in keys.db, and an erasure destroys the keys. Checked over HTTPS on the real
// server by a byte search of the whole DATA_DIR (log, WAL, read models, key store, blobs) and through the operator's
// export, which writes erased fields as null with an "erased" mark.
import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../contracts/eventually.js';
import { filesHolding as searchDataDir } from '../support/files.js';
import { replayIn } from '../support/process.js';
import { registerUser, startTestServer } from '../support/server.js';
import { PASSWORD } from './oauth2Support.js';

const SCRUB_MS = 100;
const ENV = { READ_MODEL_SCRUB_MS: String(SCRUB_MS) };
const WITHIN = SCRUB_MS + 1500;
// Given: the directory outlives one server, which a test restarts on it.
const dataDir = await mkdtemp(join(tmpdir(), 'parley-shredding-'));
let server = await startTestServer(ENV, dataDir);
afterAll(async () => {
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
});

const filesHolding = (text: string) => searchDataDir(dataDir, text);
const expectNowhere = (text: string) => eventually(async () => expect(await filesHolding(text)).toEqual([]), WITHIN);
const secret = (label: string) => `SECRET-${randomBytes(8).toString('hex')}-${label}`;

async function exported(): Promise<{ text: string; events: { type: string; erased?: boolean; data: any }[] }> {
  const { code, stdout, stderr } = await replayIn(dataDir, 'export');
  expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
  return {
    text: stdout,
    events: stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line)),
  };
}

async function dm(from: { token: string }, to: { id: string }): Promise<string> {
  const channel = await server.api('POST', '/users/@me/channels', { token: from.token, body: { recipient_id: to.id } });
  expect(channel.status).toBe(200);
  return channel.body.id;
}

describe('a direct message sent, edited and deleted', () => {
  it('is in the log only as ciphertext while it exists, and readable nowhere once deleted', async () => {
    const [ada, bob] = [await registerUser(server), await registerUser(server)];
    const channel = await dm(ada, bob);
    const pin = secret('my-bank-pin');
    const sent = await server.api('POST', `/channels/${channel}/messages`, { token: ada.token, body: { content: pin } });
    expect(sent.status).toBe(200);
    // The read model holds it (the search finds what is there), the log and the key store do not.
    // (A search may meet the read models' scrub between the WAL and the file: it is asked again.)
    await eventually(async () => expect((await filesHolding(pin)).some((file) => file.startsWith('read-models.db'))).toBe(true));
    expect((await filesHolding(pin)).filter((file) => !file.startsWith('read-models.db'))).toEqual([]);
    expect((await exported()).text).toContain(pin);

    const replacement = secret('edited-away');
    expect((await server.api('PATCH', `/channels/${channel}/messages/${sent.body.id}`, { token: ada.token, body: { content: replacement } })).status).toBe(200);
    // What the edit replaced is gone from the export: its version's key is destroyed. The new text reads.
    await expectNowhere(pin);
    const afterEdit = await exported();
    expect(afterEdit.text).not.toContain(pin);
    expect(afterEdit.text).toContain(replacement);
    const created = afterEdit.events.find((e) => e.type === 'MessageCreated' && e.data.messageId === sent.body.id)!;
    expect({ erased: created.erased, content: created.data.message.content }).toEqual({ erased: true, content: null });
    expect((await server.api('GET', `/channels/${channel}/messages/${sent.body.id}`, { token: bob.token })).body.content).toBe(replacement);

    expect((await server.api('DELETE', `/channels/${channel}/messages/${sent.body.id}`, { token: ada.token })).status).toBe(204);
    await expectNowhere(replacement);
    const afterDelete = await exported();
    expect(afterDelete.text).not.toContain(replacement);
    const edited = afterDelete.events.find((e) => e.type === 'MessageEdited' && e.data.messageId === sent.body.id)!;
    expect({ erased: edited.erased, content: edited.data.message.content, changed: edited.data.changes.content }).toEqual({
      erased: true,
      content: null,
      changed: null,
    });
    // Ids and times stay, for ordering and auditing.
    expect(edited.data.message.id).toBe(sent.body.id);
    // Each search and export above is a process of its own: about 9 s on a quiet machine, past 30 s under CI's load.
  }, 90_000);

  it('a bulk delete and a channel deletion destroy their messages’ keys, and only theirs', async () => {
    const owner = await registerUser(server);
    const guild = (await server.api('POST', '/guilds', { token: owner.token, body: { name: 'shredding' } })).body;
    const [kept, bulk, gone] = [secret('kept'), secret('bulk'), secret('channel')];
    const general = guild.channels?.[0]?.id ?? (await server.api('GET', `/guilds/${guild.id}/channels`, { token: owner.token })).body[0].id;
    const other = (await server.api('POST', `/guilds/${guild.id}/channels`, { token: owner.token, body: { name: 'other' } })).body.id;
    const send = async (channelId: string, content: string) =>
      (await server.api('POST', `/channels/${channelId}/messages`, { token: owner.token, body: { content } })).body.id as string;
    await send(general, kept);
    const bulkIds = [await send(general, `${bulk}-1`), await send(general, `${bulk}-2`)];
    await send(other, gone);
    expect((await server.api('POST', `/channels/${general}/messages/bulk-delete`, { token: owner.token, body: { messages: bulkIds } })).status).toBe(204);
    expect((await server.api('DELETE', `/channels/${other}`, { token: owner.token })).status).toBe(200);
    await expectNowhere(bulk);
    await expectNowhere(gone);
    const { text } = await exported();
    expect(text).not.toContain(bulk);
    expect(text).not.toContain(gone);
    expect(text).toContain(kept);
  });
});

describe('an edit that drops attachments', () => {
  it('leaves the dropped files’ names and descriptions nowhere in DATA_DIR nor in the export; the kept file’s stay', async () => {
    const [ada, bob] = [await registerUser(server), await registerUser(server)];
    const channel = await dm(ada, bob);
    const files = ['dropped-a', 'kept', 'dropped-b'].map((label) => ({ filename: `${secret(label)}.txt`, description: secret(`${label}-alt`) }));
    const form = new FormData();
    form.append('payload_json', JSON.stringify({ content: 'files', attachments: files.map((file, id) => ({ id, ...file })) }));
    files.forEach((file, i) => form.append(`files[${i}]`, new Blob([`bytes ${i}`], { type: 'text/plain' }), file.filename));
    const encoded = new Response(form);
    const sent = await server.api('POST', `/channels/${channel}/messages`, {
      token: ada.token,
      rawBody: Buffer.from(await encoded.arrayBuffer()),
      headers: { 'content-type': encoded.headers.get('content-type')! },
    });
    expect(sent.status, sent.text).toBe(200);
    const attachments = sent.body.attachments as { id: string; filename: string; description: string }[];
    expect(attachments.map((a) => [a.filename, a.description])).toEqual(files.map((file) => [file.filename, file.description]));

    const edited = await server.api('PATCH', `/channels/${channel}/messages/${sent.body.id}`, {
      token: ada.token,
      body: { attachments: [{ id: attachments[1].id }] },
    });
    expect(edited.status, edited.text).toBe(200);
    const [dropped, kept] = [[files[0], files[2]], files[1]];
    for (const text of dropped.flatMap((file) => [file.filename, file.description])) await expectNowhere(text);
    const { text, events } = await exported();
    for (const file of dropped) {
      expect(text).not.toContain(file.filename);
      expect(text).not.toContain(file.description);
    }
    expect(text).toContain(kept.filename);
    expect(text).toContain(kept.description);
    // The edit still names what it dropped, by id, with the names read as erased.
    const edit = events.find((e) => e.type === 'MessageEdited' && e.data.messageId === sent.body.id)!;
    expect(edit.data.removedAttachments.map((a: any) => [a.id, a.filename, a.description])).toEqual([
      [attachments[0].id, null, null],
      [attachments[2].id, null, null],
    ]);
  }, 60_000);
});

describe('an account deleted with POST /users/@me/delete', () => {
  it('leaves its email and username nowhere in DATA_DIR nor in the export; the email registers again', async () => {
    const username = `gone${randomBytes(4).toString('hex')}`;
    const email = `${username}@example.org`;
    const registered = await server.api('POST', '/auth/register', { body: { username, email, password: PASSWORD } });
    expect(registered.status).toBe(201);
    const friend = await registerUser(server);
    const channel = await dm({ token: registered.body.token }, friend);
    const words = secret('their-words');
    expect((await server.api('POST', `/channels/${channel}/messages`, { token: registered.body.token, body: { content: words } })).status).toBe(200);
    expect((await exported()).text).toContain(email);

    expect((await server.api('POST', '/users/@me/delete', { token: registered.body.token, body: { password: PASSWORD } })).status).toBe(204);
    await expectNowhere(email);
    await expectNowhere(username);
    const { text, events } = await exported();
    expect(text).not.toContain(email);
    expect(text).not.toContain(username);
    expect(events.find((e) => e.type === 'UserRegistered' && e.data.userId === registered.body.user_id)).toMatchObject({
      erased: true,
      data: { email: null, username: null },
    });
    // Their messages stay, by Deleted User, as on the widely used API.
    const messages = await server.api('GET', `/channels/${channel}/messages`, { token: friend.token });
    expect(messages.body.map((m: any) => [m.content, m.author.username])).toEqual([[words, 'Deleted User']]);
    expect((await server.api('POST', '/auth/register', { body: { username, email, password: PASSWORD } })).status).toBe(201);
  });
});

describe('the names people give places', () => {
  /** The files of the log (events.db, its WAL and -shm) that hold `text`. */
  const logFilesHolding = async (text: string) => (await filesHolding(text)).filter((file) => file.startsWith('events.db'));

  it('of a thread renamed and a forum post: in the log only as ciphertext, and nowhere once deleted; their audit entries stay', async () => {
    const owner = await registerUser(server);
    const guild = (await server.api('POST', '/guilds', { token: owner.token, body: { name: 'places' } })).body;
    const { token } = owner;
    const general = (await server.api('GET', `/guilds/${guild.id}/channels`, { token })).body.find((c: { type: number }) => c.type === 0).id;
    const [first, renamed, title] = [secret('thread'), secret('renamed'), secret('post-title')];
    const thread = await server.api('POST', `/channels/${general}/threads`, { token, body: { name: first, type: 11 } });
    expect(thread.status).toBe(201);
    expect((await server.api('PATCH', `/channels/${thread.body.id}`, { token, body: { name: renamed } })).status).toBe(200);
    const forum = await server.api('POST', `/guilds/${guild.id}/channels`, { token, body: { name: 'forum', type: 15 } });
    expect(forum.status).toBe(201);
    const post = await server.api('POST', `/channels/${forum.body.id}/threads`, { token, body: { name: title, message: { content: 'the body' } } });
    expect(post.status).toBe(201);
    // Read where they are shown, from the log as the read models hold it: not in the log's bytes.
    expect((await server.api('GET', `/channels/${thread.body.id}`, { token })).body.name).toBe(renamed);
    expect((await server.api('GET', `/channels/${post.body.id}`, { token })).body.name).toBe(title);
    for (const name of [first, renamed, title]) expect(await logFilesHolding(name)).toEqual([]);
    const live = (await exported()).text;
    for (const name of [first, renamed, title]) expect(live).toContain(name);

    for (const id of [thread.body.id, post.body.id]) expect((await server.api('DELETE', `/channels/${id}`, { token })).status).toBe(200);
    for (const name of [first, renamed, title]) await expectNowhere(name);
    const { text, events } = await exported();
    for (const name of [first, renamed, title]) expect(text).not.toContain(name);
    const created = events.find((e) => e.type === 'ThreadCreated' && e.data.thread.id === thread.body.id)!;
    expect({ erased: created.erased, name: created.data.thread.name, type: created.data.thread.type }).toEqual({ erased: true, name: null, type: 11 });
    // The audit log still says who made, renamed and deleted the thread, when, and what else it was: not its names.
    const audit = await server.api('GET', `/guilds/${guild.id}/audit-logs`, { token });
    expect(audit.status).toBe(200);
    const entries = (audit.body.audit_log_entries as { target_id: string; action_type: number; changes?: { key: string }[] }[]).filter(
      (entry) => entry.target_id === thread.body.id,
    );
    expect(entries.map((entry) => entry.action_type).sort()).toEqual([110, 111, 112]);
    expect(entries.flatMap((entry) => (entry.changes ?? []).map((change) => change.key))).not.toContain('name');
    expect(entries.find((entry) => entry.action_type === 110)!.changes).toContainEqual({ key: 'type', new_value: 11 });
  }, 60_000);

  it('of a group DM: in the log only as ciphertext, read by its participants and the one added after', async () => {
    const [ada, bob, carol] = [await registerUser(server), await registerUser(server), await registerUser(server)];
    const group = await server.api('POST', '/users/@me/channels', { token: ada.token, body: { recipients: [bob.id] } });
    expect(group.status).toBe(200);
    const name = secret('group-dm');
    expect((await server.api('PATCH', `/channels/${group.body.id}`, { token: bob.token, body: { name } })).status).toBe(200);
    expect((await server.api('PUT', `/channels/${group.body.id}/recipients/${carol.id}`, { token: ada.token })).status).toBe(204);
    expect((await server.api('GET', `/channels/${group.body.id}`, { token: carol.token })).body.name).toBe(name);
    expect(await logFilesHolding(name)).toEqual([]);
    const { events } = await exported();
    const added = events.find((e) => e.type === 'RecipientAdded' && e.data.channelId === group.body.id)!;
    expect(added.data.name).toBe(name);
  });
});

describe('after erasures', () => {
  it('a rebuild gives the read models incremental processing built', async () => {
    const collections = server.runtime.projections['projections'].flatMap((p: { collections: string[] }) => p.collections) as string[];
    const snapshot = async () =>
      Object.fromEntries(await Promise.all(collections.map(async (c) => [c, await server.runtime.readStore.find(c, {}, { sort: { _id: 1 } })])));
    const before = await snapshot();
    await server.runtime.projections.rebuild();
    expect(await snapshot()).toEqual(before);
  });

  it('a key store restored from a backup made before an erasure destroys the erased keys again at start', async () => {
    const [ada, bob] = [await registerUser(server), await registerUser(server)];
    const channel = await dm(ada, bob);
    const words = secret('restored');
    const sent = await server.api('POST', `/channels/${channel}/messages`, { token: ada.token, body: { content: words } });
    // The backup: the key store alone, copied while the server is stopped (docs/privacy.md: backups).
    await server.close();
    const backup = `${dataDir}-keys-backup`;
    await rm(backup, { recursive: true, force: true });
    for (const name of ['keys.db', 'keys.db-wal']) await cp(join(dataDir, name), join(backup, name)).catch(() => {});
    server = await startTestServer(ENV, dataDir);
    expect((await server.api('DELETE', `/channels/${channel}/messages/${sent.body.id}`, { token: ada.token })).status).toBe(204);
    await server.close();
    for (const name of ['keys.db', 'keys.db-wal', 'keys.db-shm']) await rm(join(dataDir, name), { force: true });
    for (const name of ['keys.db', 'keys.db-wal']) await cp(join(backup, name), join(dataDir, name)).catch(() => {});
    await rm(backup, { recursive: true, force: true });
    server = await startTestServer(ENV, dataDir);
    const { text } = await exported();
    expect(text).not.toContain(words);
    expect(text).toContain(ada.username);
  });
});
