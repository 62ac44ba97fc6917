// Context menus, a user select and Components V2 with an unmodified discord.js 14 bot (its own process, only its base
// address pointed at Parley): it registers a USER and a MESSAGE command with client.application.commands.set(); a
// member's session invokes them on another member and on their message (POST /interactions with data.target_id) and
// the bot reads targetUser/targetMember and targetMessage; a slash command makes it post a UserSelectMenuBuilder and a
// ContainerBuilder/TextDisplayBuilder layout (flag IsComponentsV2), which it fetches back; the member picks users and
// the bot reads interaction.users. Each answer is checked where people see it.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Intent } from '../../gateway/protocol.js';
import { type TestGuild, createGuild, join as joinGuild, newMember } from '../http/guildSupport.js';
import { type GatewayClient, connectGateway } from '../support/gateway.js';
import { type TestBot, type TestServer, type TestUser, createBot, startTestServer } from '../support/server.js';
import { type BotProcess, startBotProcess } from './botProcess.js';

let server: TestServer;
let guild: TestGuild;
let member: TestUser;
let other: TestUser;
let app: TestBot;
let bot: BotProcess;
let commands: Record<string, { id: string; type: number }>;
let memberSession: GatewayClient;

beforeAll(async () => {
  server = await startTestServer();
  guild = await createGuild(server, undefined, 'Menus');
  member = await newMember(server, guild);
  other = await newMember(server, guild);
  app = (await joinGuild(server, guild, await createBot(server), 'Bot')) as TestBot;
  memberSession = await connectGateway(server);
  await memberSession.identify(member.token, Intent.GUILDS | Intent.GUILD_MESSAGES | Intent.MESSAGE_CONTENT);
  bot = startBotProcess(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'contextMenusBot.ts')], {
    PARLEY_ORIGIN: server.origin,
    BOT_TOKEN: app.token,
    NODE_EXTRA_CA_CERTS: join(server.dataDir, 'tls', 'self-signed.crt'),
  });
  const ready = await bot.next('ready', undefined, 30_000);
  expect(ready.data).toMatchObject({ userId: app.id, applicationId: app.applicationId });
  commands = ready.data.commands;
});
afterAll(async () => {
  bot?.child.kill('SIGKILL');
  memberSession?.close();
  await server?.close();
});

/** The member's client invoking a command in #general, as the widely used API's clients send it. */
async function invoke(name: string, targetId?: string) {
  const { id, type } = commands[name];
  const body = {
    type: 2,
    application_id: app.applicationId,
    guild_id: guild.id,
    channel_id: guild.channelId,
    data: { id, name, type, ...(targetId ? { target_id: targetId } : {}) },
  };
  const response = await server.api('POST', '/interactions', { token: member.token, body });
  expect(response.status).toBe(204);
}

const read = async (messageId: string) => (await server.api('GET', `/channels/${guild.channelId}/messages/${messageId}`, { token: member.token })).body;

describe('context menus, selects and Components V2 with discord.js', () => {
  it('registers a USER and a MESSAGE command with commands.set()', () => {
    expect(commands['Inspect user'].type).toBe(2);
    expect(commands['Quote message'].type).toBe(3);
  });

  it('a USER command: isUserContextMenuCommand(), targetUser and targetMember', async () => {
    await invoke('Inspect user', other.id);
    const { data } = await bot.next('user');
    expect(data).toEqual({ isUser: true, targetId: other.id, targetUsername: other.username, targetMemberId: other.id });
    await memberSession.next((p) => p.t === 'MESSAGE_CREATE' && p.d.content === `That is ${other.username}` && p.d.flags === 64);
  });

  it('a MESSAGE command: isMessageContextMenuCommand() and targetMessage', async () => {
    const said = await server.api('POST', `/channels/${guild.channelId}/messages`, { token: other.token, body: { content: 'worth quoting' } });
    await invoke('Quote message', said.body.id);
    const { data } = await bot.next('message');
    expect(data).toEqual({ isMessage: true, targetId: said.body.id, content: 'worth quoting', authorId: other.id });
    await memberSession.next((p) => p.t === 'MESSAGE_CREATE' && p.d.content === 'Quoting: worth quoting');
  });

  it('a UserSelectMenuBuilder select: isUserSelectMenu() and the users collection; a ContainerBuilder layout read back', async () => {
    await invoke('panel');
    const { data: panel } = await bot.next('panel');
    expect(panel.layoutFlags & (1 << 15)).toBe(1 << 15);
    expect(panel.layoutComponents).toEqual([
      {
        type: 17,
        accent_color: 0x5865f2,
        components: [
          { type: 10, content: '## Layout' },
          { type: 10, content: 'Built with discord.js' },
          { type: 1, components: [{ type: 2, custom_id: 'ok', label: 'OK', style: 3 }] },
        ],
      },
    ]);
    expect(await read(panel.layoutId)).toMatchObject({ content: '', flags: 1 << 15, components: panel.layoutComponents });
    expect((await read(panel.pickerId)).components[0].components[0]).toMatchObject({
      type: 5,
      custom_id: 'who',
      max_values: 2,
      default_values: [{ id: member.id, type: 'user' }],
    });

    const clicked = await server.api('POST', '/interactions/click', {
      token: member.token,
      body: { channel_id: guild.channelId, message_id: panel.pickerId, custom_id: 'who', values: [other.id, member.id] },
    });
    expect(clicked.status).toBe(204);
    const { data } = await bot.next('select');
    expect(data.isUserSelect).toBe(true);
    expect(data.values).toEqual([other.id, member.id]);
    expect(data.users.sort()).toEqual([other.id, member.id].sort());
    expect(data.members.sort()).toEqual([other.id, member.id].sort());
    await memberSession.next((p) => p.t === 'MESSAGE_UPDATE' && p.d.id === panel.pickerId && p.d.content?.startsWith('Picked'));
  });
});
