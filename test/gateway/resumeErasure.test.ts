// A RESUME replays what a session missed, but not what was erased meanwhile: a message deleted (alone, in
// bulk, with its channel or its guild, in a DM), the version an edit replaced, a deleted thread's or ended group DM's
// name, a deleted account's name. The dispatches come back in order with their sequence numbers, as discord.js and
// discord.py count on, with the erased fields blanked; what was not erased comes back whole.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createGuild, join, newMember } from '../http/guildSupport.js';
import { type GatewayClient, type Payload, fileGateway } from '../support/gateway.js';
import { type TestUser, registerUser } from '../support/server.js';

const GUILDS = 1 << 0;
const GUILD_MEMBERS = 1 << 1;
const GUILD_MESSAGES = 1 << 9;
const DIRECT_MESSAGES = 1 << 12;
const MESSAGE_CONTENT = 1 << 15;
const INTENTS = GUILDS | GUILD_MEMBERS | GUILD_MESSAGES | DIRECT_MESSAGES | MESSAGE_CONTENT;

const { server, gateway } = await fileGateway();

const secret = (label: string) => `SECRET-${randomBytes(6).toString('hex')}-${label}`;

async function send(user: TestUser, channelId: string, content: string): Promise<string> {
  const sent = await server.api('POST', `/channels/${channelId}/messages`, { token: user.token, body: { content } });
  expect(sent.status).toBe(200);
  return sent.body.id;
}

/** A session whose client drops (4000, to resume) once it has its READY and GUILD_CREATEs; its id and last sequence. */
async function away(user: TestUser, guilds: number): Promise<{ sessionId: string; seq: number }> {
  const client = await gateway.connect();
  const ready = await client.identify(user.token, INTENTS);
  await client.next(() => client.received.filter((p) => p.t === 'GUILD_CREATE').length === guilds);
  const seq = client.lastSeq();
  client.drop();
  await client.closed;
  return { sessionId: ready.d.session_id, seq };
}

/** The dispatches a RESUME replays, and the RESUMED after them. */
async function resume(user: TestUser, from: { sessionId: string; seq: number }): Promise<{ replayed: Payload[]; resumed: Payload; client: GatewayClient }> {
  const client = await gateway.connect();
  await client.next((p) => p.op === 10);
  client.send({ op: 6, d: { token: user.token, session_id: from.sessionId, seq: from.seq } });
  const resumed = await client.dispatch('RESUMED');
  return { replayed: client.received.filter((p) => p.op === 0 && p.t !== 'RESUMED'), resumed, client };
}

/** The replay holds every dispatch after `seq`, numbered one after the other, RESUMED last. */
function expectContiguous(replayed: Payload[], resumed: Payload, seq: number) {
  expect(replayed.map((p) => p.s)).toEqual(replayed.map((_, i) => seq + 1 + i));
  expect(resumed.s).toBe(seq + replayed.length + 1);
}

