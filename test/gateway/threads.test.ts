// Thread dispatches through real WebSocket sessions: THREAD_CREATE (newly_created), THREAD_UPDATE, THREAD_DELETE,
// THREAD_MEMBER_UPDATE and THREAD_MEMBERS_UPDATE and MESSAGE_CREATE in threads, by intents and by who may see the
// thread; and the audit-log entries 110-112 the same events make.
import { describe, expect, it } from 'vitest';
import { createGuild, join } from '../http/guildSupport.js';
import { type GatewayClient, fileGateway } from '../support/gateway.js';
import { createBot } from '../support/server.js';

const GUILDS = 1 << 0;
const GUILD_MEMBERS = 1 << 1;
const GUILD_MESSAGES = 1 << 9;

const { server, gateway } = await fileGateway();

const named = (client: GatewayClient, t: string) => client.received.filter((p) => p.t === t).map((p) => p.d as Record<string, unknown>);

/** Dispatches arrive in log order: once `marker` reaches a session, everything before it has too. */
async function settled(clients: GatewayClient[], token: string, channelId: string) {
  const marker = await server.api('POST', `/channels/${channelId}/messages`, { token, body: { content: 'marker' } });
  for (const client of clients) await client.next((p) => p.t === 'MESSAGE_CREATE' && (p.d as { id: string }).id === marker.body.id, 5000);
}

