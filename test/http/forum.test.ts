// Forum and media channels through the real HTTPS API and gateway: their fields and tags, posts (a public thread and
// its first message, with the same id) with applied tags, moderated tags, and the refusals, which append nothing.
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { Intent } from '../../gateway/protocol.js';
import { fileGateway } from '../support/gateway.js';
import { expectNothingAppendedSince } from '../support/server.js';
import { type TestGuild, createGuild, expectError, expectRefusedWithoutEvents, grantRole, newMember } from './guildSupport.js';

const { server, gateway: clients } = await fileGateway();

/** A forum with two tags, the second moderated. */
async function createForum(guild: TestGuild, type = 15) {
  const body = {
    name: 'help',
    type,
    topic: 'Ask here. '.repeat(200),
    available_tags: [
      { name: 'question', emoji_name: '❓' },
      { name: 'solved', moderated: true },
    ],
    default_reaction_emoji: { emoji_name: '👍' },
    default_thread_rate_limit_per_user: 30,
    default_sort_order: 1,
    ...(type === 15 ? { default_forum_layout: 1 } : {}),
  };
  const forum = await server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body });
  expect(forum.status).toBe(201);
  return forum.body;
}

const post = (token: string, forumId: string, body: object, prefix = '/api/v1') =>
  server.call('POST', `${prefix}/channels/${forumId}/threads`, { token, body: { name: 'How do I start?', message: { content: 'First post' }, ...body } });

