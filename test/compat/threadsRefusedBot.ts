// An unmodified discord.js 14 bot without the thread permissions, run as its own process with only its REST base
// address pointed at Parley: it tries to open a public thread in CHANNEL_ID (CREATE_PUBLIC_THREADS denied to it), to
// lock THREAD_ID and to list all the channel's archived private threads (fetchAll; both take MANAGE_THREADS), and
// reports the DiscordAPIError each attempt throws as a JSON line on stdout for threadsRefused.test.ts.
import { ChannelType, Client, DiscordAPIError, GatewayIntentBits, type TextChannel, type ThreadChannel } from 'discord.js';
import { listener, report, run } from './botSide.js';

const client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: `${process.env.PARLEY_ORIGIN}/api`, version: '10' } });

/** The API error the attempt is refused with; anything else (a success included) is the bot's error. */
async function refusal(attempt: () => Promise<unknown>) {
  try {
    await attempt();
  } catch (error) {
    if (error instanceof DiscordAPIError) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  throw new Error('the attempt succeeded');
}

client.once(
  'clientReady',
  listener(async () => {
    const channel = (await client.channels.fetch(process.env.CHANNEL_ID!)) as TextChannel;
    const thread = (await client.channels.fetch(process.env.THREAD_ID!)) as ThreadChannel;
    report('refused', {
      create: await refusal(() => channel.threads.create({ name: 'not allowed', type: ChannelType.PublicThread })),
      lock: await refusal(() => thread.setLocked(true)),
      archivedPrivate: await refusal(() => channel.threads.fetchArchived({ type: 'private', fetchAll: true })),
    });
  }),
);

void run(client);
