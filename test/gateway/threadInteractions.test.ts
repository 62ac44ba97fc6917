// Interactions in threads, as the widely used API allows them: a slash command invoked and a button clicked in a thread
// reach the bot (channel_id the thread's, `channel` the thread with the invoker's permissions there), and the bot's
// answer is posted in the thread. Through HTTPS and real WebSocket sessions.
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { type InteractionWorld, callback, interactionWorld, invoke } from '../http/commandInteractionSupport.js';
import { fileGateway } from '../support/gateway.js';

const { server, gateway: clients } = await fileGateway();

const startThread = async (w: InteractionWorld, type: number) =>
  (await server.api('POST', `/channels/${w.guild.channelId}/threads`, { token: w.member.token, body: { name: 'commands', type } })).body as { id: string };

describe('interactions in a thread', () => {
  it('a slash command reaches the bot with the thread as its channel, and the answer is posted in the thread', async () => {
    const w = await interactionWorld(server, clients, [{ name: 'ping', description: 'Pong' }]);
    const thread = await startThread(w, 11);
    expect((await invoke(server, w, 'ping', undefined, { channelId: thread.id })).status).toBe(204);
    const d = (await w.botSession.next((p) => p.t === 'INTERACTION_CREATE' && p.d.channel_id === thread.id)).d;
    expect(d).toMatchObject({
      guild_id: w.guild.id,
      channel_id: thread.id,
      channel: { id: thread.id, type: 11, parent_id: w.guild.channelId, thread_metadata: { archived: false } },
      member: { user: { id: w.member.id } },
    });
    // The invoker's permissions in a public thread: their parent's, turned to the thread's (sending in threads).
    const permissions = BigInt(d.channel.permissions);
    expect(permissions & Permission.SEND_MESSAGES_IN_THREADS).toBe(Permission.SEND_MESSAGES_IN_THREADS);
    expect(d.channel.permissions).toBe(d.member.permissions);
    expect(BigInt(d.app_permissions) & Permission.VIEW_CHANNEL).toBe(Permission.VIEW_CHANNEL);

    expect((await callback(server, d, { type: 4, data: { content: 'Pong in the thread' } })).status).toBe(204);
    const posted = await w.memberSession.next((p) => p.t === 'MESSAGE_CREATE' && p.d.content === 'Pong in the thread');
    expect(posted.d).toMatchObject({ channel_id: thread.id, interaction_metadata: { id: d.id, user: { id: w.member.id } } });
    const history = await server.api('GET', `/channels/${thread.id}/messages`, { token: w.member.token });
    expect(history.body.map((m: { content: string }) => m.content)).toContain('Pong in the thread');
  });

  it('a button on the bot’s message in a thread is clicked, and the bot updates the message there', async () => {
    const w = await interactionWorld(server, clients, [{ name: 'ping', description: 'Pong' }]);
    const thread = await startThread(w, 11);
    const components = [{ type: 1, components: [{ type: 2, style: 1, label: 'Go', custom_id: 'go' }] }];
    const sent = await server.api('POST', `/channels/${thread.id}/messages`, { token: w.bot.token, scheme: 'Bot', body: { content: 'choose', components } });
    expect(sent.status).toBe(200);
    const click = await server.api('POST', '/interactions/click', {
      token: w.member.token,
      body: { channel_id: thread.id, message_id: sent.body.id, custom_id: 'go' },
    });
    expect(click.status).toBe(204);
    const d = (await w.botSession.next((p) => p.t === 'INTERACTION_CREATE' && p.d.type === 3)).d;
    expect(d).toMatchObject({ channel_id: thread.id, channel: { id: thread.id, type: 11 }, message: { id: sent.body.id, channel_id: thread.id } });
    expect((await callback(server, d, { type: 7, data: { content: 'chosen' } })).status).toBe(204);
    const edited = await server.api('GET', `/channels/${thread.id}/messages/${sent.body.id}`, { token: w.member.token });
    expect(edited.body.content).toBe('chosen');
  });
});