describe('forum and media channels', () => {
  it('are created and changed with their tags and defaults, shown to the gateway', async () => {
    const guild = await createGuild(server);
    const session = await clients.session(guild.owner.token, Intent.GUILDS);
    const forum = await createForum(guild);
    expect(forum).toMatchObject({
      type: 15,
      guild_id: guild.id,
      available_tags: [
        { id: expect.stringMatching(/^\d+$/), name: 'question', moderated: false, emoji_id: null, emoji_name: '❓' },
        { id: expect.stringMatching(/^\d+$/), name: 'solved', moderated: true, emoji_id: null, emoji_name: null },
      ],
      default_reaction_emoji: { emoji_id: null, emoji_name: '👍' },
      default_thread_rate_limit_per_user: 30,
      default_sort_order: 1,
      default_forum_layout: 1,
    });
    expect(forum.topic).toHaveLength(2000);
    expect((await session.dispatch('CHANNEL_CREATE')).d).toEqual(forum);

    // Tags named by id keep it; a tag without one is new; one left out is gone.
    const [question] = forum.available_tags;
    const changed = await server.api('PATCH', `/channels/${forum.id}`, {
      token: guild.owner.token,
      body: { available_tags: [{ ...question, name: 'questions' }, { name: 'bug' }], default_reaction_emoji: null },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.available_tags).toEqual([
      { ...question, name: 'questions' },
      {
        id: expect.not.stringMatching(new RegExp(`^(${forum.available_tags.map((t: { id: string }) => t.id).join('|')})$`)),
        name: 'bug',
        moderated: false,
        emoji_id: null,
        emoji_name: null,
      },
    ]);
    expect(changed.body.default_reaction_emoji).toBeNull();

    const media = await createForum(guild, 16);
    expect(media).toMatchObject({ type: 16, available_tags: [{ name: 'question' }, { name: 'solved' }] });
    expect(media.default_forum_layout).toBeUndefined();
    const owner = guild.owner.token;
    const refusals: [string, string, object][] = [
      ['POST', `/guilds/${guild.id}/channels`, { name: 'f', type: 15, available_tags: [{ name: 'a' }, { name: 'a' }] }],
      ['POST', `/guilds/${guild.id}/channels`, { name: 'f', type: 15, available_tags: Array.from({ length: 21 }, (_, i) => ({ name: `t${i}` })) }],
      ['POST', `/guilds/${guild.id}/channels`, { name: 'f', type: 15, available_tags: [{ name: 'x'.repeat(21) }] }],
      ['POST', `/guilds/${guild.id}/channels`, { name: 'f', type: 15, default_reaction_emoji: { emoji_id: '1', emoji_name: '👍' } }],
      ['POST', `/guilds/${guild.id}/channels`, { name: 't', type: 0, available_tags: [] }],
      ['POST', `/guilds/${guild.id}/channels`, { name: 't', type: 0, topic: 'x'.repeat(1025) }],
      ['PATCH', `/channels/${media.id}`, { default_forum_layout: 2 }],
    ];
    for (const [method, path, body] of refusals) {
      await expectRefusedWithoutEvents(server, () => server.api(method, path, { token: owner, body }), 400, 'INVALID_FORM_BODY');
    }
  });

  it('take a post with a tag: a public thread whose first message has its id, inheriting the default slowmode', async () => {
    const guild = await createGuild(server);
    const alice = await newMember(server, guild);
    const forum = await createForum(guild);
    const [question] = forum.available_tags;
    const session = await clients.session(alice.token, Intent.GUILDS | Intent.GUILD_MESSAGES);
    const created = await post(alice.token, forum.id, { applied_tags: [question.id] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      type: 11,
      parent_id: forum.id,
      owner_id: alice.id,
      name: 'How do I start?',
      applied_tags: [question.id],
      rate_limit_per_user: 30,
      member_count: 1,
      last_message_id: created.body.id,
      message: { id: created.body.id, channel_id: created.body.id, content: 'First post', author: { id: alice.id } },
    });
    expect((await session.dispatch('THREAD_CREATE')).d).toMatchObject({ id: created.body.id, applied_tags: [question.id], newly_created: true });
    expect((await session.dispatch('MESSAGE_CREATE')).d).toMatchObject({ id: created.body.id, channel_id: created.body.id });
    const { message: _message, ...thread } = created.body;
    expect((await server.api('GET', `/channels/${created.body.id}`, { token: alice.token })).body).toEqual(thread);
    const history = await server.api('GET', `/channels/${created.body.id}/messages`, { token: alice.token });
    expect(history.body.map((m: { id: string }) => m.id)).toEqual([created.body.id]);
    // message_count leaves the post's first message out; total_message_sent counts it (the owner's answer skips the slowmode).
    expect(thread).toMatchObject({ message_count: 0, total_message_sent: 1 });
    const reply = await server.api('POST', `/channels/${created.body.id}/messages`, { token: guild.owner.token, body: { content: 'Answer' } });
    expect(reply.status).toBe(200);
    const counted = (await server.api('GET', `/channels/${created.body.id}`, { token: alice.token })).body;
    expect(counted).toMatchObject({ message_count: 1, total_message_sent: 2 });

    // The post's owner changes its tags; a tag of no post of this forum is refused at its path.
    const retagged = await server.api('PATCH', `/channels/${created.body.id}`, { token: alice.token, body: { applied_tags: [] } });
    expect(retagged.body.applied_tags).toEqual([]);
    const bad = await server.api('PATCH', `/channels/${created.body.id}`, { token: alice.token, body: { applied_tags: [forum.id] } });
    expectError(bad, 400, 'INVALID_FORM_BODY');
    expect(bad.body.errors).toEqual([{ path: 'applied_tags.0', message: 'Unknown tag of this channel' }]);
    // A thread outside a forum has no tags.
    const plain = await server.api('POST', `/channels/${guild.channelId}/threads`, { token: alice.token, body: { name: 'plain', type: 11 } });
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `/channels/${plain.body.id}`, { token: alice.token, body: { applied_tags: [question.id] } }),
      400,
      'INVALID_FORM_BODY',
    );
  });

  it('refuse a moderated tag without MANAGE_THREADS, and a post with a bad message, without appending anything', async () => {
    const guild = await createGuild(server);
    const alice = await newMember(server, guild);
    const forum = await createForum(guild);
    const [question, solved] = forum.available_tags;
    await expectRefusedWithoutEvents(server, () => post(alice.token, forum.id, { applied_tags: [solved.id] }), 403, 'MISSING_PERMISSIONS');
    await expectRefusedWithoutEvents(server, () => post(alice.token, forum.id, { message: { content: '' } }), 400, 'CANNOT_SEND_EMPTY_MESSAGE');
    await expectRefusedWithoutEvents(server, () => post(alice.token, forum.id, { message: undefined }), 400, 'INVALID_FORM_BODY');
    const mine = await post(alice.token, forum.id, { applied_tags: [question.id] });
    await expectRefusedWithoutEvents(
      server,
      () => server.api('PATCH', `/channels/${mine.body.id}`, { token: alice.token, body: { applied_tags: [question.id, solved.id] } }),
      403,
      'MISSING_PERMISSIONS',
    );
    await grantRole(server, guild, alice, Permission.MANAGE_THREADS);
    expect((await post(alice.token, forum.id, { applied_tags: [solved.id] })).status).toBe(201);
    const solvedNow = await server.api('PATCH', `/channels/${mine.body.id}`, { token: alice.token, body: { applied_tags: [question.id, solved.id] } });
    expect(solvedNow.body.applied_tags).toEqual([question.id, solved.id]);
    // Posting takes SEND_MESSAGES in the forum.
    const bob = await newMember(server, guild);
    await server.api('PUT', `/channels/${forum.id}/permissions/${bob.id}`, {
      token: guild.owner.token,
      body: { type: 1, deny: Permission.SEND_MESSAGES.toString() },
    });
    await expectRefusedWithoutEvents(server, () => post(bob.token, forum.id, {}), 403, 'MISSING_PERMISSIONS');
  });

  it('refuse messages sent straight into them, with the widely used API’s 40058 on /api/v10', async () => {
    const guild = await createGuild(server);
    const forum = await createForum(guild, 16);
    const send = (prefix: string) => server.call('POST', `${prefix}/channels/${forum.id}/messages`, { token: guild.owner.token, body: { content: 'hi' } });
    await expectRefusedWithoutEvents(server, () => send('/api/v1'), 400, 'CANNOT_SEND_IN_FORUM_CHANNEL');
    const before = await server.runtime.store.headPosition();
    expect(await send('/api/v10')).toMatchObject({ status: 400, body: { code: 40058, message: 'Cannot send messages in a forum channel' } });
    await expectNothingAppendedSince(server, before);
  });

  it('answer applied_tags errors at their path: a list on /api/v1, nested on /api/v10', async () => {
    const guild = await createGuild(server);
    const forum = await createForum(guild);
    const six = Array.from({ length: 6 }, () => forum.available_tags[0].id);
    const refused = async (prefix: string, body: object) => {
      const before = await server.runtime.store.headPosition();
      const response = await post(guild.owner.token, forum.id, body, prefix);
      expectError(response, 400, prefix === '/api/v1' ? 'INVALID_FORM_BODY' : 50035);
      await expectNothingAppendedSince(server, before);
      return response.body.errors;
    };
    expect(await refused('/api/v1', { applied_tags: [forum.available_tags[0].id, guild.channelId] })).toEqual([
      { path: 'applied_tags.1', message: 'Unknown tag of this channel' },
    ]);
    expect(await refused('/api/v10', { applied_tags: [guild.channelId] })).toEqual({
      applied_tags: { 0: { _errors: [{ code: 'BASE_TYPE_INVALID', message: 'Unknown tag of this channel' }] } },
    });
    expect(await refused('/api/v1', { applied_tags: six })).toEqual([{ path: 'applied_tags', message: expect.any(String) }]);
    expect(await refused('/api/v10', { applied_tags: six })).toEqual({ applied_tags: { _errors: [expect.objectContaining({ message: expect.any(String) })] } });
  });
});
