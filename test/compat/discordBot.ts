// An unmodified discord.js 14 bot, run as its own process the way bot developers run theirs: only the REST base
// address points at Parley. It reports what it sees as JSON lines on stdout for the compatibility test.
import { Client, GatewayIntentBits } from 'discord.js';

const client = new Client({
  intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent],
  rest: { api: `${process.env.PARLEY_ORIGIN}/api`, version: '1' },
});

const report = (event: string, data: unknown) => process.stdout.write(`${JSON.stringify({ event, data })}\n`);

client.once('clientReady', (ready) => {
  report('ready', {
    userId: ready.user.id,
    guilds: ready.guilds.cache.map((g) => ({ id: g.id, name: g.name, channels: g.channels.cache.map((c) => c.id), me: g.members.me?.id ?? null })),
  });
});
client.on('messageCreate', (message) => {
  report('messageCreate', { id: message.id, content: message.content, authorId: message.author.id, channelId: message.channelId, guildId: message.guildId });
});
client.on('error', (error) => report('error', String(error)));
process.on('SIGTERM', () => {
  void client.destroy().finally(() => process.exit(0));
});

await client.login(process.env.BOT_TOKEN);
