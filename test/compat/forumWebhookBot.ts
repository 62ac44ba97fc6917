// An unmodified discord.js 14 bot using a forum's flags and webhook, run as its own process: only the REST base address
// points at Parley. Once ready it sets REQUIRE_TAG on FORUM_ID with forum.edit({ flags }), tries a post without a tag,
// makes a webhook that opens a post with webhook.send({ threadName, appliedTags }) and tries a send naming no post,
// then pins the post with thread.pin(); it reports each result as JSON lines on stdout for forumWebhook.test.ts.
import { ChannelFlags, Client, DiscordAPIError, type ForumChannel, GatewayIntentBits, type ThreadChannel } from 'discord.js';
import { listener, report, run } from './botSide.js';

const client = new Client({
  intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages],
  rest: { api: `${process.env.PARLEY_ORIGIN}/api`, version: '10' },
});

/** The API error code a request is refused with. */
const refusal = (request: Promise<unknown>) =>
  request.then(
    () => null,
    (error: unknown) => (error instanceof DiscordAPIError ? error.code : String(error)),
  );

client.once(
  'clientReady',
  listener(async () => {
    const forum = (await client.channels.fetch(process.env.FORUM_ID!)) as ForumChannel;
    const edited = await forum.edit({ flags: ChannelFlags.RequireTag });
    report('flags', { requireTag: edited.flags.has(ChannelFlags.RequireTag) });
    report('untagged', { code: await refusal(forum.threads.create({ name: 'No tag', message: { content: 'x' } })) });

    const [tag] = forum.availableTags;
    const hook = await forum.createWebhook({ name: 'Releases' });
    const message = await hook.send({ content: 'v3 is out', threadName: 'Release v3', appliedTags: [tag.id] });
    report('webhookPost', { id: message.id, channelId: message.channelId, webhookId: message.webhookId });
    report('noThread', { code: await refusal(hook.send({ content: 'where?' })) });

    const post = (await client.channels.fetch(message.channelId)) as ThreadChannel;
    const pinned = await post.pin();
    report('pinned', { id: pinned.id, pinned: pinned.flags.has(ChannelFlags.Pinned), appliedTags: pinned.appliedTags });
  }),
);

void run(client);
