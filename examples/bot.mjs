// A complete discord.js 14 bot for Parley: `npm run demo` with BOT_TOKEN set (and the bot in a guild).
// Only the REST base address differs from a bot for the widely used API. It answers "!ping" in any channel it can
// read, registers three slash commands, and answers them: /ping replies, /slow defers, edits its reply and follows up,
// /button posts a button whose click updates the message.
//
//   NODE_EXTRA_CA_CERTS=${DATA_DIR:-./data}/tls/self-signed.crt BOT_TOKEN=… npm run demo
import { ActionRowBuilder, ButtonBuilder, ButtonStyle, Client, GatewayIntentBits, MessageFlags, SlashCommandBuilder } from 'discord.js';

const client = new Client({
  intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent],
  rest: { api: `${process.env.PARLEY_ORIGIN ?? 'https://127.0.0.1:8443'}/api` },
});

const commands = [
  new SlashCommandBuilder().setName('ping').setDescription('Replies with pong'),
  new SlashCommandBuilder().setName('slow').setDescription('Thinks first, then answers and follows up'),
  new SlashCommandBuilder()
    .setName('button')
    .setDescription('Posts a button')
    .addStringOption((option) => option.setName('label').setDescription('What the button says').setMaxLength(80)),
];

client.once('clientReady', async () => {
  await client.application.commands.set(commands.map((command) => command.toJSON()));
  console.log(`Logged in as ${client.user.tag} in ${client.guilds.cache.size} guild(s); /${commands.map((c) => c.name).join(', /')} registered`);
});

client.on('messageCreate', async (message) => {
  if (message.author.bot || message.content !== '!ping') return;
  const reply = await message.reply('pong');
  await message.react('👍');
  await reply.edit('pong (edited)');
});

client.on('interactionCreate', async (interaction) => {
  if (interaction.isChatInputCommand()) {
    console.log(`/${interaction.commandName} from ${interaction.user.username}`);
    if (interaction.commandName === 'ping') await interaction.reply('pong');
    if (interaction.commandName === 'slow') {
      await interaction.deferReply();
      await interaction.editReply('Thought about it: pong');
      await interaction.followUp({ content: 'Only you see this follow-up', flags: MessageFlags.Ephemeral });
    }
    if (interaction.commandName === 'button') {
      const button = new ButtonBuilder()
        .setCustomId('press')
        .setLabel(interaction.options.getString('label') ?? 'Press me')
        .setStyle(ButtonStyle.Primary);
      await interaction.reply({ content: 'Nobody pressed it yet', components: [new ActionRowBuilder().addComponents(button)] });
    }
  } else if (interaction.isButton() && interaction.customId === 'press') {
    await interaction.update({ content: `Pressed by ${interaction.user.username}`, components: [] });
  }
});

process.on('SIGTERM', () => void client.destroy().finally(() => process.exit(0)));
await client.login(process.env.BOT_TOKEN);