describe('RESUME after erasures', () => {
  it('replays no text of messages deleted, bulk deleted, edited away, or gone with their channel, guild or DM; the rest whole', async () => {
    const guild = await createGuild(server);
    const doomedGuild = await createGuild(server, guild.owner);
    const watcher = await newMember(server, guild);
    await join(server, doomedGuild, watcher);
    const owner = guild.owner;
    const doomedChannel = (await server.api('POST', `/guilds/${guild.id}/channels`, { token: owner.token, body: { name: 'doomed' } })).body.id;
    const dm = (await server.api('POST', '/users/@me/channels', { token: owner.token, body: { recipient_id: watcher.id } })).body.id;
    // The owner's session sees everything the watcher would: once it has the last dispatch, so has the buffer.
    const sentinel = await gateway.session(owner.token, INTENTS);
    const left = await away(watcher, 2);

    const [kept, gone, old, replacement, bulk, inChannel, inGuild, inDm] = ['kept', 'gone', 'old', 'new', 'bulk', 'channel', 'guild', 'dm'].map(secret);
    const keptId = await send(owner, guild.channelId, kept);
    const goneId = await send(owner, guild.channelId, gone);
    expect((await server.api('DELETE', `/channels/${guild.channelId}/messages/${goneId}`, { token: owner.token })).status).toBe(204);
    const editedId = await send(owner, guild.channelId, old);
    expect(
      (await server.api('PATCH', `/channels/${guild.channelId}/messages/${editedId}`, { token: owner.token, body: { content: replacement } })).status,
    ).toBe(200);
    const bulkIds = [await send(owner, guild.channelId, `${bulk}-1`), await send(owner, guild.channelId, `${bulk}-2`)];
    expect((await server.api('POST', `/channels/${guild.channelId}/messages/bulk-delete`, { token: owner.token, body: { messages: bulkIds } })).status).toBe(
      204,
    );
    await send(owner, doomedChannel, inChannel);
    expect((await server.api('DELETE', `/channels/${doomedChannel}`, { token: owner.token })).status).toBe(200);
    await send(owner, doomedGuild.channelId, inGuild);
    expect((await server.api('DELETE', `/guilds/${doomedGuild.id}`, { token: owner.token })).status).toBe(204);
    const dmId = await send(owner, dm, inDm);
    expect((await server.api('DELETE', `/channels/${dm}/messages/${dmId}`, { token: owner.token })).status).toBe(204);
    await sentinel.next((p) => p.t === 'MESSAGE_DELETE' && p.d.id === dmId);

    const { replayed, resumed } = await resume(watcher, left);
    const text = JSON.stringify(replayed);
    for (const erased of [gone, old, bulk, inChannel, inGuild, inDm]) expect(text).not.toContain(erased);
    expectContiguous(replayed, resumed, left.seq);
    const creates = replayed.filter((p) => p.t === 'MESSAGE_CREATE');
    // Every message sent is announced, in order; those erased without their text.
    expect(creates.map((p) => p.d.content)).toEqual([kept, '', '', '', '', '', '', '']);
    expect(creates.find((p) => p.d.id === keptId)!.d).toMatchObject({ content: kept, author: { id: owner.id, username: owner.username }, guild_id: guild.id });
    expect(creates.find((p) => p.d.id === editedId)!.d).toMatchObject({ id: editedId, content: '', embeds: [], attachments: [], author: { id: owner.id } });
    expect(replayed.filter((p) => p.t === 'MESSAGE_UPDATE').map((p) => [p.d.id, p.d.content])).toEqual([[editedId, replacement]]);
    expect(replayed.filter((p) => p.t === 'MESSAGE_DELETE').map((p) => p.d.id)).toEqual([goneId, dmId]);
    expect(replayed.some((p) => p.t === 'MESSAGE_DELETE_BULK' && p.d.ids.length === 2)).toBe(true);
    expect(replayed.some((p) => p.t === 'GUILD_DELETE' && p.d.id === doomedGuild.id)).toBe(true);
  });

  it('an edit made while a session is away replays the new version only, and a later edit erases that one too', async () => {
    const guild = await createGuild(server);
    const watcher = await newMember(server, guild);
    const sentinel = await gateway.session(guild.owner.token, INTENTS);
    const [first, second, third] = ['first', 'second', 'third'].map(secret);
    const id = await send(guild.owner, guild.channelId, first);
    const left = await away(watcher, 1);
    for (const content of [second, third]) {
      expect((await server.api('PATCH', `/channels/${guild.channelId}/messages/${id}`, { token: guild.owner.token, body: { content } })).status).toBe(200);
    }
    await sentinel.next((p) => p.t === 'MESSAGE_UPDATE' && p.d.content === third);
    const { replayed, resumed } = await resume(watcher, left);
    expectContiguous(replayed, resumed, left.seq);
    expect(JSON.stringify(replayed)).not.toContain(second);
    expect(replayed.filter((p) => p.t === 'MESSAGE_UPDATE').map((p) => p.d.content)).toEqual(['', third]);
  });

  it('scrubs what a session away holds within a second of the erasure, before any RESUME', async () => {
    const guild = await createGuild(server);
    const watcher = await newMember(server, guild);
    const sentinel = await gateway.session(guild.owner.token, INTENTS);
    const left = await away(watcher, 1);
    const held = [...server.gateway!.registry.all()].find((session) => session.id === left.sessionId)!;
    const text = secret('held');
    const id = await send(guild.owner, guild.channelId, text);
    expect((await server.api('DELETE', `/channels/${guild.channelId}/messages/${id}`, { token: guild.owner.token })).status).toBe(204);
    await sentinel.next((p) => p.t === 'MESSAGE_DELETE' && p.d.id === id);
    // Everything it holds comes to be as of the latest erasure: no dispatch older than it is left for a RESUME to blank.
    await expect.poll(() => held.oldestMark, { timeout: 5000 }).toBe(server.gateway!.registry.erasures.mark);
    const { replayed } = await resume(watcher, left);
    expect(JSON.stringify(replayed)).not.toContain(text);
    expect(replayed.find((p) => p.t === 'MESSAGE_CREATE' && p.d.id === id)?.d.content).toBe('');
  });

  it('shows a deleted account as Deleted User in what it replays: the author of messages that stay, mentions, members', async () => {
    const guild = await createGuild(server);
    const watcher = await newMember(server, guild);
    const sentinel = await gateway.session(guild.owner.token, INTENTS);
    const left = await away(watcher, 1);
    const leaving = await registerUser(server, `leaving${randomBytes(5).toString('hex')}`);
    await join(server, guild, leaving);
    const words = secret('their-words');
    const theirs = await send(leaving, guild.channelId, words);
    const mention = await send(guild.owner, guild.channelId, `hi <@${leaving.id}>`);
    expect((await server.api('POST', '/users/@me/delete', { token: leaving.token, body: { password: 'correct horse battery' } })).status).toBe(204);
    await sentinel.next((p) => p.t === 'GUILD_MEMBER_REMOVE' && p.d.user.id === leaving.id);

    const { replayed, resumed } = await resume(watcher, left);
    expectContiguous(replayed, resumed, left.seq);
    expect(JSON.stringify(replayed)).not.toContain(leaving.username);
    expect(replayed.find((p) => p.t === 'GUILD_MEMBER_ADD' && p.d.user.id === leaving.id)!.d.user).toMatchObject({ username: 'Deleted User', avatar: null });
    // Their messages stay, by Deleted User, as on the widely used API; what they wrote is the message's, not erased.
    const created = replayed.find((p) => p.t === 'MESSAGE_CREATE' && p.d.id === theirs)!.d;
    expect({ content: created.content, author: created.author.username }).toEqual({ content: words, author: 'Deleted User' });
    expect(replayed.find((p) => p.t === 'MESSAGE_CREATE' && p.d.id === mention)!.d.mentions).toMatchObject([{ id: leaving.id, username: 'Deleted User' }]);
  });
});

