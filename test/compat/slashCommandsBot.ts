// An unmodified discord.js 14 bot with slash commands and buttons, run as its own process: only the REST base address
// points at Parley. Once ready it registers its commands with client.application.commands.set(), then answers each
// interaction the way bot developers write them (reply, ephemeral reply, deferReply + editReply + followUp, a
// message with components through channel.send(), update() and deferUpdate() on a click, deleteReply) and reports
// what it read from each interaction as JSON lines on stdout for slashCommands.test.ts.
import {
  ActionRowBuilder,
  type BaseInteraction,
  ButtonBuilder,
  ButtonStyle,
  type ChatInputCommandInteraction,
  Client,
  GatewayIntentBits,
  MessageFlags,
  type MessageComponentInteraction,
  SlashCommandBuilder,
  StringSelectMenuBuilder,
} from 'discord.js';
import { listener, report, run } from './botSide.js';

const client = new Client({
  intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent],
  rest: { api: `${process.env.PARLEY_ORIGIN}/api`, version: '1' },
});

const commands = [
  new SlashCommandBuilder().setName('ping').setDescription('Replies with Pong!'),
  new SlashCommandBuilder().setName('secret').setDescription('Replies to you alone'),
  new SlashCommandBuilder().setName('slow').setDescription('Thinks, then answers and follows up'),
  new SlashCommandBuilder().setName('temp').setDescription('Replies, then takes it back'),
  new SlashCommandBuilder().setName('menu').setDescription('Posts a button and a select menu'),
  new SlashCommandBuilder()
    .setName('echo')
    .setDescription('Says it again')
    .addStringOption((o) => o.setName('text').setDescription('What to say').setRequired(true).setMaxLength(50))
    .addIntegerOption((o) => o.setName('times').setDescription('How often').setMinValue(1).setMaxValue(5)),
];

/** What every interaction tells the bot about where it came from and who sent it. */
const origin = (interaction: BaseInteraction) => ({
  id: interaction.id,
  channelId: interaction.channelId,
  guildId: interaction.guildId,
  userId: interaction.user.id,
  memberId: interaction.member?.user.id ?? null,
  inGuild: interaction.inGuild(),
  channelCached: interaction.channel !== null,
});

async function command(interaction: ChatInputCommandInteraction) {
  const about = {
    ...origin(interaction),
    command: interaction.commandName,
    commandId: interaction.commandId,
    commandGuildId: interaction.commandGuildId,
    chatInput: interaction.isChatInputCommand(),
  };
  switch (interaction.commandName) {
    case 'ping': {
      const response = await interaction.reply({ content: 'Pong!', withResponse: true });
      return report('ping', { ...about, messageId: response.resource?.message?.id ?? null });
    }
    case 'echo': {
      const text = interaction.options.getString('text', true);
      const times = interaction.options.getInteger('times') ?? 1;
      await interaction.reply(Array.from({ length: times }, () => text).join(' '));
      return report('echo', { ...about, text, times, asString: interaction.toString() });
    }
    case 'secret':
      await interaction.reply({ content: 'Only you can see this', flags: MessageFlags.Ephemeral });
      return report('secret', { ...about, ephemeral: interaction.ephemeral });
    case 'slow': {
      await interaction.deferReply();
      const edited = await interaction.editReply('Thought about it');
      const fetched = await interaction.fetchReply();
      const followUp = await interaction.followUp('And one more thing');
      return report('slow', { ...about, deferred: interaction.deferred, editedId: edited.id, fetchedContent: fetched.content, followUpId: followUp.id });
    }
    case 'temp':
      await interaction.reply('Now you see me');
      await interaction.deleteReply();
      return report('temp', about);
    case 'menu': {
      const buttons = new ActionRowBuilder<ButtonBuilder>().addComponents(
        new ButtonBuilder().setCustomId('press').setLabel('Press').setStyle(ButtonStyle.Primary),
      );
      const select = new ActionRowBuilder<StringSelectMenuBuilder>().addComponents(
        new StringSelectMenuBuilder().setCustomId('flavour').addOptions({ label: 'Vanilla', value: 'vanilla' }, { label: 'Mint', value: 'mint' }),
      );
      if (!interaction.channel?.isSendable()) throw new Error('the channel is not cached as sendable');
      const posted = await interaction.channel.send({ content: 'Choose', components: [buttons, select] });
      await interaction.reply({ content: 'Posted the menu', flags: MessageFlags.Ephemeral });
      return report('menu', { ...about, messageId: posted.id });
    }
  }
}

async function component(interaction: MessageComponentInteraction) {
  const about = {
    ...origin(interaction),
    customId: interaction.customId,
    messageId: interaction.message.id,
    messageContent: interaction.message.content,
    button: interaction.isButton(),
  };
  if (interaction.isButton()) {
    await interaction.update({ content: `Pressed by ${interaction.user.username}`, components: interaction.message.components.slice(1) });
    return report('press', about);
  }
  if (interaction.isStringSelectMenu()) {
    await interaction.deferUpdate();
    const edited = await interaction.editReply({ content: `You chose ${interaction.values.join(', ')}`, components: [] });
    return report('flavour', { ...about, values: interaction.values, editedId: edited.id });
  }
}

client.once(
  'clientReady',
  listener(async () => {
    const registered = await client.application!.commands.set(commands.map((c) => c.toJSON()));
    report('ready', { userId: client.user!.id, applicationId: client.application!.id, commands: Object.fromEntries(registered.map((c) => [c.name, c.id])) });
  }),
);
client.on(
  'interactionCreate',
  listener(async (interaction) => {
    if (interaction.isChatInputCommand()) await command(interaction);
    else if (interaction.isMessageComponent()) await component(interaction);
  }),
);
await run(client);
