// Threads through the real HTTPS API: starting them, messages, reactions, pins and typing in them, changing, locking,
// archiving and deleting them, their members, private threads' visibility, and the refusals, which append nothing.
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { fileServer } from '../support/server.js';
import { createGuild, expectError, expectRefusedWithoutEvents, grantRole, newMember } from './guildSupport.js';

const server = await fileServer();

async function send(token: string, channelId: string, content: string) {
  const response = await server.api('POST', `/channels/${channelId}/messages`, { token, body: { content } });
  return response;
}

describe('threads', () => {
  it('starts a thread from a message with the message’s id, once', async () => {
    const guild = await createGuild(server);
    const token = guild.owner.token;
    const message = await send(token, guild.channelId, 'Let us discuss');
    const started = await server.api('POST', `/channels/${guild.channelId}/messages/${message.body.id}/threads`, {
      token,
      body: { name: 'Discussion', auto_archive_duration: 1440 },
    });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({
      id: message.body.id,
      type: 11,
      guild_id: guild.id,
      parent_id: guild.channelId,
      owner_id: guild.owner.id,
      name: 'Discussion',
      rate_limit_per_user: 0,
      message_count: 0,
      member_count: 1,
      total_message_sent: 0,
      thread_metadata: {
        archived: false,
        auto_archive_duration: 1440,
        locked: false,
        archive_timestamp: expect.any(String),
        create_timestamp: expect.any(String),
      },
    });
    expect(started.body.thread_metadata.invitable).toBeUndefined();
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', `/channels/${guild.channelId}/messages/${message.body.id}/threads`, { token, body: { name: 'Again' } }),
      400,
      'THREAD_ALREADY_CREATED',
    );
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', `/channels/${guild.channelId}/messages/${guild.channelId}/threads`, { token, body: { name: 'No message' } }),
      404,
      'UNKNOWN_MESSAGE',
    );
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', `/channels/${guild.channelId}/messages/${message.body.id}/threads`, { token, body: { name: 'x', auto_archive_duration: 5 } }),
      400,
      'INVALID_FORM_BODY',
    );
    const other = await send(token, guild.channelId, 'Not privately');
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', `/channels/${guild.channelId}/messages/${other.body.id}/threads`, { token, body: { name: 'x', type: 12 } }),
      400,
      'INVALID_FORM_BODY',
    );
    expect((await server.api('GET', `/channels/${message.body.id}`, { token })).body).toEqual(started.body);
  });

  it('takes messages, reactions, pins and typing as a text channel, counting messages; its author joins', async () => {
    const guild = await createGuild(server);
    const alice = await newMember(server, guild);
    const thread = await server.api('POST', `/channels/${guild.channelId}/threads`, { token: guild.owner.token, body: { name: 'Chat', type: 11 } });
    expect(thread.status).toBe(201);
    expect(thread.body).toMatchObject({ type: 11, member_count: 1 });
    const posted = await send(alice.token, thread.body.id, 'hello thread');
    expect(posted.status).toBe(200);
    expect(posted.body).toMatchObject({ channel_id: thread.body.id, guild_id: guild.id, content: 'hello thread' });
    const reacted = await server.api('PUT', `/channels/${thread.body.id}/messages/${posted.body.id}/reactions/%F0%9F%91%8D/@me`, { token: alice.token });
    expect(reacted.status).toBe(204);
    expect((await server.api('PUT', `/channels/${thread.body.id}/pins/${posted.body.id}`, { token: guild.owner.token })).status).toBe(204);
    expect((await server.api('POST', `/channels/${thread.body.id}/typing`, { token: alice.token })).status).toBe(204);
    const history = await server.api('GET', `/channels/${thread.body.id}/messages`, { token: alice.token });
    expect(history.body.map((m: { content: string }) => m.content)).toEqual(['hello thread']);
    expect(history.body[0].reactions).toEqual([expect.objectContaining({ count: 1, me: true })]);
    const after = await server.api('GET', `/channels/${thread.body.id}`, { token: alice.token });
    expect(after.body).toMatchObject({ message_count: 1, total_message_sent: 1, member_count: 2, last_message_id: posted.body.id });
    const members = await server.api('GET', `/channels/${thread.body.id}/thread-members`, { token: alice.token });
    expect(members.body.map((m: { user_id: string }) => m.user_id).sort()).toEqual([guild.owner.id, alice.id].sort());
    // The guild's channel list does not carry threads.
    const channels = await server.api('GET', `/guilds/${guild.id}/channels`, { token: alice.token });
    expect(channels.body.map((c: { id: string }) => c.id)).not.toContain(thread.body.id);
  });

  it('needs CREATE_PUBLIC_THREADS, CREATE_PRIVATE_THREADS and SEND_MESSAGES_IN_THREADS from the parent’s permissions and overwrites', async () => {
    const guild = await createGuild(server);
    const alice = await newMember(server, guild);
    const deny = (bits: bigint) =>
      server.api('PUT', `/channels/${guild.channelId}/permissions/${guild.id}`, { token: guild.owner.token, body: { type: 0, deny: bits.toString() } });
    expect((await deny(Permission.CREATE_PUBLIC_THREADS | Permission.SEND_MESSAGES_IN_THREADS)).status).toBe(204);
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', `/channels/${guild.channelId}/threads`, { token: alice.token, body: { name: 'x', type: 11 } }),
      403,
      'MISSING_PERMISSIONS',
    );
    const priv = await server.api('POST', `/channels/${guild.channelId}/threads`, { token: alice.token, body: { name: 'secret' } });
    expect(priv.body).toMatchObject({ type: 12, thread_metadata: { invitable: true } });
    const open = await server.api('POST', `/channels/${guild.channelId}/threads`, { token: guild.owner.token, body: { name: 'open', type: 11 } });
    await expectRefusedWithoutEvents(server, () => send(alice.token, open.body.id, 'hi'), 403, 'MISSING_PERMISSIONS');
    expect((await deny(Permission.CREATE_PRIVATE_THREADS)).status).toBe(204);
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', `/channels/${guild.channelId}/threads`, { token: alice.token, body: { name: 'x' } }),
      403,
      'MISSING_PERMISSIONS',
    );
    // Without VIEW_CHANNEL on the parent, the thread is unknown.
    expect((await deny(Permission.VIEW_CHANNEL)).status).toBe(204);
    expectError(await server.api('GET', `/channels/${open.body.id}`, { token: alice.token }), 404, 'UNKNOWN_CHANNEL');
  });

  it('shows a private thread to its members and MANAGE_THREADS holders only', async () => {
    const guild = await createGuild(server);
    const alice = await newMember(server, guild);
    const bob = await newMember(server, guild);
    const mod = await newMember(server, guild);
    await grantRole(server, guild, mod, Permission.MANAGE_THREADS);
    const thread = await server.api('POST', `/channels/${guild.channelId}/threads`, { token: alice.token, body: { name: 'secret', type: 12 } });
    const id = thread.body.id;
    expectError(await server.api('GET', `/channels/${id}`, { token: bob.token }), 404, 'UNKNOWN_CHANNEL');
    await expectRefusedWithoutEvents(server, () => send(bob.token, id, 'let me in'), 404, 'UNKNOWN_CHANNEL');
    await expectRefusedWithoutEvents(server, () => server.api('PUT', `/channels/${id}/thread-members/@me`, { token: bob.token }), 404, 'UNKNOWN_CHANNEL');
    expect((await server.api('GET', `/channels/${id}`, { token: mod.token })).status).toBe(200);
    expect((await server.api('PUT', `/channels/${id}/thread-members/${bob.id}`, { token: alice.token })).status).toBe(204);
    expect((await server.api('GET', `/channels/${id}`, { token: bob.token })).status).toBe(200);
    const member = await server.api('GET', `/channels/${id}/thread-members/${bob.id}?with_member=true`, { token: bob.token });
    expect(member.body).toMatchObject({ id, user_id: bob.id, flags: 0, member: { user: { id: bob.id } } });
    await expectRefusedWithoutEvents(
      server,
      () => server.api('DELETE', `/channels/${id}/thread-members/${alice.id}`, { token: bob.token }),
      403,
      'MISSING_PERMISSIONS',
    );
    expect((await server.api('DELETE', `/channels/${id}/thread-members/@me`, { token: bob.token })).status).toBe(204);
    expectError(await server.api('GET', `/channels/${id}`, { token: bob.token }), 404, 'UNKNOWN_CHANNEL');
  });

  it('pages thread members by user id, with their guild member on request', async () => {
    const guild = await createGuild(server);
    const thread = await server.api('POST', `/channels/${guild.channelId}/threads`, { token: guild.owner.token, body: { name: 'crowd', type: 11 } });
    const id = thread.body.id;
    for (let i = 0; i < 3; i++) {
      const member = await newMember(server, guild);
      expect((await server.api('PUT', `/channels/${id}/thread-members/${member.id}`, { token: guild.owner.token })).status).toBe(204);
    }
    const all = await server.api('GET', `/channels/${id}/thread-members`, { token: guild.owner.token });
    const ids = all.body.map((m: { user_id: string }) => m.user_id);
    expect(ids).toHaveLength(4);
    expect(all.body[0].member).toBeUndefined();
    const page = await server.api('GET', `/channels/${id}/thread-members?after=${ids[0]}&limit=2&with_member=true`, { token: guild.owner.token });
    expect(page.body.map((m: { user_id: string }) => m.user_id)).toEqual(ids.slice(1, 3));
    expect(page.body[0].member.user.id).toBe(ids[1]);
    expectError(await server.api('GET', `/channels/${id}/thread-members?limit=0`, { token: guild.owner.token }), 400, 'INVALID_FORM_BODY');
    expectError(await server.api('PUT', `/channels/${id}/thread-members/${'9'.repeat(18)}`, { token: guild.owner.token }), 404, 'UNKNOWN_MEMBER');
  });

  it('archives, locks and reopens: a message reopens an archived thread unless it is locked', async () => {
    const guild = await createGuild(server);
    const alice = await newMember(server, guild);
    const mod = await newMember(server, guild);
    await grantRole(server, guild, mod, Permission.MANAGE_THREADS);
    const thread = await server.api('POST', `/channels/${guild.channelId}/threads`, { token: alice.token, body: { name: 'mine', type: 11 } });
    const id = thread.body.id;
    const path = `/channels/${id}`;
    const archived = await server.api('PATCH', path, { token: alice.token, body: { archived: true, name: 'closed' } });
    expect(archived.body).toMatchObject({ name: 'closed', thread_metadata: { archived: true } });
    await expectRefusedWithoutEvents(server, () => server.api('PATCH', path, { token: alice.token, body: { name: 'again' } }), 400, 'THREAD_ARCHIVED');
    await expectRefusedWithoutEvents(server, () => server.api('PUT', `${path}/thread-members/${mod.id}`, { token: alice.token }), 400, 'THREAD_ARCHIVED');
    expect((await send(alice.token, id, 'back')).status).toBe(200);
    expect((await server.api('GET', path, { token: alice.token })).body.thread_metadata.archived).toBe(false);

    await expectRefusedWithoutEvents(server, () => server.api('PATCH', path, { token: alice.token, body: { locked: true } }), 403, 'MISSING_PERMISSIONS');
    await expectRefusedWithoutEvents(server, () => server.api('PATCH', path, { token: alice.token, body: { invitable: false } }), 400, 'INVALID_FORM_BODY');
    const locked = await server.api('PATCH', path, { token: mod.token, body: { locked: true, rate_limit_per_user: 10, auto_archive_duration: 60 } });
    expect(locked.body).toMatchObject({ rate_limit_per_user: 10, thread_metadata: { locked: true, auto_archive_duration: 60 } });
    await expectRefusedWithoutEvents(server, () => send(alice.token, id, 'locked out'), 403, 'MISSING_PERMISSIONS');
    await expectRefusedWithoutEvents(server, () => server.api('PATCH', path, { token: alice.token, body: { name: 'x' } }), 403, 'THREAD_LOCKED');
    expect((await send(mod.token, id, 'moderated')).status).toBe(200);
  });

  it('is deleted by MANAGE_THREADS holders, answering the thread as it was; it is unknown afterwards', async () => {
    const guild = await createGuild(server);
    const alice = await newMember(server, guild);
    const thread = await server.api('POST', `/channels/${guild.channelId}/threads`, { token: alice.token, body: { name: 'short-lived', type: 11 } });
    const path = `/channels/${thread.body.id}`;
    await expectRefusedWithoutEvents(server, () => server.api('DELETE', path, { token: alice.token }), 403, 'MISSING_PERMISSIONS');
    const deleted = await server.api('DELETE', path, { token: guild.owner.token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id: thread.body.id, name: 'short-lived' });
    expectError(await server.api('GET', path, { token: guild.owner.token }), 404, 'UNKNOWN_CHANNEL');
    await expectRefusedWithoutEvents(server, () => send(guild.owner.token, thread.body.id, 'gone'), 404, 'UNKNOWN_CHANNEL');
    // Guild channels, DMs and unknown ids still answer through the same paths.
    expect((await server.api('GET', `/channels/${guild.channelId}`, { token: alice.token })).body.type).toBe(0);
    expectError(await server.api('GET', `/channels/${'9'.repeat(18)}`, { token: alice.token }), 404, 'UNKNOWN_CHANNEL');
  });

  it('cannot be started in a thread, a voice channel or an announcement channel as a private thread', async () => {
    const guild = await createGuild(server);
    const token = guild.owner.token;
    const thread = await server.api('POST', `/channels/${guild.channelId}/threads`, { token, body: { name: 't', type: 11 } });
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', `/channels/${thread.body.id}/threads`, { token, body: { name: 'nested' } }),
      400,
      'CANNOT_EXECUTE_ON_CHANNEL_TYPE',
    );
    const voice = await server.api('POST', `/guilds/${guild.id}/channels`, { token, body: { name: 'v', type: 2 } });
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', `/channels/${voice.body.id}/threads`, { token, body: { name: 'x', type: 11 } }),
      400,
      'CANNOT_EXECUTE_ON_CHANNEL_TYPE',
    );
    const news = await server.api('POST', `/guilds/${guild.id}/channels`, { token, body: { name: 'news', type: 5 } });
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', `/channels/${news.body.id}/threads`, { token, body: { name: 'x', type: 12 } }),
      400,
      'INVALID_FORM_BODY',
    );
    const announcement = await server.api('POST', `/channels/${news.body.id}/threads`, { token, body: { name: 'x' } });
    expect(announcement.body.type).toBe(10);
  });

  it('lists active threads and archived ones (public, private, and the caller’s private), as the caller may see them', async () => {
    const guild = await createGuild(server);
    const alice = await newMember(server, guild);
    const bob = await newMember(server, guild);
    const owner = guild.owner.token;
    const start = async (token: string, name: string, type: number) =>
      (await server.api('POST', `/channels/${guild.channelId}/threads`, { token, body: { name, type } })).body.id as string;
    const archive = (token: string, id: string) => server.api('PATCH', `/channels/${id}`, { token, body: { archived: true } });
    const open = await start(owner, 'open', 11);
    const secret = await start(alice.token, 'secret', 12);
    const old1 = await start(owner, 'old1', 11);
    const old2 = await start(owner, 'old2', 11);
    const oldSecret = await start(alice.token, 'old secret', 12);
    for (const id of [old1, old2]) expect((await archive(owner, id)).status).toBe(200);
    expect((await archive(alice.token, oldSecret)).status).toBe(200);

    const active = await server.api('GET', `/guilds/${guild.id}/threads/active`, { token: bob.token });
    expect(active.body.threads.map((t: { id: string }) => t.id)).toEqual([open]);
    expect(active.body.members).toEqual([]);
    const mine = await server.api('GET', `/guilds/${guild.id}/threads/active`, { token: alice.token });
    expect(mine.body.threads.map((t: { id: string }) => t.id).sort()).toEqual([open, secret].sort());
    expect(mine.body.members).toEqual([expect.objectContaining({ id: secret, user_id: alice.id })]);

    const archived = `/channels/${guild.channelId}/threads/archived`;
    const page = await server.api('GET', `${archived}/public?limit=1`, { token: bob.token });
    expect(page.body).toMatchObject({ threads: [{ id: old2 }], has_more: true });
    const before = page.body.threads[0].thread_metadata.archive_timestamp;
    const rest = await server.api('GET', `${archived}/public?before=${encodeURIComponent(before)}`, { token: bob.token });
    expect(rest.body).toMatchObject({ threads: [{ id: old1 }], has_more: false });
    expectError(await server.api('GET', `${archived}/private`, { token: alice.token }), 403, 'MISSING_PERMISSIONS');
    expect((await server.api('GET', `${archived}/private`, { token: owner })).body.threads.map((t: { id: string }) => t.id)).toEqual([oldSecret]);
    const joined = `/channels/${guild.channelId}/users/@me/threads/archived/private`;
    expect((await server.api('GET', joined, { token: alice.token })).body).toMatchObject({ threads: [{ id: oldSecret }], has_more: false });
    expect((await server.api('GET', joined, { token: bob.token })).body.threads).toEqual([]);
    expectError(await server.api('GET', `${archived}/public?before=yesterday`, { token: bob.token }), 400, 'INVALID_FORM_BODY');
  });
});
