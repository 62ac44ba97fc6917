// A reader that stops taking a guild's event stream is cut off at its bound: once EVENT_STREAM_BUFFER_BYTES wait for it
// longer than EVENT_STREAM_STALL_MS, the stream ends with StreamEnded naming the position to resume after, its place
// is given back, and resuming there gives the rest with no gap and no duplicate.
import { describe, expect, it } from 'vitest';
import { fileServer } from '../support/server.js';
import { createGuild } from './guildSupport.js';
import { appendCopiesOf, isEvent, openEvents } from './guildEventsSupport.js';

const server = await fileServer({ EVENT_STREAM_BUFFER_BYTES: '1024', EVENT_STREAM_STALL_MS: '3000', EVENT_STREAMS_PER_USER: '1' });

/**
 * More than the sockets and TLS on both ends hold for a reader that reads nothing: loopback's buffers grow to several
 * megabytes, and a thousand 6 kB messages fitted in them once the stream wrote them in pages of 250 events.
 */
const MESSAGES = 4000;

describe('guild event stream, slow reader', () => {
  it('cuts a reader that stops reading off with the position to resume after, and resuming misses nothing', { timeout: 240_000 }, async () => {
    const guild = await createGuild(server);
    // One message of about 6 kB (its most text and its embed's most description) sent, then appended again as other
    // messages straight to the log, which seals them as a send does: sending them all would take minutes.
    const sent = await server.api('POST', `/channels/${guild.channelId}/messages`, {
      token: guild.owner.token,
      body: { content: 'x'.repeat(2000), embeds: [{ description: 'y'.repeat(4000) }] },
    });
    expect(sent.status).toBe(200);
    await appendCopiesOf(server, sent.body.id, MESSAGES - 1);

    const slow = await openEvents(server, guild.id, { token: guild.owner.token, query: '?follow=true' });
    expect(slow.status).toBe(200);
    // The reader takes nothing; its place (one a reader here) comes back once the server has cut it off.
    let other = await openEvents(server, guild.id, { token: guild.owner.token });
    while (other.status === 429) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      other = await openEvents(server, guild.id, { token: guild.owner.token });
    }
    // A reader that keeps reading is not cut off: it gets the whole log, then CaughtUp.
    const whole = await other.rest();
    expect(whole[whole.length - 1]).toMatchObject({ type: 'CaughtUp' });
    const all = whole.filter(isEvent);
    expect(all.filter((e) => e.type === 'MessageCreated')).toHaveLength(MESSAGES);

    const taken = await slow.rest();
    const end = taken[taken.length - 1];
    expect(end).toMatchObject({ type: 'StreamEnded', reason: 'slow_reader' });
    const before = taken.filter(isEvent);
    expect(before.length).toBeLessThan(all.length);
    const resumed = await openEvents(server, guild.id, { token: guild.owner.token, query: `?after=${encodeURIComponent(end.position!)}` });
    const after = (await resumed.rest()).filter(isEvent);
    expect([...before, ...after].map((e) => e.position)).toEqual(all.map((e) => e.position));
  });
});
