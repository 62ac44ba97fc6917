// An unmodified discord.js 14 bot, run as its own process, that reports what it knows of threads it did not open:
// once ready, the threads its GUILD_CREATE gave (guild.channels.cache) and the starter message STARTER_ID's
// hasThread and thread; then each threadListSync it receives, with the threads and its own memberships synced.
import { Client, GatewayIntentBits, type TextChannel } from 'discord.js';
import { listener, report, run } from './botSide.js';

const client = new Client({
  intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages],
  rest: { api: `${process.env.PARLEY_ORIGIN}/api`, version: '10' },
});

client.on('threadListSync', (threads, guild) =>
  report('threadListSync', {
    guildId: guild.id,
    threads: [...threads.keys()].sort(),
    joined: [...threads.values()].filter((thread) => thread.members.cache.has(client.user!.id)).map((thread) => thread.id),
  }),
);

client.once(
  'clientReady',
  listener(async () => {
    const guild = client.guilds.cache.get(process.env.GUILD_ID!)!;
    const threads = guild.channels.cache.filter((channel) => channel.isThread());
    const starter = await ((await client.channels.fetch(process.env.CHANNEL_ID!)) as TextChannel).messages.fetch(process.env.STARTER_ID!);
    report('ready', {
      threads: [...threads.keys()].sort(),
      joined: threads.filter((thread) => thread.isThread() && thread.members.cache.has(client.user!.id)).map((thread) => thread.id),
      hasThread: starter.hasThread,
      thread: starter.thread?.name ?? null,
    });
  }),
);

void run(client);
