// A real discord.py 2.x bot (Debian's python3-discord, unmodified; discordpy/modals.py) syncs its slash commands with
// an app_commands.CommandTree, answers /feedback with a discord.ui.Modal read in its on_submit, and completes /fruit's
// option with @app_commands.autocomplete. The member's side is a real gateway session and the HTTPS API, as a user's
// client: the modal and the choices reach its session, and its submit and invocation go through POST /interactions.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Intent } from '../../gateway/protocol.js';
import { createGuild, join as joinGuild, newMember } from '../http/guildSupport.js';
import { type GatewayClient, connectGateway } from '../support/gateway.js';
import { type TestServer, createBot, startTestServer } from '../support/server.js';
import { type BotProcess, startBotProcess } from './botProcess.js';
import { PYTHON, missing, skippedWithoutDiscordPy } from './discordpyProbe.js';

if (!skippedWithoutDiscordPy('discord.py modals and autocomplete', 'runs a discord.py bot with a modal and autocomplete against the server')) {
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

  describe('discord.py modals and autocomplete', () => {
    it('sends a discord.ui.Modal and reads it in on_submit; completes an option with app_commands.autocomplete', async () => {
      expect(missing).toBeNull();
      const guild = await createGuild(server);
      const app = await createBot(server);
      await joinGuild(server, guild, app, 'Bot');
      const member = await newMember(server, guild);
      session = await connectGateway(server);
      await session.identify(member.token, Intent.GUILDS | Intent.GUILD_MESSAGES | Intent.MESSAGE_CONTENT);
      const memberSession = session;

      bot = startBotProcess(PYTHON, [join(import.meta.dirname, 'discordpy', 'modals.py')], {
        PARLEY_ORIGIN: server.origin,
        BOT_TOKEN: app.token,
        SSL_CERT_FILE: join(server.dataDir, 'tls', 'self-signed.crt'),
      });
      const ready = await bot.next('ready', undefined, 30_000);
      expect(ready.data.user_id).toBe(app.id);
      const commands: Record<string, string> = ready.data.commands;
      expect(Object.keys(commands).sort()).toEqual(['feedback', 'fruit']);

      const send = async (type: number, data: object) => {
        const body = { type, application_id: app.applicationId, guild_id: guild.id, channel_id: guild.channelId, data, nonce: `${type}-${Date.now()}` };
        const response = await server.api('POST', '/interactions', { token: member.token, body });
        expect(response.status, response.text).toBe(204);
        return body.nonce;
      };

      // The modal: shown to the member's session, submitted, read by on_submit, answered with a reply.
      const nonce = await send(2, { id: commands.feedback, name: 'feedback', type: 1 });
      const shown = (await bot.next('modal_sent', undefined, 15_000)).data;
      const modal = (await memberSession.next((p) => p.t === 'INTERACTION_MODAL_CREATE' && p.d.nonce === nonce, 15_000)).d;
      expect(modal).toMatchObject({
        id: shown.id,
        custom_id: 'feedback-form',
        title: 'Your feedback',
        components: [
          { type: 1, components: [{ type: 4, custom_id: 'subject', label: 'Subject', style: 1, min_length: 3, max_length: 40 }] },
          { type: 1, components: [{ type: 4, custom_id: 'details', label: 'Details', style: 2, required: false }] },
        ],
      });
      await send(5, {
        id: modal.id,
        custom_id: modal.custom_id,
        components: [{ type: 1, components: [{ type: 4, custom_id: 'subject', value: 'Splendid' }] }],
      });
      const submitted = (await bot.next('feedback', undefined, 15_000)).data;
      expect(submitted).toEqual({ submit_id: expect.any(String), type: 5, user_id: member.id, subject: 'Splendid', details: '' });
      const reply = await memberSession.next((p) => p.t === 'MESSAGE_CREATE' && p.d.content === 'Thanks for "Splendid"', 15_000);
      expect(reply.d).toMatchObject({ author: { id: app.id }, interaction_metadata: { id: submitted.submit_id, type: 5 } });

      // Autocomplete: the callback sees what was typed; its choices reach the member's session; then the invocation.
      const asked = await send(4, { id: commands.fruit, name: 'fruit', type: 1, options: [{ type: 3, name: 'name', value: 'b', focused: true }] });
      expect((await bot.next('autocomplete', undefined, 15_000)).data).toEqual({ current: 'b', type: 4, command: 'fruit' });
      const choices = await memberSession.next((p) => p.t === 'APPLICATION_COMMAND_AUTOCOMPLETE_RESPONSE' && p.d.nonce === asked, 15_000);
      expect(choices.d.choices).toEqual([
        { name: 'BANANA', value: 'banana' },
        { name: 'BLUEBERRY', value: 'blueberry' },
      ]);
      await send(2, { id: commands.fruit, name: 'fruit', type: 1, options: [{ type: 3, name: 'name', value: 'banana' }] });
      expect((await bot.next('fruit', undefined, 15_000)).data).toEqual({ name: 'banana' });
      expect(bot.reports.filter((r) => r.event === 'error')).toEqual([]);
    }, 60_000);
  });
}
