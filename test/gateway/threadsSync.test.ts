// What a session learns of threads besides THREAD_* dispatches, through real WebSocket sessions: GUILD_CREATE's
// `threads` (the active threads it may see, joined ones with its own thread member as `member`), THREAD_LIST_SYNC when
// it gains access to a channel with active threads (an overwrite, a role), a starter message's MESSAGE_UPDATE with its
// `thread`, and RESUME replaying THREAD_* dispatches missed while away.
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { createGuild, join } from '../http/guildSupport.js';
import { type GatewayClient, type Payload, fileGateway } from '../support/gateway.js';
import { createBot } from '../support/server.js';

const GUILDS = 1 << 0;
const GUILD_MESSAGES = 1 << 9;
const MESSAGE_CONTENT = 1 << 15;

const { server, gateway } = await fileGateway();

const VIEW = Permission.VIEW_CHANNEL.toString();
const guildCreate = async (client: GatewayClient, guildId: string) => (await client.next((p) => p.t === 'GUILD_CREATE' && p.d.id === guildId)).d;
const ids = (things: { id: string }[]) => things.map((t) => t.id).sort();

/** Dispatches arrive in log order: once `marker` reaches a session, everything before it has too. */
async function settled(clients: GatewayClient[], token: string, channelId: string) {
  const marker = await server.api('POST', `/channels/${channelId}/messages`, { token, body: { content: 'marker' } });
  for (const client of clients) await client.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === marker.body.id, 5000);
}

describe('threads in GUILD_CREATE', () => {
  it('are the active threads the session may see, joined ones with its own member', async () => {
    const guild = await createGuild(server);
    const owner = guild.owner.token;
    const [reader, insider] = await Promise.all([createBot(server), createBot(server)]);
    for (const bot of [reader, insider]) await join(server, guild, bot, 'Bot');
    const start = (name: string, type: number) => server.api('POST', `/channels/${guild.channelId}/threads`, { token: owner, body: { name, type } });
    const open = (await start('open', 11)).body;
    const secret = (await start('secret', 12)).body;
    const archived = (await start('old', 11)).body;
    await server.api('PATCH', `/channels/${archived.id}`, { token: owner, body: { archived: true } });
    expect((await server.api('PUT', `/channels/${secret.id}/thread-members/${insider.id}`, { token: owner })).status).toBe(204);

    const [r, i, o] = [await gateway.connect(), await gateway.connect(), await gateway.connect()];
    await Promise.all([r.identify(reader.token, GUILDS), i.identify(insider.token, GUILDS), o.identify(owner, GUILDS)]);
    const [forReader, forInsider, forOwner] = await Promise.all([guildCreate(r, guild.id), guildCreate(i, guild.id), guildCreate(o, guild.id)]);
    expect(ids(forReader.threads)).toEqual([open.id]);
    expect(forReader.threads[0]).toMatchObject({ id: open.id, type: 11, parent_id: guild.channelId, thread_metadata: { archived: false } });
    expect(forReader.threads[0].member).toBeUndefined();
    expect(ids(forInsider.threads)).toEqual(ids([open, secret]));
    expect(forInsider.threads.find((t: { id: string }) => t.id === secret.id).member).toMatchObject({ id: secret.id, user_id: insider.id });
    // The owner holds MANAGE_THREADS and created (so joined) both.
    expect(ids(forOwner.threads)).toEqual(ids([open, secret]));
    expect(forOwner.threads.map((t: { member?: { user_id: string } }) => t.member?.user_id)).toEqual([guild.owner.id, guild.owner.id]);
  });
});

describe('THREAD_LIST_SYNC', () => {
  it('tells a member who gains a channel with active threads of those they may see, and no one else', async () => {
    const guild = await createGuild(server);
    const owner = guild.owner.token;
    const [member, later, blind] = await Promise.all([createBot(server), createBot(server), createBot(server)]);
    for (const bot of [member, later, blind]) await join(server, guild, bot, 'Bot');
    const hidden = (await server.api('POST', `/guilds/${guild.id}/channels`, { token: owner, body: { name: 'hidden' } })).body;
    const start = (name: string, type: number) => server.api('POST', `/channels/${hidden.id}/threads`, { token: owner, body: { name, type } });
    const open = (await start('open', 11)).body;
    const secret = (await start('secret', 12)).body;
    // Added while everyone saw the channel, then the channel was hidden.
    expect((await server.api('PUT', `/channels/${secret.id}/thread-members/${member.id}`, { token: owner })).status).toBe(204);
    await server.api('PUT', `/channels/${hidden.id}/permissions/${guild.id}`, { token: owner, body: { type: 0, deny: VIEW } });

    const m = await gateway.session(member.token, GUILDS | GUILD_MESSAGES);
    const l = await gateway.session(later.token, GUILDS | GUILD_MESSAGES);
    const b = await gateway.session(blind.token, GUILD_MESSAGES);
    // Before: the hidden channel's threads are no one's but the owner's.
    expect((await guildCreate(m, guild.id)).threads).toEqual([]);

    // A member overwrite grants the channel: its threads come, the private one too, since the member joined it.
    await server.api('PUT', `/channels/${hidden.id}/permissions/${member.id}`, { token: owner, body: { type: 1, allow: VIEW } });
    const sync = (await m.dispatch('THREAD_LIST_SYNC')).d;
    expect(sync).toMatchObject({ guild_id: guild.id, channel_ids: [hidden.id] });
    expect(ids(sync.threads)).toEqual(ids([open, secret]));
    expect(sync.members).toEqual([expect.objectContaining({ id: secret.id, user_id: member.id })]);

    // A role allowed on the channel, then given: the public thread only.
    const role = (await server.api('POST', `/guilds/${guild.id}/roles`, { token: owner, body: { name: 'seers' } })).body;
    await server.api('PUT', `/channels/${hidden.id}/permissions/${role.id}`, { token: owner, body: { type: 0, allow: VIEW } });
    for (const bot of [later, blind]) await server.api('PUT', `/guilds/${guild.id}/members/${bot.id}/roles/${role.id}`, { token: owner });
    const byRole = (await l.dispatch('THREAD_LIST_SYNC')).d;
    expect(byRole).toMatchObject({ guild_id: guild.id, channel_ids: [hidden.id], members: [] });
    expect(ids(byRole.threads)).toEqual([open.id]);

    // Granting again changes no one's access; without GUILDS no sync comes.
    await server.api('PUT', `/channels/${hidden.id}/permissions/${member.id}`, { token: owner, body: { type: 1, allow: VIEW, deny: '0' } });
    await settled([m, l, b], owner, guild.channelId);
    expect(m.received.filter((p) => p.t === 'THREAD_LIST_SYNC')).toHaveLength(1);
    expect(l.received.filter((p) => p.t === 'THREAD_LIST_SYNC')).toHaveLength(1);
    expect(b.received.filter((p) => p.t === 'THREAD_LIST_SYNC')).toEqual([]);
  });
});