describe('thread dispatches', () => {
  it('tell those who may see a thread of it, its changes, its members and its messages, by intents', async () => {
    const guild = await createGuild(server);
    const [member, watcher, outsider] = await Promise.all([createBot(server), createBot(server), createBot(server)]);
    for (const bot of [member, watcher, outsider]) await join(server, guild, bot, 'Bot');
    // watcher has GUILD_MEMBERS and sees others join; member sees only its own membership; outsider lacks GUILDS.
    const m = await gateway.session(member.token, GUILDS | GUILD_MESSAGES);
    const w = await gateway.session(watcher.token, GUILDS | GUILD_MEMBERS | GUILD_MESSAGES);
    const o = await gateway.session(outsider.token, GUILD_MESSAGES);
    const owner = guild.owner.token;

    const thread = await server.api('POST', `/channels/${guild.channelId}/threads`, { token: owner, body: { name: 'Plans', type: 11 } });
    const id = thread.body.id;
    const created = await w.dispatch('THREAD_CREATE');
    expect(created.d).toMatchObject({ id, type: 11, parent_id: guild.channelId, name: 'Plans', newly_created: true, member_count: 1 });
    expect((await server.api('PUT', `/channels/${id}/thread-members/${member.id}`, { token: owner })).status).toBe(204);
    const own = await m.dispatch('THREAD_MEMBER_UPDATE');
    expect(own.d).toMatchObject({ id, user_id: member.id, guild_id: guild.id, flags: 0 });
    // The creator's own joining came first, in the same append as the thread.
    const added = (userId: string) => (p: { t?: string | null; d?: unknown }) =>
      p.t === 'THREAD_MEMBERS_UPDATE' && (p.d as { added_members?: { user_id: string }[] }).added_members?.[0]?.user_id === userId;
    expect((await w.next(added(guild.owner.id))).d).toMatchObject({ member_count: 1 });
    const membersUpdate = await w.next(added(member.id));
    expect(membersUpdate.d).toMatchObject({ id, guild_id: guild.id, member_count: 2, added_members: [{ id, user_id: member.id }] });
    const posted = await server.api('POST', `/channels/${id}/messages`, { token: owner, body: { content: 'in the thread' } });
    expect((await m.next((p) => p.t === 'MESSAGE_CREATE' && (p.d as { id: string }).id === posted.body.id)).d).toMatchObject({ channel_id: id });
    await server.api('PATCH', `/channels/${id}`, { token: owner, body: { name: 'Plans (done)', archived: true } });
    const updated = await w.dispatch('THREAD_UPDATE');
    expect(updated.d).toMatchObject({ id, name: 'Plans (done)', message_count: 1, thread_metadata: { archived: true } });
    const entries = async () =>
      (await server.api('GET', `/guilds/${guild.id}/audit-logs`, { token: owner })).body.audit_log_entries.filter(
        (e: { target_id: string }) => e.target_id === id,
      ) as { action_type: number; changes: unknown[] }[];
    const entry = (all: { action_type: number; changes: unknown[] }[], action: number) => all.find((e) => e.action_type === action)!;
    const live = await entries();
    expect(entry(live, 111).changes).toEqual([
      { key: 'name', old_value: 'Plans', new_value: 'Plans (done)' },
      { key: 'archived', old_value: false, new_value: true },
    ]);
    expect(entry(live, 110).changes).toContainEqual({ key: 'name', new_value: 'Plans' });
    expect((await server.api('DELETE', `/channels/${id}`, { token: owner })).status).toBe(200);
    expect((await m.dispatch('THREAD_DELETE')).d).toEqual({ id, guild_id: guild.id, parent_id: guild.channelId, type: 11 });

    await settled([m, w, o], owner, guild.channelId);
    // The member saw THREAD_MEMBERS_UPDATE only for its own joining; the session without GUILDS saw no thread dispatch.
    expect(named(m, 'THREAD_MEMBERS_UPDATE').map((d) => d.added_members)).toEqual([[expect.objectContaining({ user_id: member.id })]]);
    expect(named(w, 'THREAD_MEMBER_UPDATE')).toEqual([]);
    expect(o.received.filter((p) => String(p.t).startsWith('THREAD_'))).toEqual([]);
    expect(named(o, 'MESSAGE_CREATE').map((d) => d.channel_id)).toContain(id);

    // The entries stay once the thread is deleted, without its names, which went with its key.
    const after = await entries();
    expect(after.map((e) => e.action_type).sort()).toEqual([110, 111, 112]);
    expect(entry(after, 111).changes).toEqual([{ key: 'archived', old_value: false, new_value: true }]);
    expect(entry(after, 110).changes).toContainEqual({ key: 'type', new_value: 11 });
    expect(after.flatMap((e) => e.changes)).not.toContainEqual(expect.objectContaining({ key: 'name' }));
  });

  it('show a private thread only to its members and MANAGE_THREADS holders; an added member is shown it', async () => {
    const guild = await createGuild(server);
    const [insider, stranger] = await Promise.all([createBot(server), createBot(server)]);
    for (const bot of [insider, stranger]) await join(server, guild, bot, 'Bot');
    const i = await gateway.session(insider.token, GUILDS | GUILD_MESSAGES);
    const s = await gateway.session(stranger.token, GUILDS | GUILD_MEMBERS | GUILD_MESSAGES);
    const ownerSession = await gateway.session(guild.owner.token, GUILDS | GUILD_MESSAGES);
    const owner = guild.owner.token;

    const thread = await server.api('POST', `/channels/${guild.channelId}/threads`, { token: owner, body: { name: 'secret', type: 12 } });
    const id = thread.body.id;
    expect((await ownerSession.dispatch('THREAD_CREATE')).d).toMatchObject({ id, newly_created: true });
    await server.api('PUT', `/channels/${id}/thread-members/${insider.id}`, { token: owner });
    const shown = await i.dispatch('THREAD_CREATE');
    expect(shown.d).toMatchObject({ id, type: 12, member: { user_id: insider.id } });
    expect((shown.d as { newly_created?: boolean }).newly_created).toBeUndefined();
    const posted = await server.api('POST', `/channels/${id}/messages`, { token: owner, body: { content: 'psst' } });
    await i.next((p) => p.t === 'MESSAGE_CREATE' && (p.d as { id: string }).id === posted.body.id);

    await settled([i, s], owner, guild.channelId);
    expect(s.received.filter((p) => String(p.t).startsWith('THREAD_'))).toEqual([]);
    expect(named(s, 'MESSAGE_CREATE').map((d) => d.channel_id)).not.toContain(id);
  });
});
