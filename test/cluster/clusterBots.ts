// Unmodified discord.js 14 bots against a cluster, one Client per token of BOT_TOKENS, in one process (each bot its
// own process would cost a core-second apiece on 2 cores). REST goes to the balanced API and the gateway is the one
// GET /gateway/bot names; each bot reports, as JSON lines tagged with its index, where READY sent it back
// (resume_gateway_url), the messages it sees, its resumes, and answers /ping with "pong from bot {index}".
import { Client, Events, GatewayDispatchEvents, GatewayIntentBits, SlashCommandBuilder } from 'discord.js';
import { listener, report } from '../compat/botSide.js';

const tokens = process.env.BOT_TOKENS!.split(',');
const clients = tokens.map((token, bot) => {
  const client = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent],
    rest: { api: `${process.env.PARLEY_ORIGIN}/api`, version: '10' },
  });
  client.on('error', (error) => report('error', { bot, error: String(error) }));
  client.on(Events.Raw, (packet: { t: string | null; d: any }) => {
    if (packet.t === GatewayDispatchEvents.Ready)
      report('ready', {
        bot,
        userId: packet.d.user.id,
        sessionId: packet.d.session_id,
        resumeGatewayUrl: packet.d.resume_gateway_url,
        guilds: packet.d.guilds.map((g: { id: string }) => g.id),
      });
  });
  client.on(Events.ShardResume, () => report('resumed', { bot }));
  client.on(Events.MessageCreate, (message) => report('messageCreate', { bot, id: message.id, content: message.content, channelId: message.channelId }));
  client.once(
    Events.ClientReady,
    listener(async (ready) => {
      const commands = await ready.application.commands.set([new SlashCommandBuilder().setName('ping').setDescription('Answers pong')]);
      report('commands', { bot, applicationId: ready.application.id, ping: commands.find((c) => c.name === 'ping')!.id });
    }),
  );
  client.on(
    Events.InteractionCreate,
    listener(async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      report('interaction', { bot, id: interaction.id, name: interaction.commandName, userId: interaction.user.id });
      await interaction.reply(`pong from bot ${bot}`);
    }),
  );
  return { client, token };
});

process.on('SIGTERM', () => {
  void Promise.all(clients.map(({ client }) => client.destroy())).finally(() => process.exit(0));
});
// One after the other: the balancer sends each new connection to the next gateway node in turn.
for (const { client, token } of clients) {
  await client.login(token);
  await new Promise((resolve) => client.once(Events.ClientReady, resolve));
}