describe('a thread started from a message', () => {
  it('is the message’s `thread` in MESSAGE_UPDATE and in the channel’s history', async () => {
    const guild = await createGuild(server);
    const owner = guild.owner.token;
    const s = await gateway.session(owner, GUILDS | GUILD_MESSAGES | MESSAGE_CONTENT);
    const message = (await server.api('POST', `/channels/${guild.channelId}/messages`, { token: owner, body: { content: 'start here' } })).body;
    const thread = await server.api('POST', `/channels/${guild.channelId}/messages/${message.id}/threads`, { token: owner, body: { name: 'from it' } });
    expect(thread.status).toBe(201);
    const update = await s.next((p) => p.t === 'MESSAGE_UPDATE' && p.d.id === message.id);
    expect(update.d).toMatchObject({
      id: message.id,
      channel_id: guild.channelId,
      content: 'start here',
      thread: { id: message.id, name: 'from it', type: 11 },
    });
    // HAS_THREAD
    expect(update.d.flags & 32).toBe(32);

    const one = await server.api('GET', `/channels/${guild.channelId}/messages/${message.id}`, { token: owner });
    expect(one.body.thread).toMatchObject({ id: message.id, parent_id: guild.channelId, name: 'from it', member_count: 1 });
    const page = await server.api('GET', `/channels/${guild.channelId}/messages`, { token: owner });
    expect(page.body.find((m: { id: string }) => m.id === message.id).thread).toMatchObject({ id: message.id, name: 'from it' });
    // Its thread deleted, the message has none.
    expect((await server.api('DELETE', `/channels/${message.id}`, { token: owner })).status).toBe(200);
    const after = await server.api('GET', `/channels/${guild.channelId}/messages/${message.id}`, { token: owner });
    expect(after.body.thread).toBeUndefined();
    expect(after.body.flags & 32).toBe(0);
  });
});

describe('RESUME', () => {
  it('replays the THREAD_* dispatches sent while the session was away, in order', async () => {
    const guild = await createGuild(server);
    const owner = guild.owner.token;
    const bot = await join(server, guild, await createBot(server), 'Bot');
    const first = await gateway.connect();
    const ready = await first.identify(bot.token, GUILDS | GUILD_MESSAGES);
    await guildCreate(first, guild.id);
    const seq = first.lastSeq();
    first.drop();
    await first.closed;

    const thread = (await server.api('POST', `/channels/${guild.channelId}/threads`, { token: owner, body: { name: 'while away', type: 11 } })).body;
    await server.api('PUT', `/channels/${thread.id}/thread-members/${bot.id}`, { token: owner });
    await server.api('PATCH', `/channels/${thread.id}`, { token: owner, body: { name: 'renamed' } });
    await server.api('DELETE', `/channels/${thread.id}`, { token: owner });

    const second = await gateway.connect();
    await second.next((p) => p.op === 10);
    second.send({ op: 6, d: { token: bot.token, session_id: ready.d.session_id, seq } });
    await second.dispatch('RESUMED');
    const replayed = second.received.filter((p: Payload) => String(p.t).startsWith('THREAD_'));
    expect(replayed.map((p) => p.t)).toEqual(['THREAD_CREATE', 'THREAD_MEMBER_UPDATE', 'THREAD_MEMBERS_UPDATE', 'THREAD_UPDATE', 'THREAD_DELETE']);
    expect(replayed.every((p) => p.d.id === thread.id)).toBe(true);
    // The bot's own joining reaches it with GUILDS alone.
    expect(replayed[2].d.added_members).toEqual([expect.objectContaining({ user_id: bot.id })]);
    // The thread was deleted before the RESUME: its name's key is destroyed, and the replay shows it as the log now
    // reads it (test/gateway/resumeErasure.test.ts); the rename itself is replayed.
    expect(replayed[3].d).toMatchObject({ id: thread.id, name: null });
    expect(replayed.map((p) => p.s)).toEqual([...replayed.map((p) => p.s)].sort((a, b) => a! - b!));
  });
});
