// Context menu commands with a real discord.py 2.x bot (Debian's python3-discord, unmodified): it declares a USER and
// a MESSAGE command with app_commands.context_menu and registers them with CommandTree.sync(); a member's session
// invokes them on another member and on their message (POST /interactions with data.target_id), discord.py builds the
// Member and the Message from data.resolved and calls the commands, whose answers the member sees.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Intent } from '../../gateway/protocol.js';
import { createGuild, join as joinGuild, newMember } from '../http/guildSupport.js';
import { type GatewayClient, connectGateway } from '../support/gateway.js';
import { type TestServer, createBot, startTestServer } from '../support/server.js';
import { type BotProcess, startBotProcess } from './botProcess.js';
import { PYTHON, missing, skippedWithoutDiscordPy } from './discordpyProbe.js';

if (!skippedWithoutDiscordPy('discord.py context menus', 'runs a discord.py bot with context menus against the server')) {
  let server: TestServer;
  let bot: BotProcess | null = null;
  let session: GatewayClient | null = null;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    bot?.child.kill('SIGKILL');
    session?.close();
    await server.close();
  });

  describe('discord.py context menus', () => {
    it('app_commands.context_menu: a USER command gets the Member, a MESSAGE command the Message', async () => {
      expect(missing).toBeNull();
      const guild = await createGuild(server);
      const app = await createBot(server);
      await joinGuild(server, guild, app, 'Bot');
      const member = await newMember(server, guild);
      const other = await newMember(server, guild);
      session = await connectGateway(server);
      await session.identify(member.token, Intent.GUILDS | Intent.GUILD_MESSAGES | Intent.MESSAGE_CONTENT);

      bot = startBotProcess(PYTHON, [join(import.meta.dirname, 'discordpy', 'contextMenus.py')], {
        PARLEY_ORIGIN: server.origin,
        BOT_TOKEN: app.token,
        SSL_CERT_FILE: join(server.dataDir, 'tls', 'self-signed.crt'),
      });
      const ready = (await bot.next('ready', undefined, 30_000)).data;
      expect(ready.commands).toEqual({ 'Inspect user': { id: expect.any(String), type: 2 }, 'Quote message': { id: expect.any(String), type: 3 } });
      const invoke = async (name: string, targetId: string) => {
        const { id, type } = ready.commands[name];
        const body = {
          type: 2,
          application_id: app.applicationId,
          guild_id: guild.id,
          channel_id: guild.channelId,
          data: { id, name, type, target_id: targetId },
        };
        expect((await server.api('POST', '/interactions', { token: member.token, body })).status).toBe(204);
      };

      await invoke('Inspect user', other.id);
      expect((await bot.next('user')).data).toEqual({ target_id: other.id, name: other.username, is_member: true, guild_id: guild.id });
      await session.next((p) => p.t === 'MESSAGE_CREATE' && p.d.content === `That is ${other.username}` && p.d.flags === 64);

      const said = await server.api('POST', `/channels/${guild.channelId}/messages`, { token: other.token, body: { content: 'worth quoting' } });
      await invoke('Quote message', said.body.id);
      expect((await bot.next('message')).data).toEqual({ target_id: said.body.id, content: 'worth quoting', author_id: other.id, channel_id: guild.channelId });
      await session.next((p) => p.t === 'MESSAGE_CREATE' && p.d.content === 'Quoting: worth quoting');
    }, 40_000);
  });
}