describe('RESUME after a thread is deleted', () => {
  it('replays its THREAD_CREATE and THREAD_UPDATE without the names its deletion erased; another thread’s whole', async () => {
    const guild = await createGuild(server);
    const watcher = await newMember(server, guild);
    const owner = guild.owner;
    const sentinel = await gateway.session(owner.token, INTENTS);
    const left = await away(watcher, 1);
    const [named, renamed, keptName] = ['thread-named', 'thread-renamed', 'thread-kept'].map(secret);
    const thread = await server.api('POST', `/channels/${guild.channelId}/threads`, { token: owner.token, body: { name: named, type: 11 } });
    expect(thread.status, thread.text).toBe(201);
    const kept = await server.api('POST', `/channels/${guild.channelId}/threads`, { token: owner.token, body: { name: keptName, type: 11 } });
    expect(kept.status, kept.text).toBe(201);
    expect((await server.api('PATCH', `/channels/${thread.body.id}`, { token: owner.token, body: { name: renamed } })).status).toBe(200);
    expect((await server.api('DELETE', `/channels/${thread.body.id}`, { token: owner.token })).status).toBe(200);
    await sentinel.next((p) => p.t === 'THREAD_DELETE' && p.d.id === thread.body.id);

    const { replayed, resumed } = await resume(watcher, left);
    expectContiguous(replayed, resumed, left.seq);
    const text = JSON.stringify(replayed);
    for (const erased of [named, renamed]) expect(text).not.toContain(erased);
    const ofThread = replayed.filter((p) => (p.t === 'THREAD_CREATE' || p.t === 'THREAD_UPDATE') && p.d.id === thread.body.id);
    expect(ofThread.map((p) => [p.t, p.d.name])).toEqual([
      ['THREAD_CREATE', null],
      ['THREAD_UPDATE', null],
    ]);
    expect(replayed.find((p) => p.t === 'THREAD_CREATE' && p.d.id === kept.body.id)?.d.name).toBe(keptName);
  });
});

describe('RESUME after a group DM ends', () => {
  it('replays its CHANNEL_UPDATE without the name its end erased', async () => {
    const guild = await createGuild(server);
    const bob = await newMember(server, guild);
    const ada = guild.owner;
    const created = await server.api('POST', '/users/@me/channels', { token: ada.token, body: { recipients: [bob.id] } });
    expect(created.status, created.text).toBe(200);
    const channelId = created.body.id as string;
    const sentinel = await gateway.session(ada.token, INTENTS);
    const left = await away(bob, 1);
    const name = secret('group-name');
    expect((await server.api('PATCH', `/channels/${channelId}`, { token: ada.token, body: { name } })).status).toBe(200);
    await sentinel.next((p) => p.t === 'CHANNEL_UPDATE' && p.d.id === channelId);
    for (const user of [bob, ada]) expect((await server.api('DELETE', `/channels/${channelId}`, { token: user.token })).status).toBe(200);

    const { replayed, resumed } = await resume(bob, left);
    expectContiguous(replayed, resumed, left.seq);
    expect(JSON.stringify(replayed)).not.toContain(name);
    expect(replayed.filter((p) => p.t === 'CHANNEL_UPDATE' && p.d.id === channelId).map((p) => p.d.name)).toEqual([null]);
  });
});
