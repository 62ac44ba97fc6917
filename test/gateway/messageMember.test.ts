// A guild message's MESSAGE_CREATE and MESSAGE_UPDATE carry its author's member without its user, and each mentioned
// member's, as the widely used API sends them: bots without the members intent make `message.author` a Member from
// it. A webhook's message and a DM carry none. Real WebSocket sessions receive what HTTPS writes cause.
import { describe, expect, it } from 'vitest';
import { MessageDispatch } from '../../contracts/dispatches.js';
import { Permission } from '../../domain/permissions.js';
import { callback, interactionWorld, invoked } from '../http/commandInteractionSupport.js';
import { createGuild, grantRole, join, newMember } from '../http/guildSupport.js';
import { fileGateway } from '../support/gateway.js';
import { createBot } from '../support/server.js';
import { expectShape } from '../support/shapes.js';

const GUILDS = 1 << 0;
const GUILD_MESSAGES = 1 << 9;
const DIRECT_MESSAGES = 1 << 12;
const MESSAGE_CONTENT = 1 << 15;
/** A bot's intents without GUILD_MEMBERS: what it knows of a message's author is what the message brings. */
const WITHOUT_MEMBERS = GUILDS | GUILD_MESSAGES | DIRECT_MESSAGES | MESSAGE_CONTENT;

const { server, gateway } = await fileGateway();

describe('a message’s member', () => {
  it('comes with a member’s guild message, created and edited, and with each mentioned member, without their users', async () => {
    const guild = await createGuild(server, undefined, 'Members');
    const bot = await createBot(server);
    await join(server, guild, bot, 'Bot');
    const member = await newMember(server, guild);
    const roleId = await grantRole(server, guild, member, Permission.MANAGE_MESSAGES, 'mods');
    const nicked = await server.api('PATCH', `/guilds/${guild.id}/members/${member.id}`, { token: guild.owner.token, body: { nick: 'Ada' } });
    expect(nicked.status).toBe(200);
    const session = await gateway.session(bot.token, WITHOUT_MEMBERS);

    const sent = await server.api('POST', `/channels/${guild.channelId}/messages`, { token: member.token, body: { content: `hi <@${guild.owner.id}>` } });
    expect(sent.status).toBe(200);
    const created = await session.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === sent.body.id);
    expectShape(created.d, MessageDispatch);
    expect(created.d.member).toEqual({
      nick: 'Ada',
      avatar: null,
      banner: null,
      roles: [roleId],
      joined_at: nicked.body.joined_at,
      premium_since: null,
      deaf: false,
      mute: false,
      flags: 0,
      pending: false,
      communication_disabled_until: null,
    });
    expect(created.d.mentions).toEqual([expect.objectContaining({ id: guild.owner.id, member: expect.objectContaining({ roles: [] }) })]);
    expect(created.d.mentions[0].member).not.toHaveProperty('user');

    const edited = await server.api('PATCH', `/channels/${guild.channelId}/messages/${sent.body.id}`, { token: member.token, body: { content: 'hello' } });
    expect(edited.status).toBe(200);
    const updated = await session.next((p) => p.t === 'MESSAGE_UPDATE' && p.d.id === sent.body.id);
    expectShape(updated.d, MessageDispatch);
    expect(updated.d.member).toEqual(created.d.member);
  });

  it('comes with a bot’s reply to an interaction: the bot is the author, and a member', async () => {
    const w = await interactionWorld(server, gateway, [{ name: 'ping', description: 'Pong' }]);
    const interaction = await invoked(server, w, 'ping');
    expect((await callback(server, interaction, { type: 4, data: { content: 'pong' } })).status).toBe(204);
    const reply = await w.memberSession.next((p) => p.t === 'MESSAGE_CREATE' && p.d.interaction_metadata?.id === interaction.id);
    expectShape(reply.d, MessageDispatch);
    expect(reply.d).toMatchObject({ author: { id: w.bot.id }, webhook_id: w.bot.applicationId, member: { roles: [], nick: null } });
    expect(reply.d.member).not.toHaveProperty('user');
  });

  it('is not sent with a webhook’s message, nor with a DM', async () => {
    const guild = await createGuild(server, undefined, 'Hooks');
    const bot = await createBot(server);
    await join(server, guild, bot, 'Bot');
    const session = await gateway.session(bot.token, WITHOUT_MEMBERS);

    const hook = await server.api('POST', `/channels/${guild.channelId}/webhooks`, { token: guild.owner.token, body: { name: 'hook' } });
    expect(hook.status).toBe(200);
    const executed = await server.api('POST', `/webhooks/${hook.body.id}/${hook.body.token}?wait=true`, { body: { content: 'from the hook' } });
    expect(executed.status).toBe(200);
    const hooked = await session.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === executed.body.id);
    expectShape(hooked.d, MessageDispatch);
    expect(hooked.d).toMatchObject({ guild_id: guild.id, webhook_id: hook.body.id });
    expect(hooked.d).not.toHaveProperty('member');

    const dm = await server.api('POST', '/users/@me/channels', { token: guild.owner.token, body: { recipient_id: bot.id } });
    expect(dm.status).toBe(200);
    const direct = await server.api('POST', `/channels/${dm.body.id}/messages`, { token: guild.owner.token, body: { content: 'psst' } });
    expect(direct.status).toBe(200);
    const received = await session.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === direct.body.id);
    expect(received.d).not.toHaveProperty('guild_id');
    expect(received.d).not.toHaveProperty('member');
  });
});
