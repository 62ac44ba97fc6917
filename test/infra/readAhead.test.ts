// A rebuild's read of the embedded log on a thread of its own (infra/eventStore/readAhead.ts): its events are the
// log's events exactly as the SealingEventStore opens them, personal fields opened and erased ones read as erased,
// over several of the thread's pages, from the start or from any position. The data directory is a real server's,
// written through the HTTP API: messages sent, one deleted (its key destroyed) and an account deleted (its profile's).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReadAheadLog } from '../../infra/eventStore/readAhead.js';
import type { SealingEventStore } from '../../infra/eventStore/sealing.js';
import { KEY_FILES, openEmbeddedLog } from '../../infra/roles.js';
import type { EventStore, Position, RecordedEvent } from '../../ports/eventStore.js';
import { registerUser, startTestServer } from '../support/server.js';

/** More than two of the thread's pages (250 events each). */
const MESSAGES = 600;

let dataDir: string;
let store: SealingEventStore;
let log: RecordedEvent[];
let erasedContent: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'parley-read-ahead-'));
  const server = await startTestServer({}, dataDir);
  const [owner, member] = [await registerUser(server), await registerUser(server)];
  const guild = await server.api('POST', '/guilds', { token: owner.token, body: { name: 'read ahead' } });
  const channels = await server.api('GET', `/guilds/${guild.body.id}/channels`, { token: owner.token });
  const channelId = channels.body.find((channel: { type: number }) => channel.type === 0).id as string;
  const invite = await server.api('POST', `/channels/${channelId}/invites`, { token: owner.token, body: {} });
  expect((await server.api('POST', `/invites/${invite.body.code}`, { token: member.token })).status).toBe(200);
  const sent: string[] = [];
  for (let i = 0; i < MESSAGES; i++) {
    const author = i % 2 ? member : owner;
    const message = await server.api('POST', `/channels/${channelId}/messages`, { token: author.token, body: { content: `message ${i} é 😀` } });
    expect(message.status, message.text).toBe(200);
    sent.push(message.body.id);
  }
  erasedContent = 'message 7 é 😀';
  expect((await server.api('DELETE', `/channels/${channelId}/messages/${sent[7]}`, { token: member.token })).status).toBe(204);
  const deleted = await server.api('POST', '/users/@me/delete', { token: member.token, body: { password: 'correct horse battery' } });
  expect(deleted.status, deleted.text).toBe(204);
  await server.close();
  store = await openEmbeddedLog(dataDir);
  log = await store.readAll({ maxCount: 100_000 });
  expect(log.length).toBeGreaterThan(MESSAGES);
});

afterAll(async () => {
  await store?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Every event a subscription from `from` hands on until it has caught up with the log's end. */
async function subscribed(source: EventStore, from?: Position): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  let failure: unknown = null;
  const subscription = source.subscribeToAll(
    { fromPosition: from },
    async (batch) => void events.push(...batch),
    (error) => (failure = error),
  );
  await subscription.caughtUp();
  await subscription.stop();
  if (failure) throw failure;
  return events;
}

/** The fields a reader sees, data and metadata as JSON gives them (key order included). */
const seen = (events: RecordedEvent[]) =>
  events.map(({ id, streamId, revision, position, type, data, metadata, schemaVersion }) => ({
    id,
    streamId,
    revision,
    position,
    type,
    data: JSON.stringify(data),
    metadata: JSON.stringify(metadata),
    schemaVersion,
  }));

describe('the read-ahead log', () => {
  it('hands on the whole log as the sealing store opens it, erased fields read as erased', async () => {
    const ahead = await subscribed(new ReadAheadLog(store, { dataDir, ...KEY_FILES }));
    expect(seen(ahead)).toEqual(seen(log));
    const created = ahead.filter((event) => event.type === 'MessageCreated');
    expect(created).toHaveLength(MESSAGES);
    // The deleted message's text and the deleted account's name are gone from every event; the others are there.
    const texts = created.map((event) => (event.data as { message: { content: string } }).message.content);
    expect(texts.filter((text) => text === '')).toEqual(['']);
    expect(texts).not.toContain(erasedContent);
    expect(texts).toContain('message 8 é 😀');
    const authors = new Set(created.map((event) => (event.data as { message: { author: { username: string } } }).message.author.username));
    expect(authors).toContain('Deleted User');
    expect(authors.size).toBe(2);
  });

  it('starts from any position, and again after a stop', async () => {
    const ahead = new ReadAheadLog(store, { dataDir, ...KEY_FILES });
    for (const at of [1, 249, 250, 251, log.length - 1]) {
      expect(seen(await subscribed(ahead, log[at - 1].position))).toEqual(seen(log.slice(at)));
    }
    expect(await subscribed(ahead, log[log.length - 1].position)).toEqual([]);
  });

  it('fails its subscription, rather than handing on anything, when the data directory has no keys to open with', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'parley-read-ahead-empty-'));
    try {
      await expect(subscribed(new ReadAheadLog(store, { dataDir: elsewhere, ...KEY_FILES }))).rejects.toThrow();
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });
});
