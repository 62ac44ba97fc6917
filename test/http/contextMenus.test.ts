// Context menus, selects and who may invoke, over the real HTTPS API with real gateway sessions: USER and MESSAGE
// commands invoked with data.target_id (the bot's INTERACTION_CREATE with data.resolved), user, role, mentionable and
// channel selects on the bot's messages and a webhook's (values the clicker can see, resolved for the bot;
// default_values kept and served), default_member_permissions and contexts at invocation and in a member's command
// index; every refusal appends nothing.
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { fileGateway } from '../support/gateway.js';
import { type ApiResponse, registerUser, expectNothingAppendedSince } from '../support/server.js';
import { type InteractionWorld, interactionWorld, invoke } from './commandInteractionSupport.js';
import { createGuild, expectRefusedWithoutEvents, grantRole } from './guildSupport.js';

const { server, gateway: clients } = await fileGateway();

const COMMANDS = [
  { name: 'Inspect user', type: 2 },
  { name: 'Quote message', type: 3 },
  { name: 'Ban hammer', type: 2, default_member_permissions: String(Permission.BAN_MEMBERS) },
  { name: 'admin', description: 'Administrators only', default_member_permissions: '0' },
  { name: 'dm-only', description: 'Only in DMs with the bot', contexts: [1] },
  { name: 'hello', description: 'Anyone' },
];

const world = (): Promise<InteractionWorld> => interactionWorld(server, clients, COMMANDS);

/** The member's invocation of a context menu command on `targetId`. */
const onTarget = (w: InteractionWorld, name: string, targetId: string, token = w.member.token) =>
  invoke(server, w, name, undefined, { token, data: { target_id: targetId } });

async function nextInteraction(w: InteractionWorld, test: (d: any) => boolean) {
  return (await w.botSession.next((p) => p.t === 'INTERACTION_CREATE' && test(p.d))).d;
}

/** A 400 INVALID_FORM_BODY whose first problem is at `path`, with nothing appended. */
async function refusedAt(request: () => Promise<ApiResponse>, path: string) {
  const before = await server.runtime.store.headPosition();
  const response = await request();
  expect({ status: response.status, code: response.body.code, path: response.body.errors?.[0]?.path }).toEqual({
    status: 400,
    code: 'INVALID_FORM_BODY',
    path,
  });
  await expectNothingAppendedSince(server, before);
  return response.body.errors;
}

const botSend = (w: InteractionWorld, body: object) =>
  server.api('POST', `/channels/${w.guild.channelId}/messages`, { token: w.bot.token, scheme: 'Bot', body });
const click = (w: InteractionWorld, messageId: string, customId: string, values: string[], token = w.member.token) =>
  server.api('POST', '/interactions/click', { token, body: { channel_id: w.guild.channelId, message_id: messageId, custom_id: customId, values } });

