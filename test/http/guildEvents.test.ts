// GET /guilds/:id/events over the real HTTPS server: catch-up then live follow, resumption without gap or duplicate,
// who may read it, what they see of channels they cannot view or whose history they cannot read, erased text, and the
// limits on streams open at once.
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { expectNothingAppendedSince, fileServer, registerUser } from '../support/server.js';
import { type TestGuild, createGuild, grantRole, newMember } from './guildSupport.js';
import { type Item, type StreamedEvent, isEvent, openEvents } from './guildEventsSupport.js';
import { grantedTokens, registerClient } from './oauth2Support.js';

const server = await fileServer({ EVENT_STREAMS_PER_USER: '2', EVENT_STREAMS_PER_GUILD: '3' });

const events = (items: Item[]) => items.filter(isEvent);
const send = async (guild: TestGuild, content: string, channelId = guild.channelId) => {
  const sent = await server.api('POST', `/channels/${channelId}/messages`, { token: guild.owner.token, body: { content } });
  expect(sent.status, sent.text).toBe(200);
  return sent.body as { id: string };
};
const contentOf = (event: StreamedEvent) => event.data?.message?.content;
const caughtUp = (item: Item) => item.type === 'CaughtUp';

/** A member of the guild who may read its audit log and nothing more than @everyone. */
async function analyst(guild: TestGuild) {
  const member = await newMember(server, guild);
  await grantRole(server, guild, member, Permission.VIEW_AUDIT_LOG, 'analysts');
  return member;
}

