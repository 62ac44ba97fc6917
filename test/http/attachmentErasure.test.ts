// Erasure takes a message's files too: every way a message or an attachment goes away (a delete, a bulk delete, a ban's purge,
// the channel's or the guild's deletion, an edit that leaves it out) takes its files out of the blob store, so the CDN
// answers 404 and no byte of them is left under DATA_DIR/blobs; what an edit keeps still serves. A deletion that was
// on disk when the process died loses its files at the next start.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { CommandHandler } from '../../commands/handle.js';
import { UPLOADS_FOLDER, appendWithFiles, noteUploads, resolveAttachments } from '../../commands/messages/attachments.js';
import { messageStream } from '../../commands/streams.js';
import { messageDecider } from '../../domain/message.js';
import { SqliteEventStore } from '../../infra/eventStore/sqlite.js';
import { eventually } from '../contracts/eventually.js';
import { type TestServer, type TestUser, fileServer, startTestServer } from '../support/server.js';
import { createGuild, expectError, newMember } from './guildSupport.js';

const server = await fileServer();

interface SentFile {
  url: string;
  bytes: Buffer;
}

/** Bytes no other file holds, to search the blob folder for. */
const distinctive = (label: string) => Buffer.from(`erasure ${label} ${randomUUID()} ${randomUUID()}`);

/** Sends a message with a file of distinctive bytes per label (multipart, as clients do); its id and files. */
async function sendFiles(on: Pick<TestServer, 'api'>, user: TestUser, channelId: string, ...labels: string[]) {
  const form = new FormData();
  form.append('payload_json', JSON.stringify({ content: 'files' }));
  const files = labels.map(distinctive);
  files.forEach((bytes, i) => form.append(`files[${i}]`, new Blob([bytes], { type: 'text/plain' }), `${labels[i]}.txt`));
  const encoded = new Response(form);
  const response = await on.api('POST', `/channels/${channelId}/messages`, {
    token: user.token,
    rawBody: Buffer.from(await encoded.arrayBuffer()),
    headers: { 'content-type': encoded.headers.get('content-type')! },
  });
  if (response.status !== 200) throw new Error(`send failed: ${response.status} ${response.text}`);
  const attachments = response.body.attachments as { url: string }[];
  return { id: response.body.id as string, files: attachments.map((a, i): SentFile => ({ url: a.url, bytes: files[i] })) };
}

/** The files under DATA_DIR/blobs whose bytes hold `bytes`. */
async function blobsHolding(dataDir: string, bytes: Buffer): Promise<string[]> {
  const root = join(dataDir, 'blobs');
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  const holding = [];
  for (const entry of entries.filter((e) => e.isFile())) {
    const path = join(entry.parentPath, entry.name);
    if ((await readFile(path)).includes(bytes)) holding.push(path);
  }
  return holding;
}

async function expectServed(on: Pick<TestServer, 'call' | 'dataDir'>, file: SentFile) {
  const served = await on.call('GET', new URL(file.url).pathname);
  expect({ status: served.status, body: served.text }).toEqual({ status: 200, body: file.bytes.toString() });
  expect(await blobsHolding(on.dataDir, file.bytes)).toHaveLength(1);
}

async function expectErased(on: Pick<TestServer, 'call' | 'dataDir'>, file: SentFile) {
  expectError(await on.call('GET', new URL(file.url).pathname), 404, 'UNKNOWN_ATTACHMENT');
  expect(await blobsHolding(on.dataDir, file.bytes)).toEqual([]);
}