describe('context menu commands', () => {
  it('a USER command reaches the bot with target_id and the target resolved as user and member', async () => {
    const w = await world();
    expect((await onTarget(w, 'Inspect user', w.other.id)).status).toBe(204);
    const d = await nextInteraction(w, (d) => d.data.name === 'Inspect user');
    expect(d).toMatchObject({
      type: 2,
      member: { user: { id: w.member.id } },
      data: {
        id: w.commands['Inspect user'].id,
        name: 'Inspect user',
        type: 2,
        target_id: w.other.id,
        resolved: { users: { [w.other.id]: { id: w.other.id } }, members: { [w.other.id]: { roles: [] } } },
      },
    });
    expect(d.data.options).toEqual([]);
    // The bot answers it like a slash command.
    expect((await server.api('POST', `/interactions/${d.id}/${d.token}/callback`, { body: { type: 4, data: { content: 'seen' } } })).status).toBe(204);
  });

  it('a MESSAGE command reaches the bot with the target message resolved', async () => {
    const w = await world();
    const sent = await server.api('POST', `/channels/${w.guild.channelId}/messages`, { token: w.other.token, body: { content: 'quote me' } });
    expect((await onTarget(w, 'Quote message', sent.body.id)).status).toBe(204);
    const d = await nextInteraction(w, (d) => d.data.name === 'Quote message');
    expect(d.data).toMatchObject({
      type: 3,
      target_id: sent.body.id,
      resolved: { messages: { [sent.body.id]: { id: sent.body.id, content: 'quote me', author: { id: w.other.id }, channel_id: w.guild.channelId } } },
    });
  });

  it('refuses a target the member cannot see: a user outside the guild, a message of another channel or hidden from them', async () => {
    const w = await world();
    const stranger = await registerUser(server);
    await expectRefusedWithoutEvents(server, () => onTarget(w, 'Inspect user', stranger.id), 404, 'UNKNOWN_USER');
    await expectRefusedWithoutEvents(server, () => onTarget(w, 'Inspect user', '123456789012345678'), 404, 'UNKNOWN_USER');
    const elsewhere = await createGuild(server);
    const foreign = await server.api('POST', `/channels/${elsewhere.channelId}/messages`, { token: elsewhere.owner.token, body: { content: 'not here' } });
    await expectRefusedWithoutEvents(server, () => onTarget(w, 'Quote message', foreign.body.id), 404, 'UNKNOWN_MESSAGE');
    // An ephemeral answer to someone else does not exist for the member.
    expect((await onTarget(w, 'Inspect user', w.member.id, w.other.token)).status).toBe(204);
    const d = await nextInteraction(w, (d) => d.data.name === 'Inspect user' && d.member.user.id === w.other.id);
    const reply = await server.api('POST', `/interactions/${d.id}/${d.token}/callback?with_response=true`, {
      body: { type: 4, data: { content: 'only for other', flags: 64 } },
    });
    await expectRefusedWithoutEvents(server, () => onTarget(w, 'Quote message', reply.body.resource.message.id), 404, 'UNKNOWN_MESSAGE');
    // Without READ_MESSAGE_HISTORY no message is readable.
    const mine = await server.api('POST', `/channels/${w.guild.channelId}/messages`, { token: w.member.token, body: { content: 'mine' } });
    const deny = await server.api('PUT', `/channels/${w.guild.channelId}/permissions/${w.guild.id}`, {
      token: w.guild.owner.token,
      body: { type: 0, allow: '0', deny: String(Permission.READ_MESSAGE_HISTORY) },
    });
    expect(deny.status).toBe(204);
    await expectRefusedWithoutEvents(server, () => onTarget(w, 'Quote message', mine.body.id), 403, 'MISSING_PERMISSIONS');
  });

  it('refuses options beside a target, and a target of the wrong kind', async () => {
    const w = await world();
    const withOptions = () => invoke(server, w, 'Inspect user', [{ name: 'x', type: 3, value: 'y' }], { data: { target_id: w.other.id } });
    await expectRefusedWithoutEvents(server, withOptions, 400, 'INVALID_FORM_BODY');
    await expectRefusedWithoutEvents(server, () => onTarget(w, 'Quote message', w.other.id), 404, 'UNKNOWN_MESSAGE');
  });
});

