// A real discord.py 2.x bot (Debian's python3-discord, unmodified) logs in, reads a member's message with its content,
// survives a dropped gateway connection by resuming, and on "!demo" replies, reacts, edits, reads history, sends an
// embed and a file; it chunks its guild at start-up, requests members and sets its presence. The assertions read back
// through the API (and a member's gateway session) what the server then holds. discord.py's reaction-role example
// gives and takes a role through MESSAGE_REACTION_ADD's member, whose avatar URL discord.py builds from Asset.BASE; a
// command synced globally shows in a member's command index and is answered in the member's chosen locale.
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { Permission } from '../../domain/permissions.js';
import { createGuild, grantRole, join as joinGuild, newMember } from '../http/guildSupport.js';
import { connectGateway } from '../support/gateway.js';
import { type TestBot, createBot, fileServer } from '../support/server.js';
import { killedAfterAll } from './botProcess.js';
import { PYTHON, missing, skippedWithoutDiscordPy } from './discordpyProbe.js';

const GUILDS = 1 << 0;
const GUILD_PRESENCES = 1 << 8;
const GUILD_MESSAGES = 1 << 9;
const MESSAGE_CONTENT = 1 << 15;

if (!skippedWithoutDiscordPy('discord.py compatibility', 'runs a discord.py bot against the server')) {
  const server = await fileServer();
  const bots = killedAfterAll();

  /** A guild with a bot's user and a member in it. */
  async function guildWithBot() {
    const guild = await createGuild(server);
    const app = await createBot(server);
    await joinGuild(server, guild, app, 'Bot');
    return { guild, app, member: await newMember(server, guild) };
  }

  /** Runs discordpy/`script` as `app`'s bot, pointed at this server. */
  const runBot = (script: string, app: TestBot, env: Record<string, string> = {}) =>
    bots.start(PYTHON, [join(import.meta.dirname, 'discordpy', script)], {
      PARLEY_ORIGIN: server.origin,
      BOT_TOKEN: app.token,
      SSL_CERT_FILE: join(server.dataDir, 'tls', 'self-signed.crt'),
      ...env,
    });

  describe('discord.py compatibility', () => {
    it('logs in, reads content, resumes after a dropped connection, replies, reacts, edits, reads history, sends an embed and a file', async () => {
      expect(missing).toBeNull();
      const { guild, app, member } = await guildWithBot();
      const post = async (content: string) => {
        const sent = await server.api('POST', `/channels/${guild.channelId}/messages`, { token: member.token, body: { content } });
        expect(sent.status).toBe(200);
        return sent.body.id as string;
      };

      const bot = runBot('bot.py', app);
      const ready = await bot.next('ready');
      expect(ready.data).toEqual({
        user_id: app.id,
        application_id: app.applicationId,
        guilds: [{ id: guild.id, name: 'Test Guild', channels: [guild.channelId], me: app.id }],
      });

      const hello = await post('hello');
      expect((await bot.next('message', (m) => m.id === hello)).data).toEqual({ id: hello, content: 'hello', author_id: member.id, guild_id: guild.id });

      // The server drops the bot's connection; the bot must come back on the same session with RESUME, and get
      // what was dispatched meanwhile.
      const session = [...server.gateway!.registry.all()].find((s) => s.userId === app.id)!;
      const dropped = session.connection!;
      dropped.close(4000, 'Dropped by the test');
      const demo = await post('!demo');
      await bot.next('resumed');
      expect(server.gateway!.registry.get(session.id)?.connection).not.toBe(dropped);
      expect(session.connection?.open).toBe(true);
      expect(bot.reports.filter((r) => r.event === 'ready')).toHaveLength(1);

      const done = (await bot.next('demo')).data;
      expect(done).toMatchObject({ edited: 'pong (edited)', history: ['pong (edited)', '!demo', 'hello'] });
      const read = async (id: string) => (await server.api('GET', `/channels/${guild.channelId}/messages/${id}`, { token: member.token })).body;

      const reply = await read(done.reply_id);
      expect(reply).toMatchObject({ content: 'pong (edited)', author: { id: app.id, bot: true }, message_reference: { message_id: demo } });
      expect(reply.edited_timestamp).not.toBeNull();
      expect((await read(demo)).reactions).toMatchObject([{ emoji: { name: '👍' }, count: 1, me: false }]);
      const reactors = await server.api('GET', `/channels/${guild.channelId}/messages/${demo}/reactions/${encodeURIComponent('👍')}`, { token: member.token });
      expect(reactors.body.map((u: { id: string }) => u.id)).toEqual([app.id]);

      expect((await read(done.embed_id)).embeds).toMatchObject([{ title: 'Status', description: 'all good', color: 0x00aa55 }]);
      const filed = await read(done.file_id);
      expect(filed).toMatchObject({ content: 'a file', attachments: [{ filename: 'notes.txt' }] });
      const download = await request(filed.attachments[0].url, { dispatcher: server.dispatcher });
      expect(await download.body.text()).toBe('hello from discord.py\n');

      // Members (chunked at start-up, then op 8 by prefix and by ids) and presences (op 3), seen by a member's session.
      const watcher = await connectGateway(server);
      try {
        await watcher.identify(member.token, GUILDS | GUILD_PRESENCES, { status: 'dnd', since: null, activities: [], afk: false });
        await post('!members');
        const members = (await bot.next('members')).data;
        const everyone = [guild.owner.id, app.id, member.id].sort();
        expect(members).toEqual({ cached: everyone, by_prefix: expect.arrayContaining([member.id]), by_ids: [app.id, member.id].sort(), author_status: 'dnd' });
        const update = await watcher.next((p) => p.t === 'PRESENCE_UPDATE' && p.d.user.id === app.id && p.d.status === 'idle');
        expect(update.d).toMatchObject({ guild_id: guild.id, activities: [{ name: 'the tests', type: 0 }] });
      } finally {
        watcher.close();
      }
    }, 40_000);

    it('runs discord.py’s reaction-role example: payload.member gets the role, and its avatar URL points at Parley', async () => {
      expect(missing).toBeNull();
      const { guild, app, member } = await guildWithBot();
      await grantRole(server, guild, app, Permission.MANAGE_ROLES, 'role managers');
      // Made after the bot's role, so below it: the bot may hand it out.
      const red = await server.api('POST', `/guilds/${guild.id}/roles`, { token: guild.owner.token, body: { name: 'red' } });
      const avatar = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#ff0000' } })
        .png()
        .toBuffer();
      const patched = await server.api('PATCH', '/users/@me', { token: member.token, body: { avatar: `data:image/png;base64,${avatar.toString('base64')}` } });
      expect(patched.status).toBe(200);
      const roles = async () => (await server.api('GET', `/guilds/${guild.id}/members/${member.id}`, { token: guild.owner.token })).body.roles;

      const bot = runBot('reaction_roles.py', app, { CHANNEL_ID: guild.channelId, ROLE_ID: red.body.id });
      const { role_message_id: messageId, member_ids: memberIds } = (await bot.next('ready')).data;
      // GUILD_CREATE listed only the bot (no GUILD_PRESENCES): the rest came from discord.py's startup chunking.
      expect(memberIds).toEqual([guild.owner.id, app.id, member.id].sort());
      const reaction = `/channels/${guild.channelId}/messages/${messageId}/reactions/${encodeURIComponent('🔴')}/@me`;
      expect((await server.api('PUT', reaction, { token: member.token })).status).toBe(204);
      const added = (await bot.next('added')).data;
      expect(added).toEqual({
        member_id: member.id,
        role_id: red.body.id,
        avatar_url: `${server.origin}/avatars/${member.id}/${patched.body.avatar}.png?size=1024`,
      });
      expect(await roles()).toEqual([red.body.id]);
      const image = await request(added.avatar_url, { dispatcher: server.dispatcher });
      expect([image.statusCode, image.headers['content-type']]).toEqual([200, 'image/png']);
      await image.body.dump();

      expect((await server.api('DELETE', reaction, { token: member.token })).status).toBe(204);
      expect((await bot.next('removed')).data).toEqual({ member_id: member.id, role_id: red.body.id });
      expect(await roles()).toEqual([]);
    }, 40_000);

    it('answers a globally synced command in the invoker’s locale, the guild’s beside it', async () => {
      expect(missing).toBeNull();
      const { guild, app, member } = await guildWithBot();
      expect((await server.api('PATCH', '/users/@me', { token: member.token, body: { locale: 'de' } })).status).toBe(200);
      expect((await server.api('PATCH', `/guilds/${guild.id}`, { token: guild.owner.token, body: { preferred_locale: 'fr' } })).status).toBe(200);
      const watcher = await connectGateway(server);
      try {
        await watcher.identify(member.token, GUILDS | GUILD_MESSAGES | MESSAGE_CONTENT);
        const bot = runBot('localized.py', app);
        const greetId = (await bot.next('ready', undefined, 30_000)).data.commands.greet;
        // Synced globally, the command is in the member's index of the guild.
        const index = await server.api('GET', `/guilds/${guild.id}/application-command-index`, { token: member.token });
        expect(index.body.application_commands).toEqual([expect.objectContaining({ id: greetId, name: 'greet' })]);

        const body = {
          type: 2,
          application_id: app.applicationId,
          guild_id: guild.id,
          channel_id: guild.channelId,
          data: { id: greetId, name: 'greet', type: 1 },
        };
        expect((await server.api('POST', '/interactions', { token: member.token, body })).status).toBe(204);
        expect((await bot.next('greeted')).data).toEqual({ locale: 'de', guild_locale: 'fr', text: 'Hallo' });
        await watcher.next((p) => p.t === 'MESSAGE_CREATE' && p.d.content === 'Hallo' && p.d.author.id === app.id);
      } finally {
        watcher.close();
      }
    }, 40_000);
  });
}