describe('a deleted message’s files leave the blob store', () => {
  it('on a single delete', async () => {
    const guild = await createGuild(server);
    const { id, files } = await sendFiles(server, guild.owner, guild.channelId, 'single-a', 'single-b');
    for (const file of files) await expectServed(server, file);
    expect((await server.api('DELETE', `/channels/${guild.channelId}/messages/${id}`, { token: guild.owner.token })).status).toBe(204);
    for (const file of files) await expectErased(server, file);
  });

  it('on a bulk delete', async () => {
    const guild = await createGuild(server);
    const sent = [await sendFiles(server, guild.owner, guild.channelId, 'bulk-a'), await sendFiles(server, guild.owner, guild.channelId, 'bulk-b', 'bulk-c')];
    const response = await server.api('POST', `/channels/${guild.channelId}/messages/bulk-delete`, {
      token: guild.owner.token,
      body: { messages: sent.map((m) => m.id) },
    });
    expect(response.status).toBe(204);
    for (const file of sent.flatMap((m) => m.files)) await expectErased(server, file);
  });

  it("on a ban's delete_message_seconds, and only the banned user's", async () => {
    const guild = await createGuild(server);
    const [spammer, bystander] = await Promise.all([newMember(server, guild), newMember(server, guild)]);
    const other = (await server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body: { name: 'other' } })).body.id;
    const spam = [await sendFiles(server, spammer, guild.channelId, 'spam-a'), await sendFiles(server, spammer, other, 'spam-b')];
    const kept = await sendFiles(server, bystander, guild.channelId, 'bystander');
    const ban = await server.api('PUT', `/guilds/${guild.id}/bans/${spammer.id}`, { token: guild.owner.token, body: { delete_message_seconds: 3600 } });
    expect(ban.status).toBe(204);
    for (const file of spam.flatMap((m) => m.files)) await expectErased(server, file);
    await expectServed(server, kept.files[0]);
  });

  it("on the channel's deletion, every message's, and no other channel's", async () => {
    const guild = await createGuild(server);
    const doomed = (await server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body: { name: 'doomed' } })).body.id;
    const sent = [await sendFiles(server, guild.owner, doomed, 'channel-a'), await sendFiles(server, guild.owner, doomed, 'channel-b')];
    const beside = await sendFiles(server, guild.owner, guild.channelId, 'beside');
    expect((await server.api('DELETE', `/channels/${doomed}`, { token: guild.owner.token })).status).toBe(200);
    for (const file of sent.flatMap((m) => m.files)) await expectErased(server, file);
    await expectServed(server, beside.files[0]);
  });

  it("on the guild's deletion, in each of its channels", async () => {
    const guild = await createGuild(server);
    const second = (await server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body: { name: 'second' } })).body.id;
    const sent = [await sendFiles(server, guild.owner, guild.channelId, 'guild-a'), await sendFiles(server, guild.owner, second, 'guild-b')];
    const elsewhere = await createGuild(server);
    const kept = await sendFiles(server, elsewhere.owner, elsewhere.channelId, 'other-guild');
    expect((await server.api('DELETE', `/guilds/${guild.id}`, { token: guild.owner.token })).status).toBe(204);
    for (const file of sent.flatMap((m) => m.files)) await expectErased(server, file);
    await expectServed(server, kept.files[0]);
  });

  it('on an edit that leaves attachments out: those go, the kept one still serves', async () => {
    const guild = await createGuild(server);
    const { id, files } = await sendFiles(server, guild.owner, guild.channelId, 'edit-a', 'edit-b', 'edit-c');
    const keptId = new URL(files[1].url).pathname.split('/')[3];
    const edited = await server.api('PATCH', `/channels/${guild.channelId}/messages/${id}`, {
      token: guild.owner.token,
      body: { attachments: [{ id: keptId }] },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.attachments.map((a: { id: string }) => a.id)).toEqual([keptId]);
    await expectErased(server, files[0]);
    await expectErased(server, files[2]);
    await expectServed(server, files[1]);
  });
});

/** A DATA_DIR of its own, for a test that restarts the server on it. */
const dataDirs: string[] = [];
afterAll(() => Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true }))));
async function freshDataDir() {
  dataDirs.push(await mkdtemp(join(tmpdir(), 'parley-erasure-')));
  return dataDirs[dataDirs.length - 1];
}

