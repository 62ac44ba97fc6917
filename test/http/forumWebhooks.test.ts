// A forum's webhook, as the widely used API has it: executed with `thread_name` it opens a post (its message the
// first, `applied_tags` on the post), with `thread_id` it posts in one, with neither it is refused (220001), with both
// too (220002); `thread_name` on a text channel's webhook is refused (220003), the chat-service adapter in a forum
// too (220004). Over HTTPS and the gateway; refusals append nothing.
import { afterAll, describe, expect, it } from 'vitest';
import { Intent } from '../../gateway/protocol.js';
import { gatewayClients } from '../support/gateway.js';
import { expectNothingAppendedSince, fileServer } from '../support/server.js';
import { createGuild, expectError, expectRefusedWithoutEvents } from './guildSupport.js';

const server = await fileServer();
const clients = gatewayClients(() => server);
afterAll(() => clients.closeAll());

describe('a forum’s webhook', () => {
  it('opens a post with thread_name and its tags, the webhook’s message first, joining no one and auditing nothing', async () => {
    const guild = await createGuild(server);
    const token = guild.owner.token;
    const body = { name: 'alerts', type: 15, available_tags: [{ name: 'deploy' }, { name: 'incident', moderated: true }] };
    const forum = (await server.api('POST', `/guilds/${guild.id}/channels`, { token, body })).body;
    const [deploy, incident] = forum.available_tags;
    const hook = await server.api('POST', `/channels/${forum.id}/webhooks`, { token, body: { name: 'CI' } });
    expect(hook.status).toBe(200);
    const { id, token: secret } = hook.body;
    const session = await clients.session(token, Intent.GUILDS | Intent.GUILD_MESSAGES);

    const opened = await server.api('POST', `/webhooks/${id}/${secret}?wait=true`, {
      body: { content: 'Deployed v2', thread_name: 'Release v2', applied_tags: [deploy.id] },
    });
    expect(opened.status).toBe(200);
    const postId = opened.body.channel_id;
    expect(opened.body).toMatchObject({ id: postId, webhook_id: id, content: 'Deployed v2', author: { id, username: 'CI' } });
    const created = (await session.dispatch('THREAD_CREATE')).d;
    expect(created).toMatchObject({ id: postId, parent_id: forum.id, owner_id: id, applied_tags: [deploy.id], member_count: 0, newly_created: true });
    expect((await session.dispatch('MESSAGE_CREATE')).d).toMatchObject({ id: postId, channel_id: postId, webhook_id: id });
    const post = await server.api('GET', `/channels/${postId}`, { token });
    expect(post.body).toMatchObject({ type: 11, name: 'Release v2', owner_id: id, applied_tags: [deploy.id], member_count: 0, last_message_id: postId });
    const audit = await server.api('GET', `/guilds/${guild.id}/audit-logs?action_type=110`, { token });
    expect(audit.body.entries).toEqual([]);

    // thread_id posts in the post; the message joins no one.
    const reply = await server.api('POST', `/webhooks/${id}/${secret}?wait=true&thread_id=${postId}`, { body: { content: 'Smoke tests passed' } });
    expect(reply.body).toMatchObject({ channel_id: postId });
    expect((await server.api('GET', `/channels/${postId}`, { token })).body).toMatchObject({ message_count: 1, member_count: 0 });

    const execute = (query: string, payload: object) => () => server.api('POST', `/webhooks/${id}/${secret}${query}`, { body: { content: 'x', ...payload } });
    await expectRefusedWithoutEvents(server, execute('', {}), 400, 'WEBHOOK_FORUM_THREAD_REQUIRED');
    await expectRefusedWithoutEvents(server, execute(`?thread_id=${postId}`, { thread_name: 'Both' }), 400, 'WEBHOOK_FORUM_THREAD_NAME_AND_ID');
    await expectRefusedWithoutEvents(server, execute(`?thread_id=${postId}`, { applied_tags: [deploy.id] }), 400, 'INVALID_FORM_BODY');
    await expectRefusedWithoutEvents(server, execute('', { thread_name: '' }), 400, 'INVALID_FORM_BODY');
    await expectRefusedWithoutEvents(server, execute('', { thread_name: 'Empty', content: '' }), 400, 'CANNOT_SEND_EMPTY_MESSAGE');
    // A moderated tag takes MANAGE_THREADS, which a webhook does not hold; a tag of no forum is refused at its path.
    await expectRefusedWithoutEvents(server, execute('', { thread_name: 'Outage', applied_tags: [incident.id] }), 403, 'MISSING_PERMISSIONS');
    const unknownTag = await server.api('POST', `/webhooks/${id}/${secret}`, { body: { content: 'x', thread_name: 'T', applied_tags: [deploy.id, forum.id] } });
    expectError(unknownTag, 400, 'INVALID_FORM_BODY');
    expect(unknownTag.body.errors).toEqual([{ path: 'applied_tags.1', message: 'Unknown tag of this channel' }]);
    const slack = () => server.api('POST', `/webhooks/${id}/${secret}/slack`, { body: { text: 'hi' } });
    await expectRefusedWithoutEvents(server, slack, 400, 'WEBHOOK_SERVICES_NOT_IN_FORUMS');
  });

  it('answers the widely used API’s numbers on /api/v10, and refuses thread_name on a text channel’s webhook', async () => {
    const guild = await createGuild(server);
    const token = guild.owner.token;
    const forum = (await server.api('POST', `/guilds/${guild.id}/channels`, { token, body: { name: 'media', type: 16 } })).body;
    const inForum = (await server.api('POST', `/channels/${forum.id}/webhooks`, { token, body: { name: 'A' } })).body;
    const inText = (await server.api('POST', `/channels/${guild.channelId}/webhooks`, { token, body: { name: 'B' } })).body;
    const refused = async (hook: { id: string; token: string }, body: object, status: number, code: number | string) => {
      const before = await server.runtime.store.headPosition();
      const response = await server.call('POST', `/api/v10/webhooks/${hook.id}/${hook.token}`, { body: { content: 'x', ...body } });
      expect({ status: response.status, code: response.body.code }).toEqual({ status, code });
      await expectNothingAppendedSince(server, before);
      return response.body;
    };
    expect(await refused(inForum, {}, 400, 220001)).toEqual({
      code: 220001,
      message: 'Webhooks posted to forum channels must have a thread_name or thread_id',
    });
    expect(await refused(inText, { thread_name: 'No' }, 400, 220003)).toEqual({ code: 220003, message: 'Webhooks can only create threads in forum channels' });
    // A nested form error on v10: the tag's path under applied_tags.
    expect((await refused(inForum, { thread_name: 'T', applied_tags: [guild.channelId] }, 400, 50035)).errors).toEqual({
      applied_tags: { 0: { _errors: [{ code: 'BASE_TYPE_INVALID', message: 'Unknown tag of this channel' }] } },
    });
    const media = await server.call('POST', `/api/v10/webhooks/${inForum.id}/${inForum.token}?wait=true`, { body: { content: 'clip', thread_name: 'Clip' } });
    expect(media.status).toBe(200);
    expect((await server.api('GET', `/channels/${media.body.channel_id}`, { token })).body).toMatchObject({ parent_id: forum.id, applied_tags: [] });
  });
});