describe('who may invoke', () => {
  it('enforces default_member_permissions on context menus and contexts, and the command index leaves out the rest', async () => {
    const w = await world();
    await expectRefusedWithoutEvents(server, () => onTarget(w, 'Ban hammer', w.other.id), 403, 'MISSING_PERMISSIONS');
    await expectRefusedWithoutEvents(server, () => invoke(server, w, 'admin'), 403, 'MISSING_PERMISSIONS');
    await expectRefusedWithoutEvents(server, () => invoke(server, w, 'dm-only'), 404, 'UNKNOWN_APPLICATION_COMMAND');

    const index = async (token: string) => {
      const response = await server.api('GET', `/guilds/${w.guild.id}/application-command-index`, { token });
      expect(response.status).toBe(200);
      return response.body as { applications: { id: string; bot_id: string }[]; application_commands: { name: string }[]; version: string };
    };
    const names = async (token: string) => (await index(token)).application_commands.map((c) => c.name).sort();
    const forMember = await index(w.member.token);
    expect(forMember.applications).toEqual([expect.objectContaining({ id: w.bot.applicationId, bot_id: w.bot.id })]);
    expect(await names(w.member.token)).toEqual(['Inspect user', 'Quote message', 'hello']);
    expect(await names(w.guild.owner.token)).toEqual(['Ban hammer', 'Inspect user', 'Quote message', 'admin', 'hello']);

    await grantRole(server, w.guild, w.member, Permission.BAN_MEMBERS, 'banners');
    expect(await names(w.member.token)).toEqual(['Ban hammer', 'Inspect user', 'Quote message', 'hello']);
    expect((await onTarget(w, 'Ban hammer', w.other.id)).status).toBe(204);
    // A new command changes the index's version.
    const put = await server.api('POST', `/applications/${w.bot.applicationId}/guilds/${w.guild.id}/commands`, {
      token: w.bot.token,
      scheme: 'Bot',
      body: { name: 'more', description: 'More' },
    });
    expect(put.status).toBe(201);
    expect((await index(w.member.token)).version).not.toBe(forMember.version);

    // Outsiders get nothing.
    const stranger = await registerUser(server);
    const refused = await server.api('GET', `/guilds/${w.guild.id}/application-command-index`, { token: stranger.token });
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 404, code: 'UNKNOWN_GUILD' });
  });

  it('the command index lists the application’s global commands beside the guild’s own, as most bots register them', async () => {
    const w = await world();
    const global = await server.api('PUT', `/applications/${w.bot.applicationId}/commands`, {
      token: w.bot.token,
      scheme: 'Bot',
      body: [
        { name: 'ping', description: 'Everywhere' },
        { name: 'Global user', type: 2 },
        { name: 'dm-global', description: 'Only in DMs', contexts: [1] },
      ],
    });
    expect(global.status).toBe(200);
    const index = await server.api('GET', `/guilds/${w.guild.id}/application-command-index`, { token: w.member.token });
    expect(index.status).toBe(200);
    const listed = (index.body.application_commands as { name: string; guild_id?: string }[]).map((c) => `${c.name}${c.guild_id ? ' (guild)' : ''}`).sort();
    expect(listed).toEqual(['Global user', 'Inspect user (guild)', 'Quote message (guild)', 'hello (guild)', 'ping']);
  });
});

