// Webhooks posting in threads (`?thread_id=`), as the widely used API allows: into a thread of the webhook's channel,
// reopening it when archived like any message, joining no one; a thread of another channel is unknown, and an archived
// locked thread refuses the post. Over HTTPS; refusals append nothing.
import { describe, expect, it } from 'vitest';
import { fileServer } from '../support/server.js';
import { createGuild, expectRefusedWithoutEvents } from './guildSupport.js';

const server = await fileServer();

describe('POST /webhooks/:id/:token?thread_id=', () => {
  it('posts in a thread of the webhook’s channel, reopening it, and refuses other channels’ threads and locked archived ones', async () => {
    const guild = await createGuild(server);
    const token = guild.owner.token;
    const hook = (await server.api('POST', `/channels/${guild.channelId}/webhooks`, { token, body: { name: 'Hook' } })).body;
    const startIn = async (channelId: string, name: string) =>
      (await server.api('POST', `/channels/${channelId}/threads`, { token, body: { name, type: 11 } })).body.id as string;
    const thread = await startIn(guild.channelId, 'hooked');
    const other = (await server.api('POST', `/guilds/${guild.id}/channels`, { token, body: { name: 'other' } })).body;
    const elsewhere = await startIn(other.id, 'elsewhere');
    const execute = (threadId: string, content: string) =>
      server.api('POST', `/webhooks/${hook.id}/${hook.token}?wait=true&thread_id=${threadId}`, { body: { content } });

    const posted = await execute(thread, 'into the thread');
    expect(posted.status).toBe(200);
    expect(posted.body).toMatchObject({ channel_id: thread, webhook_id: hook.id, content: 'into the thread' });
    const history = await server.api('GET', `/channels/${thread}/messages`, { token });
    expect(history.body.map((m: { content: string }) => m.content)).toEqual(['into the thread']);
    const parent = await server.api('GET', `/channels/${guild.channelId}/messages`, { token });
    expect(parent.body.map((m: { content: string }) => m.content)).not.toContain('into the thread');

    await server.api('PATCH', `/channels/${thread}`, { token, body: { archived: true } });
    expect((await execute(thread, 'wake up')).status).toBe(200);
    const reopened = await server.api('GET', `/channels/${thread}`, { token });
    // The webhook joined no one: the creator is still the only member.
    expect(reopened.body).toMatchObject({ message_count: 2, member_count: 1, thread_metadata: { archived: false } });

    await expectRefusedWithoutEvents(server, () => execute(elsewhere, 'wrong channel'), 404, 'UNKNOWN_CHANNEL');
    await server.api('PATCH', `/channels/${thread}`, { token, body: { locked: true, archived: true } });
    await expectRefusedWithoutEvents(server, () => execute(thread, 'locked out'), 400, 'THREAD_ARCHIVED');
    await server.api('DELETE', `/channels/${thread}`, { token });
    await expectRefusedWithoutEvents(server, () => execute(thread, 'gone'), 404, 'UNKNOWN_CHANNEL');
  });
});
