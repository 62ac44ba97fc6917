// A forum post with a real discord.py 2.x bot (Debian's python3-discord, unmodified): it finds the forum among its
// guild's channels, opens a post with ForumChannel.create_thread and one of the forum's two tags, and hears
// on_thread_create; checked again over HTTPS.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGuild, join as joinGuild } from '../http/guildSupport.js';
import { createBot, fileServer } from '../support/server.js';
import { killedAfterAll } from './botProcess.js';
import { PYTHON, missing, skippedWithoutDiscordPy } from './discordpyProbe.js';

if (!skippedWithoutDiscordPy('discord.py forum', 'runs a discord.py bot posting in a forum against the server')) {
  const server = await fileServer();
  const bots = killedAfterAll();

  describe('discord.py forum', () => {
    it('ForumChannel.create_thread opens a post with a tag, whose message has its id', async () => {
      expect(missing).toBeNull();
      const guild = await createGuild(server);
      const body = { name: 'help', type: 15, available_tags: [{ name: 'question' }, { name: 'solved', moderated: true }] };
      const forum = (await server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body })).body;
      const app = await joinGuild(server, guild, await createBot(server), 'Bot');
      const bot = bots.start(PYTHON, [join(import.meta.dirname, 'discordpy', 'forum.py')], {
        PARLEY_ORIGIN: server.origin,
        BOT_TOKEN: app.token,
        FORUM_ID: forum.id,
        SSL_CERT_FILE: join(server.dataDir, 'tls', 'self-signed.crt'),
      });

      const [question, solved] = forum.available_tags;
      expect((await bot.next('forum', undefined, 30_000)).data).toEqual({
        is_forum: true,
        tags: [
          { id: question.id, name: 'question', moderated: false },
          { id: solved.id, name: 'solved', moderated: true },
        ],
      });
      const posted = (await bot.next('posted')).data;
      expect(posted).toEqual({
        id: expect.any(String),
        parent_id: forum.id,
        applied_tags: [question.id],
        message_id: posted.id,
        content: 'First post from discord.py',
      });
      expect((await bot.next('thread_create', (d) => d.id === posted.id)).data).toEqual({ id: posted.id, name: 'From discord.py', parent_id: forum.id });

      const thread = await server.api('GET', `/channels/${posted.id}`, { token: guild.owner.token });
      expect(thread.body).toMatchObject({ owner_id: app.id, applied_tags: [question.id] });
      const report = await bot.next('error', undefined, 200).catch(() => null);
      expect(report).toBeNull();
    }, 40_000);
  });
}
