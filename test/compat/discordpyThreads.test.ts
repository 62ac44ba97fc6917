// Threads with a real discord.py 2.x bot (Debian's python3-discord, unmodified; discordpy/threads.py): it opens a
// public and a private thread with TextChannel.create_thread and one with Message.create_thread, posts in the public
// one, adds and removes a member with Thread.add_user/remove_user, archives and locks with Thread.edit, and lists
// TextChannel.archived_threads (public, private, joined) and Guild.active_threads, fetches a thread member and deletes
// a thread; it hears on_thread_create, on_thread_member_join/remove, on_thread_update and on_thread_delete. What it
// did is checked again over HTTPS.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { createGuild, grantRole, join as joinGuild, newMember } from '../http/guildSupport.js';
import { createBot, fileServer } from '../support/server.js';
import { killedAfterAll } from './botProcess.js';
import { PYTHON, missing, skippedWithoutDiscordPy } from './discordpyProbe.js';

if (!skippedWithoutDiscordPy('discord.py threads', 'runs a discord.py bot with threads against the server')) {
  const server = await fileServer();
  const bots = killedAfterAll();

  describe('discord.py threads', () => {
    it('creates public, private and message threads, posts, adds and removes a member, archives, locks, lists, deletes, and hears of it', async () => {
      expect(missing).toBeNull();
      const guild = await createGuild(server, undefined, 'Threads');
      const member = await newMember(server, guild);
      const app = await joinGuild(server, guild, await createBot(server), 'Bot');
      // Locking takes MANAGE_THREADS, as does listing archived private threads.
      await grantRole(server, guild, app, Permission.MANAGE_THREADS);
      const bot = bots.start(PYTHON, [join(import.meta.dirname, 'discordpy', 'threads.py')], {
        PARLEY_ORIGIN: server.origin,
        BOT_TOKEN: app.token,
        CHANNEL_ID: guild.channelId,
        MEMBER_ID: member.id,
        SSL_CERT_FILE: join(server.dataDir, 'tls', 'self-signed.crt'),
      });

      const common = { parent_id: guild.channelId, owner_id: app.id, archived: false, locked: false, auto_archive_duration: 1440, created: true };
      const pub = (await bot.next('public', undefined, 30_000)).data;
      expect(pub).toEqual({ ...common, id: expect.any(String), type: 11, name: 'py public', private: false, invitable: true });
      const priv = (await bot.next('private')).data;
      expect(priv).toEqual({ ...common, id: expect.any(String), type: 12, name: 'py private', private: true, invitable: true });
      const fromMessage = (await bot.next('from_message')).data;
      expect(fromMessage).toEqual({
        ...common,
        id: fromMessage.message_id,
        message_id: expect.any(String),
        type: 11,
        name: 'py from a message',
        private: false,
        invitable: true,
      });
      expect((await bot.next('sent')).data).toEqual({ channel_id: pub.id, content: 'hello from discord.py', in_thread: true });
      expect((await bot.next('members')).data.ids).toEqual([app.id, member.id].sort());
      expect((await bot.next('members_after_remove')).data.ids).toEqual([app.id]);
      expect((await bot.next('archived')).data).toEqual({ id: pub.id, archived: true, locked: true });
      expect((await bot.next('lists')).data).toEqual({ public: [pub.id], private: [priv.id], joined: [priv.id], active: [fromMessage.id] });
      expect((await bot.next('deleted')).data).toEqual({ id: fromMessage.id, member: member.id, member_thread: fromMessage.id });

      for (const { id, name } of [pub, priv, fromMessage]) expect((await bot.next('thread_create', (d) => d.id === id)).data.name).toBe(name);
      expect((await bot.next('thread_member_join', (d) => d.user_id === member.id)).data).toEqual({ thread_id: pub.id, user_id: member.id, joined: true });
      expect((await bot.next('thread_member_join', (d) => d.thread_id === fromMessage.id)).data.user_id).toBe(member.id);
      expect((await bot.next('thread_delete')).data).toEqual({ id: fromMessage.id, name: 'py from a message' });
      expect((await bot.next('thread_member_remove', (d) => d.user_id === member.id)).data).toEqual({ thread_id: pub.id, user_id: member.id });
      expect((await bot.next('thread_update', (d) => d.id === pub.id && d.archived)).data).toEqual({
        id: pub.id,
        was_archived: false,
        archived: true,
        locked: true,
      });
      expect((await bot.next('thread_update', (d) => d.id === priv.id && d.archived)).data).toEqual({
        id: priv.id,
        was_archived: false,
        archived: true,
        locked: false,
      });

      // What the bot did, as the API shows it to a person.
      const thread = await server.api('GET', `/channels/${pub.id}`, { token: guild.owner.token });
      expect(thread.body).toMatchObject({ message_count: 1, member_count: 1, thread_metadata: { archived: true, locked: true } });
      const history = await server.api('GET', `/channels/${pub.id}/messages`, { token: member.token });
      expect(history.body.map((m: { content: string }) => m.content)).toEqual(['hello from discord.py']);
      expect(bot.reports.filter((r) => r.event === 'error')).toEqual([]);
    }, 60_000);
  });
}