describe('guild event stream', () => {
  it('catches up over SSE under /api/v10, says so, then follows live, each event with its position as id', async () => {
    const guild = await createGuild(server);
    await send(guild, 'first');
    await send(guild, 'second');
    const stream = await openEvents(server, guild.id, { token: guild.owner.token, sse: true });
    expect(stream.status).toBe(200);
    expect(String(stream.headers['content-type'])).toMatch(/^text\/event-stream/);
    const history = events(await stream.until(caughtUp));
    expect(history[0]).toMatchObject({ type: 'GuildCreated', stream: `guild-${guild.id}`, actor_id: guild.owner.id });
    expect(history.filter((e) => e.type === 'MessageCreated').map(contentOf)).toEqual(['first', 'second']);
    for (const event of history) {
      expect((event as Item).id).toBe(event.position);
      expect(Number.isNaN(Date.parse(event.time))).toBe(false);
    }

    await send(guild, 'third, live');
    const live = events(await stream.until((item) => isEvent(item) && item.type === 'MessageCreated'));
    expect(live.map(contentOf)).toEqual(['third, live']);
    expect(live[0].position > history[history.length - 1].position || live[0].position.length > history[history.length - 1].position.length).toBe(true);
    stream.close();
  });

  it('resumes after Last-Event-ID (or ?after) with no gap and no duplicate; NDJSON ends after catch-up', async () => {
    const guild = await createGuild(server);
    for (let i = 0; i < 5; i++) await send(guild, `message ${i}`);
    const whole = await openEvents(server, guild.id, { token: guild.owner.token });
    const all = await whole.rest();
    expect(all[all.length - 1]).toMatchObject({ type: 'CaughtUp' });
    const positions = events(all).map((e) => e.position);
    expect(positions.length).toBeGreaterThan(6);
    expect(new Set(positions).size).toBe(positions.length);

    const first = await openEvents(server, guild.id, { token: guild.owner.token, sse: true });
    const head = events(await first.until((item) => isEvent(item) && item.type === 'MessageCreated'));
    first.close();
    const resumed = await openEvents(server, guild.id, { token: guild.owner.token, sse: true, headers: { 'last-event-id': head[head.length - 1].position } });
    const tail = events(await resumed.until(caughtUp));
    resumed.close();
    expect([...head, ...tail].map((e) => e.position)).toEqual(positions);

    const after = await openEvents(server, guild.id, { token: guild.owner.token, query: `?after=${encodeURIComponent(positions[2])}` });
    expect(events(await after.rest()).map((e) => e.position)).toEqual(positions.slice(3));
  });

  it('refuses a reader without VIEW_AUDIT_LOG, a stranger and a bad position, in the error form, appending nothing', async () => {
    const guild = await createGuild(server);
    const member = await newMember(server, guild);
    const stranger = await registerUser(server);
    const before = await server.runtime.store.headPosition();
    const refused = await openEvents(server, guild.id, { token: member.token });
    expect({ status: refused.status, code: refused.refusal.code }).toEqual({ status: 403, code: 50013 });
    const outside = await openEvents(server, guild.id, { token: stranger.token });
    expect({ status: outside.status, code: outside.refusal.code }).toEqual({ status: 404, code: 10004 });
    const bad = await openEvents(server, guild.id, { token: guild.owner.token, query: '?after=nowhere' });
    expect(bad.status).toBe(400);
    expect(bad.refusal.errors.after._errors[0].code).toBeTruthy();
    await expectNothingAppendedSince(server, before);
  });

  it('never shows a channel the reader cannot view, and message text only where they may read history', async () => {
    const guild = await createGuild(server);
    const reader = await analyst(guild);
    const token = guild.owner.token;
    const hidden = await server.api('POST', `/guilds/${guild.id}/channels`, {
      token,
      body: { name: 'staff', permission_overwrites: [{ id: guild.id, type: 0, deny: Permission.VIEW_CHANNEL.toString() }] },
    });
    const noHistory = await server.api('POST', `/guilds/${guild.id}/channels`, {
      token,
      body: { name: 'ephemeral', permission_overwrites: [{ id: guild.id, type: 0, deny: Permission.READ_MESSAGE_HISTORY.toString() }] },
    });
    await send(guild, 'classified plans', hidden.body.id);
    await send(guild, 'said but not kept', noHistory.body.id);
    await send(guild, 'hello all');

    const stream = await openEvents(server, guild.id, { token: reader.token });
    const seen = events(await stream.rest());
    const captured = stream.captured().toString('utf8');
    expect(captured).not.toContain(hidden.body.id);
    expect(captured).not.toContain('classified plans');
    expect(captured).not.toContain('said but not kept');
    const messages = seen.filter((e) => e.type === 'MessageCreated');
    expect(messages.map((e) => [e.data.channelId, contentOf(e)])).toEqual([
      [noHistory.body.id, null],
      [guild.channelId, 'hello all'],
    ]);
    expect(messages[0].erased).toBeUndefined();

    // The owner sees it all.
    const owner = await openEvents(server, guild.id, { token });
    expect(
      events(await owner.rest())
        .filter((e) => e.type === 'MessageCreated')
        .map(contentOf),
    ).toEqual(['classified plans', 'said but not kept', 'hello all']);
  });

  it('shows a message deleted before the stream with its text null and erased, the text nowhere in the bytes', async () => {
    const guild = await createGuild(server);
    const secret = `forget me ${Date.now()}`;
    const message = await send(guild, secret);
    await send(guild, 'kept');
    expect((await server.api('DELETE', `/channels/${guild.channelId}/messages/${message.id}`, { token: guild.owner.token })).status).toBe(204);

    const stream = await openEvents(server, guild.id, { token: guild.owner.token, sse: true });
    const seen = events(await stream.until(caughtUp));
    stream.close();
    const created = seen.find((e) => e.type === 'MessageCreated' && e.data.messageId === message.id)!;
    expect(created).toMatchObject({ erased: true, data: { message: { content: null } } });
    expect(seen.some((e) => e.type === 'MessageDeleted' && e.data.messageId === message.id)).toBe(true);
    expect(seen.filter((e) => e.type === 'MessageCreated' && !e.erased).map(contentOf)).toEqual(['kept']);
    expect(stream.captured().includes(Buffer.from(secret))).toBe(false);
  });

  it('opens to an application the reader authorized with guilds.events.read, and to no other scope', async () => {
    const guild = await createGuild(server);
    const client = await registerClient(server);
    const granted = await grantedTokens(server, client, guild.owner, 'identify guilds.events.read');
    const stream = await openEvents(server, guild.id, { token: granted.access_token });
    expect(stream.status).toBe(200);
    expect(events(await stream.rest())[0]).toMatchObject({ type: 'GuildCreated' });

    const other = await grantedTokens(server, client, guild.owner, 'identify guilds');
    const refused = await openEvents(server, guild.id, { token: other.access_token });
    expect({ status: refused.status, code: refused.refusal.code }).toEqual({ status: 403, code: 50026 });

    const member = await newMember(server, guild);
    const unpermitted = await grantedTokens(server, client, member, 'guilds.events.read');
    expect((await openEvents(server, guild.id, { token: unpermitted.access_token })).status).toBe(403);
  });

  it('limits the streams open at once per reader and per guild with 429 and Retry-After', async () => {
    const guild = await createGuild(server);
    const [a, b] = [
      await openEvents(server, guild.id, { token: guild.owner.token, sse: true }),
      await openEvents(server, guild.id, { token: guild.owner.token, sse: true }),
    ];
    await Promise.all([a.until(caughtUp), b.until(caughtUp)]);
    const third = await openEvents(server, guild.id, { token: guild.owner.token, sse: true });
    expect({ status: third.status, code: third.refusal.code }).toEqual({ status: 429, code: 0 });
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);

    const reader = await analyst(guild);
    const c = await openEvents(server, guild.id, { token: reader.token, sse: true });
    await c.until(caughtUp);
    const fourth = await openEvents(server, guild.id, { token: reader.token, sse: true });
    expect(fourth.status).toBe(429);

    a.close();
    // The place comes back once the server sees the reader go.
    let again = await openEvents(server, guild.id, { token: guild.owner.token, sse: true });
    for (let tries = 0; again.status === 429 && tries < 200; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      again = await openEvents(server, guild.id, { token: guild.owner.token, sse: true });
    }
    expect(again.status).toBe(200);
    for (const stream of [again, b, c]) stream.close();
  });
});