describe('user, role, mentionable and channel selects', () => {
  async function selectsMessage(w: InteractionWorld, roleId: string) {
    const components = [
      { type: 1, components: [{ type: 5, custom_id: 'who', max_values: 2, default_values: [{ id: w.member.id, type: 'user' }] }] },
      { type: 1, components: [{ type: 6, custom_id: 'role', default_values: [{ id: roleId, type: 'role' }] }] },
      { type: 1, components: [{ type: 7, custom_id: 'any', max_values: 2 }] },
      { type: 1, components: [{ type: 8, custom_id: 'where', channel_types: [0] }] },
    ];
    const sent = await botSend(w, { content: 'choose', components });
    expect(sent.status).toBe(200);
    return sent.body as { id: string; components: unknown[] };
  }

  it('keeps and serves default_values, and refuses them malformed with their paths', async () => {
    const w = await world();
    const roleId = await grantRole(server, w.guild, w.other, 0n, 'picked');
    const message = await selectsMessage(w, roleId);
    const read = await server.api('GET', `/channels/${w.guild.channelId}/messages/${message.id}`, { token: w.member.token });
    expect(read.body.components[0].components[0]).toEqual({ type: 5, custom_id: 'who', max_values: 2, default_values: [{ id: w.member.id, type: 'user' }] });
    expect(read.body.components[3].components[0]).toEqual({ type: 8, custom_id: 'where', channel_types: [0] });
    const wrong = () => botSend(w, { components: [{ type: 1, components: [{ type: 5, custom_id: 'x', default_values: [{ id: roleId, type: 'role' }] }] }] });
    expect(await refusedAt(wrong, 'components.0.components.0.default_values.0.type')).toEqual([
      { path: 'components.0.components.0.default_values.0.type', message: 'Must be one of: user' },
    ]);
  });

  it('delivers the chosen ids with data.values and data.resolved', async () => {
    const w = await world();
    const roleId = await grantRole(server, w.guild, w.other, 0n, 'picked');
    const message = await selectsMessage(w, roleId);
    expect((await click(w, message.id, 'who', [w.other.id, w.member.id])).status).toBe(204);
    const users = await nextInteraction(w, (d) => d.type === 3 && d.data.custom_id === 'who');
    expect(users.data).toMatchObject({
      component_type: 5,
      values: [w.other.id, w.member.id],
      resolved: { users: { [w.other.id]: { id: w.other.id }, [w.member.id]: { id: w.member.id } }, members: { [w.other.id]: { roles: [roleId] } } },
    });
    expect((await click(w, message.id, 'any', [roleId, w.other.id])).status).toBe(204);
    const any = await nextInteraction(w, (d) => d.type === 3 && d.data.custom_id === 'any');
    expect(Object.keys(any.data.resolved.roles)).toEqual([roleId]);
    expect(Object.keys(any.data.resolved.users)).toEqual([w.other.id]);
    expect((await click(w, message.id, 'where', [w.guild.channelId])).status).toBe(204);
    const where = await nextInteraction(w, (d) => d.type === 3 && d.data.custom_id === 'where');
    expect(where.data.resolved.channels[w.guild.channelId]).toMatchObject({ id: w.guild.channelId, type: 0, permissions: expect.any(String) });
    expect((await click(w, message.id, 'role', [roleId])).status).toBe(204);
    expect((await nextInteraction(w, (d) => d.type === 3 && d.data.custom_id === 'role')).data.resolved.roles[roleId]).toMatchObject({ name: 'picked' });
  });

  it('refuses ids the clicker cannot see, of the wrong kind, too many, or not ids, each at its path', async () => {
    const w = await world();
    const roleId = await grantRole(server, w.guild, w.other, 0n, 'picked');
    const message = await selectsMessage(w, roleId);
    const stranger = await registerUser(server);
    const elsewhere = await createGuild(server);
    const voice = await server.api('POST', `/guilds/${w.guild.id}/channels`, { token: w.guild.owner.token, body: { name: 'talk', type: 2 } });
    expect(voice.status).toBe(201);
    const cases: [string, string[], string][] = [
      ['who', [stranger.id], 'values.0'],
      ['who', [w.other.id, w.member.id, w.guild.owner.id], 'values'],
      ['who', ['not-an-id'], 'values.0'],
      ['role', [w.member.id], 'values.0'],
      ['any', [elsewhere.channelId], 'values.0'],
      ['where', [elsewhere.channelId], 'values.0'],
      ['where', [voice.body.id], 'values.0'],
    ];
    for (const [customId, values, path] of cases) await refusedAt(() => click(w, message.id, customId, values), path);
  });

  it('a webhook message’s select takes only ids the clicker can see, and delivers the values', async () => {
    const w = await world();
    const hook = await server.api('POST', `/channels/${w.guild.channelId}/webhooks`, { token: w.guild.owner.token, body: { name: 'hook' } });
    expect(hook.status).toBe(200);
    const sent = await server.api('POST', `/webhooks/${hook.body.id}/${hook.body.token}?wait=true`, {
      body: { content: 'pick', components: [{ type: 1, components: [{ type: 5, custom_id: 'who' }] }] },
    });
    expect(sent.status).toBe(200);
    const stranger = await registerUser(server);
    await expectRefusedWithoutEvents(server, () => click(w, sent.body.id, 'who', [stranger.id]), 400, 'INVALID_FORM_BODY');
    expect((await click(w, sent.body.id, 'who', [w.other.id])).status).toBe(204);
    const clicks = await server.api('GET', `/webhooks/${hook.body.id}/interactions`, { token: w.guild.owner.token });
    expect(clicks.body[0]).toMatchObject({ custom_id: 'who', component_type: 5, values: [w.other.id] });
  });
});
