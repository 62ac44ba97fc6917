// An unmodified discord.js 14 bot posting in a forum, run as its own process: only the REST base address points at
// Parley. Once ready it reads FORUM_ID's tags, opens a post with channel.threads.create({ name, message, appliedTags })
// (its message with a file, so multipart), fetches the post's starter message, and reports each result and the
// threadCreate it receives as JSON lines on stdout for forum.test.ts.
import { Client, type ForumChannel, GatewayIntentBits } from 'discord.js';
import { listener, report, run } from './botSide.js';

const client = new Client({
  intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages],
  rest: { api: `${process.env.PARLEY_ORIGIN}/api`, version: '10' },
});

client.on('threadCreate', (thread, newlyCreated) => report('threadCreate', { id: thread.id, appliedTags: thread.appliedTags, newlyCreated }));

client.once(
  'clientReady',
  listener(async () => {
    const forum = (await client.channels.fetch(process.env.FORUM_ID!)) as ForumChannel;
    const tags = forum.availableTags.map((tag) => ({ id: tag.id, name: tag.name, moderated: tag.moderated }));
    report('forum', { type: forum.type, tags, defaultRateLimit: forum.defaultThreadRateLimitPerUser, layout: forum.defaultForumLayout });
    const question = forum.availableTags.find((tag) => tag.name === 'question')!;
    const post = await forum.threads.create({
      name: 'How do I start?',
      message: { content: 'First post from discord.js', files: [{ attachment: Buffer.from('notes'), name: 'notes.txt' }] },
      appliedTags: [question.id],
    });
    const starter = await post.fetchStarterMessage();
    report('posted', {
      id: post.id,
      type: post.type,
      parentId: post.parentId,
      appliedTags: post.appliedTags,
      rateLimitPerUser: post.rateLimitPerUser,
      starter: { id: starter?.id, content: starter?.content, attachments: starter?.attachments.map((a) => a.name) },
    });
  }),
);

void run(client);
