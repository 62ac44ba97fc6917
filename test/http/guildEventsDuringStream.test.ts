// A message deleted while a reader's stream is open, before the server has written its MessageCreated to them: the
// reader gets the event with its text null and `erased: true`, and neither its text nor its embed's is anywhere in the
// bytes of the stream. The server is held before the message by a reader that takes nothing, behind megabytes of other
// messages, and the test sends and deletes the message only once /metrics says the stream waits for that reader.
import { describe, expect, it } from 'vitest';
import { encodePosition } from '../../ports/eventStore.js';
import { fileServer } from '../support/server.js';
import { createGuild } from './guildSupport.js';
import { type Item, appendCopiesOf, isEvent, openEvents, streamsWaitingForReaders } from './guildEventsSupport.js';

const METRICS_TOKEN = 'metrics-token-for-the-stream-during-a-delete';
// The reader is never cut off here: it reads again only after the delete.
const server = await fileServer({ METRICS_TOKEN, EVENT_STREAM_BUFFER_BYTES: '1024', EVENT_STREAM_STALL_MS: '600000' });

/**
 * Messages ahead of the deleted one, each about 19 kB as the stream writes it (three-byte characters): 15 MB, more than
 * the sockets on both ends hold for a reader that reads nothing, and fewer than a page of the log's catch-up, so the
 * stream reads them as one batch and the next batch it reads is the deleted message's.
 */
const AHEAD = 800;

describe('guild event stream, a message deleted during the stream', () => {
  it('shows a message deleted before it was written to the reader with its text null and erased, nowhere in the bytes', { timeout: 240_000 }, async () => {
    const guild = await createGuild(server);
    const token = guild.owner.token;
    const sent = await server.api('POST', `/channels/${guild.channelId}/messages`, {
      token,
      body: { content: '語'.repeat(2000), embeds: [{ description: '語'.repeat(4000) }] },
    });
    expect(sent.status, sent.text).toBe(200);
    const store = server.runtime.store;
    const start = (await store.headPosition())!;
    const copies = await appendCopiesOf(server, sent.body.id, AHEAD);

    const reader = await openEvents(server, guild.id, { token, query: `?follow=true&after=${encodeURIComponent(encodePosition(start))}` });
    expect(reader.status).toBe(200);
    try {
      // The server has written the reader all it may: the message sent from here on waits for the reader.
      await streamsWaitingForReaders(server, METRICS_TOKEN, 1);
      const secret = `deleted while the stream waited ${Date.now()}`;
      const embedSecret = `and its embed ${Date.now()}`;
      const target = await server.api('POST', `/channels/${guild.channelId}/messages`, {
        token,
        body: { content: secret, embeds: [{ description: embedSecret }] },
      });
      expect(target.status, target.text).toBe(200);
      const deleted = await server.api('DELETE', `/channels/${guild.channelId}/messages/${target.body.id}`, { token });
      expect(deleted.status, deleted.text).toBe(204);
      // The delete is answered once the message's key is destroyed: the log itself reads it erased now.
      const [stored] = await store.readStream(`message-${target.body.id}`);
      expect(JSON.stringify(stored.data)).not.toContain(secret);

      const isDeletion = (item: Item) => isEvent(item) && item.type === 'MessageDeleted' && item.data.messageId === target.body.id;
      const seen = (await reader.until(isDeletion)).filter(isEvent);
      const createdEvents = seen.filter((e) => e.type === 'MessageCreated');
      expect(createdEvents.map((e) => e.data.messageId)).toEqual([...copies, target.body.id]);
      expect(createdEvents.at(-1)).toMatchObject({ erased: true, data: { message: { content: null, embeds: null } } });
      expect(reader.captured().includes(Buffer.from(secret))).toBe(false);
      expect(reader.captured().includes(Buffer.from(embedSecret))).toBe(false);
    } finally {
      reader.close();
    }
  });
});
