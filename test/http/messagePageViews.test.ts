// A page of messages is written from each message's JSON kept between reads, and a whole page's bytes are kept while
// its messages are the same for every reader: each read must still answer the reader's own view (`me` on their own
// reactions) and what changed since the last read (an edit, a reaction, a deletion, an erased author), whoever read
// the page before, on every API version. Each page is also held to the bytes of its messages fetched one by one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, type TestUser, registerUser, startTestServer } from '../support/server.js';
import { type TestGuild, createGuild, newMember } from './guildSupport.js';

let server: TestServer;
let guild: TestGuild;
let owner: TestUser;
let member: TestUser;

beforeAll(async () => {
  server = await startTestServer();
  guild = await createGuild(server);
  owner = guild.owner;
  member = await newMember(server, guild);
});
afterAll(async () => {
  await server.close();
});

interface Reaction {
  count: number;
  me: boolean;
}
interface Message {
  id: string;
  content: string;
  author: { id: string; username: string };
  reactions: Reaction[];
  referenced_message?: Message | null;
}

const THUMBS = encodeURIComponent('👍');

async function newChannel() {
  const channel = await server.api('POST', `/guilds/${guild.id}/channels`, { token: owner.token, body: { name: 'views' } });
  expect(channel.status).toBe(201);
  return channel.body.id as string;
}

async function send(user: TestUser, channelId: string, body: unknown): Promise<Message> {
  const response = await server.api('POST', `/channels/${channelId}/messages`, { token: user.token, body });
  expect(response.status).toBe(200);
  return response.body;
}

/** The page as `viewer` reads it under `version`, checked to be the bytes of its messages fetched one by one. */
async function page(viewer: TestUser, channelId: string, version = 'v1'): Promise<Message[]> {
  const read = await server.call('GET', `/api/${version}/channels/${channelId}/messages`, { token: viewer.token });
  expect(read.status).toBe(200);
  const fetched = await Promise.all(
    (read.body as Message[]).map((m) => server.call('GET', `/api/${version}/channels/${channelId}/messages/${m.id}`, { token: viewer.token })),
  );
  expect(read.text).toBe(`[${fetched.map((m) => m.text).join(',')}]`);
  return read.body;
}

const react = (user: TestUser, channelId: string, messageId: string, method: 'PUT' | 'DELETE') =>
  server.api(method, `/channels/${channelId}/messages/${messageId}/reactions/${THUMBS}/@me`, { token: user.token });

/** The reactions of the message on the viewer's page: count and me. */
async function reactionsSeen(viewer: TestUser, channelId: string, messageId: string) {
  const message = (await page(viewer, channelId)).find((m) => m.id === messageId)!;
  return message.reactions.map(({ count, me }) => ({ count, me }));
}

describe('a page of messages, read after read', () => {
  it('marks me on the reader’s own reactions only, whoever read the page before', async () => {
    const channelId = await newChannel();
    const reacted = await send(member, channelId, { content: 'react to me' });
    await send(member, channelId, { content: 'plain' });
    for (const viewer of [member, owner]) await page(viewer, channelId);
    expect((await react(member, channelId, reacted.id, 'PUT')).status).toBe(204);
    expect(await reactionsSeen(owner, channelId, reacted.id)).toEqual([{ count: 1, me: false }]);
    expect(await reactionsSeen(member, channelId, reacted.id)).toEqual([{ count: 1, me: true }]);
    expect(await reactionsSeen(owner, channelId, reacted.id)).toEqual([{ count: 1, me: false }]);
    expect((await react(owner, channelId, reacted.id, 'PUT')).status).toBe(204);
    expect(await reactionsSeen(member, channelId, reacted.id)).toEqual([{ count: 2, me: true }]);
    expect(await reactionsSeen(owner, channelId, reacted.id)).toEqual([{ count: 2, me: true }]);
    expect((await react(member, channelId, reacted.id, 'DELETE')).status).toBe(204);
    expect(await reactionsSeen(owner, channelId, reacted.id)).toEqual([{ count: 1, me: true }]);
    expect(await reactionsSeen(member, channelId, reacted.id)).toEqual([{ count: 1, me: false }]);
    expect((await react(owner, channelId, reacted.id, 'DELETE')).status).toBe(204);
    expect(await reactionsSeen(member, channelId, reacted.id)).toEqual([]);
  });

  it('shows an edit, and a deletion of the newest message, of one in the middle and of one replied to', async () => {
    const channelId = await newChannel();
    const oldest = await send(member, channelId, { content: 'oldest' });
    const middle = await send(member, channelId, { content: 'middle' });
    const newest = await send(member, channelId, { content: 'newest' });
    const contents = async (viewer: TestUser) => (await page(viewer, channelId)).map((m) => m.content);
    expect(await contents(owner)).toEqual(['newest', 'middle', 'oldest']);
    expect((await server.api('PATCH', `/channels/${channelId}/messages/${middle.id}`, { token: member.token, body: { content: 'edited' } })).status).toBe(200);
    expect(await contents(owner)).toEqual(['newest', 'edited', 'oldest']);
    const remove = (id: string) => server.api('DELETE', `/channels/${channelId}/messages/${id}`, { token: member.token });
    expect((await remove(middle.id)).status).toBe(204);
    expect(await contents(member)).toEqual(['newest', 'oldest']);
    expect((await remove(newest.id)).status).toBe(204);
    expect(await contents(owner)).toEqual(['oldest']);
    await send(owner, channelId, { content: 'reply', message_reference: { message_id: oldest.id } });
    expect((await page(member, channelId))[0].referenced_message?.content).toBe('oldest');
    expect((await remove(oldest.id)).status).toBe(204);
    const [reply] = await page(owner, channelId);
    expect([reply.content, reply.referenced_message]).toEqual(['reply', null]);
  });

  it('shows an erased account’s messages as Deleted User’s on the next read, its name nowhere in the page', async () => {
    const channelId = await newChannel();
    const leaving = await newMember(server, guild);
    const name = (await server.api('GET', '/users/@me', { token: leaving.token })).body.username as string;
    await send(leaving, channelId, { content: `mentioning <@${leaving.id}>` });
    await send(member, channelId, { content: 'stays' });
    const before = await page(member, channelId);
    expect(before[1].author.username).toBe(name);
    const deleted = await server.api('POST', '/users/@me/delete', { token: leaving.token, body: { password: 'correct horse battery' } });
    expect(deleted.status).toBe(204);
    const read = await server.api('GET', `/channels/${channelId}/messages`, { token: member.token });
    expect(read.text).not.toContain(name);
    expect((await page(member, channelId))[1].author).toMatchObject({ id: leaving.id, username: 'Deleted User' });
  });

  it('answers each API version the bytes of its messages, read after another version’s read', async () => {
    const channelId = await newChannel();
    const reacted = await send(member, channelId, { content: 'on every version' });
    await send(owner, channelId, { content: 'reply', message_reference: { message_id: reacted.id } });
    expect((await react(member, channelId, reacted.id, 'PUT')).status).toBe(204);
    const texts = [];
    for (const version of ['v1', 'v10', 'v9', 'v1', 'v10']) texts.push(JSON.stringify(await page(member, channelId, version)));
    expect(new Set(texts).size).toBe(1);
  });

  it('gives an unknown reader nothing of the channel', async () => {
    const channelId = await newChannel();
    await send(member, channelId, { content: 'members only' });
    await page(member, channelId);
    const outsider = await registerUser(server);
    expect((await server.api('GET', `/channels/${channelId}/messages`, { token: outsider.token })).status).toBe(404);
  });
});