describe('a deletion while the files could not be removed', () => {
  it('is answered, and its files go once the remover runs again', async () => {
    const dataDir = await freshDataDir();
    const before = await startTestServer({}, dataDir);
    const guild = await createGuild(before);
    const { id, files } = await sendFiles(before, guild.owner, guild.channelId, 'stopped-a');
    await before.remover!.stop();
    expect((await before.api('DELETE', `/channels/${guild.channelId}/messages/${id}`, { token: guild.owner.token })).status).toBe(204);
    await expectServed(before, files[0]);
    await before.close();

    const after = await startTestServer({}, dataDir);
    try {
      await after.remover!.caughtUp();
      await expectErased(after, files[0]);
    } finally {
      await after.close();
    }
  });
});

describe('a deletion on disk when the process died', () => {
  it('loses its files at the next start', async () => {
    const dataDir = await freshDataDir();
    const before = await startTestServer({}, dataDir);
    const guild = await createGuild(before);
    const { id, files } = await sendFiles(before, guild.owner, guild.channelId, 'crash-a', 'crash-b');
    await before.close();

    // The deletion's event is appended and nothing after it runs: the state a crash right after the append leaves.
    const log = new SqliteEventStore(join(dataDir, 'events.db'));
    const command = { type: 'DeleteMessage' as const, actorId: guild.owner.id, channelId: guild.channelId, manageMessages: true, bulk: false };
    await new CommandHandler(log).handle(messageStream(id), messageDecider, command, { actorId: guild.owner.id, createdAt: new Date().toISOString() });
    await log.close();
    for (const file of files) expect(await blobsHolding(dataDir, file.bytes)).toHaveLength(1);

    const after = await startTestServer({}, dataDir);
    try {
      await eventually(async () => {
        for (const file of files) await expectErased(after, file);
      });
    } finally {
      await after.close();
    }
  });
});

/**
 * Stores a file as a send does (its note first, then the file) and goes no further, as a process that dies before
 * appending the message leaves it; the bytes it stored.
 */
async function storeThenDie(on: TestServer, channelId: string, label: string): Promise<Buffer> {
  const data = distinctive(label);
  const { uploads } = resolveAttachments(on.runtime, undefined, [{ index: 0, filename: `${label}.txt`, contentType: 'text/plain', data }], []);
  void appendWithFiles(on.runtime, channelId, on.runtime.ids.next(), uploads, () => new Promise<never>(() => {}));
  await eventually(async () => expect(await blobsHolding(on.dataDir, data)).toHaveLength(1));
  return data;
}

describe('files a request stored and no message names (it died before appending it)', () => {
  it('leave the blob store once older than UPLOAD_GRACE_MS, at start and at each sweep; listed files and uploads under way stay', async () => {
    const dataDir = await freshDataDir();
    const env = { UPLOAD_GRACE_MS: '1500' };
    const before = await startTestServer(env, dataDir);
    const guild = await createGuild(before);
    const sent = await sendFiles(before, guild.owner, guild.channelId, 'listed');
    // Its note left behind, as by a death right after the append: the message lists the file, which must stay.
    const listedId = new URL(sent.files[0].url).pathname.split('/')[3];
    await noteUploads(before.runtime, { channelId: guild.channelId, messageId: sent.id, attachmentIds: [listedId] });
    const orphan = await storeThenDie(before, guild.channelId, 'orphan');
    await before.close();
    await sleep(1600);

    const after = await startTestServer(env, dataDir);
    try {
      const uploading = await storeThenDie(after, guild.channelId, 'uploading');
      // The sweep at start, and one more.
      await after.remover!.sweepUploads();
      expect(await blobsHolding(dataDir, orphan)).toEqual([]);
      expect(await blobsHolding(dataDir, uploading)).toHaveLength(1);
      await expectServed(after, sent.files[0]);
      expect(await after.runtime.blobs.folders(UPLOADS_FOLDER)).toHaveLength(1);

      // The upload that never lands goes once it is older than the grace.
      await sleep(1600);
      await after.remover!.sweepUploads();
      expect(await blobsHolding(dataDir, uploading)).toEqual([]);
      expect(await after.runtime.blobs.folders(UPLOADS_FOLDER)).toEqual([]);
      await expectServed(after, sent.files[0]);
    } finally {
      await after.close();
    }
  });
});
