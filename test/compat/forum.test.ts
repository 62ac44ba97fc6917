// A forum post with an unmodified discord.js 14 bot (its own process, only its base address pointed at Parley): it
// reads a forum with two tags, opens a post with one of them through channel.threads.create({ name, message,
// appliedTags }), and hears threadCreate; checked again over HTTPS.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGuild, join as joinGuild } from '../http/guildSupport.js';
import { createBot, fileServer } from '../support/server.js';
import { killedAfterAll } from './botProcess.js';

const server = await fileServer();
const bots = killedAfterAll();

describe('a forum with discord.js', () => {
  it('takes a post with one of its two tags, whose starter message has the post’s id', async () => {
    const guild = await createGuild(server, undefined, 'Forum');
    const body = {
      name: 'help',
      type: 15,
      available_tags: [{ name: 'question' }, { name: 'solved', moderated: true }],
      default_thread_rate_limit_per_user: 10,
    };
    const forum = (await server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body })).body;
    const app = await joinGuild(server, guild, await createBot(server), 'Bot');
    const bot = bots.start(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'forumBot.ts')], {
      PARLEY_ORIGIN: server.origin,
      BOT_TOKEN: app.token,
      FORUM_ID: forum.id,
      NODE_EXTRA_CA_CERTS: join(server.dataDir, 'tls', 'self-signed.crt'),
    });

    const [question, solved] = forum.available_tags;
    expect((await bot.next('forum', undefined, 30_000)).data).toEqual({
      type: 15,
      tags: [
        { id: question.id, name: 'question', moderated: false },
        { id: solved.id, name: 'solved', moderated: true },
      ],
      defaultRateLimit: 10,
      layout: 0,
    });
    const posted = (await bot.next('posted')).data;
    expect(posted).toEqual({
      id: expect.any(String),
      type: 11,
      parentId: forum.id,
      appliedTags: [question.id],
      rateLimitPerUser: 10,
      starter: { id: posted.id, content: 'First post from discord.js', attachments: ['notes.txt'] },
    });
    expect((await bot.next('threadCreate', (d) => d.id === posted.id)).data).toEqual({ id: posted.id, appliedTags: [question.id], newlyCreated: true });

    // What the bot did, as the API shows it to a person.
    const thread = await server.api('GET', `/channels/${posted.id}`, { token: guild.owner.token });
    expect(thread.body).toMatchObject({ parent_id: forum.id, owner_id: app.id, applied_tags: [question.id], last_message_id: posted.id });
    const report = await bot.next('error', undefined, 200).catch(() => null);
    expect(report).toBeNull();
  });
});
