// An unmodified discord.js 14 bot with context menu commands, a user select and a Components V2 message, run as its
// own process: only the REST base address points at Parley. Once ready it registers a USER and a MESSAGE command and a
// slash command with client.application.commands.set(); it reads targetUser/targetMember and targetMessage, answers
// the slash command by posting a user select and a layout message built with ContainerBuilder and TextDisplayBuilder,
// reads the select's users, and reports what it read as JSON lines on stdout for contextMenus.test.ts.
import {
  ActionRowBuilder,
  ApplicationCommandType,
  ButtonBuilder,
  ButtonStyle,
  type ChatInputCommandInteraction,
  Client,
  ContainerBuilder,
  ContextMenuCommandBuilder,
  GatewayIntentBits,
  MessageFlags,
  type MessageContextMenuCommandInteraction,
  SlashCommandBuilder,
  TextDisplayBuilder,
  UserSelectMenuBuilder,
  type UserContextMenuCommandInteraction,
} from 'discord.js';
import { listener, report, run } from './botSide.js';

const client = new Client({
  intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent],
  rest: { api: `${process.env.PARLEY_ORIGIN}/api`, version: '1' },
});

const commands = [
  new ContextMenuCommandBuilder().setName('Inspect user').setType(ApplicationCommandType.User),
  new ContextMenuCommandBuilder().setName('Quote message').setType(ApplicationCommandType.Message),
  new SlashCommandBuilder().setName('panel').setDescription('Posts a user select and a layout message'),
];

async function userCommand(interaction: UserContextMenuCommandInteraction) {
  const member = interaction.targetMember;
  await interaction.reply({ content: `That is ${interaction.targetUser.username}`, flags: MessageFlags.Ephemeral });
  report('user', {
    isUser: interaction.isUserContextMenuCommand(),
    targetId: interaction.targetId,
    targetUsername: interaction.targetUser.username,
    targetMemberId: member && 'user' in member ? member.user.id : null,
  });
}

async function messageCommand(interaction: MessageContextMenuCommandInteraction) {
  const message = interaction.targetMessage;
  await interaction.reply(`Quoting: ${message.content}`);
  report('message', {
    isMessage: interaction.isMessageContextMenuCommand(),
    targetId: interaction.targetId,
    content: message.content,
    authorId: message.author.id,
  });
}

async function panel(interaction: ChatInputCommandInteraction) {
  if (!interaction.channel?.isSendable()) throw new Error('the channel is not cached as sendable');
  const select = new ActionRowBuilder<UserSelectMenuBuilder>().addComponents(
    new UserSelectMenuBuilder().setCustomId('who').setPlaceholder('Pick people').setMaxValues(2).setDefaultUsers(interaction.user.id),
  );
  const picker = await interaction.channel.send({ content: 'Pick', components: [select] });
  const container = new ContainerBuilder()
    .setAccentColor(0x5865f2)
    .addTextDisplayComponents(new TextDisplayBuilder().setContent('## Layout'), new TextDisplayBuilder().setContent('Built with discord.js'))
    .addActionRowComponents(
      new ActionRowBuilder<ButtonBuilder>().addComponents(new ButtonBuilder().setCustomId('ok').setLabel('OK').setStyle(ButtonStyle.Success)),
    );
  const layout = await interaction.channel.send({ components: [container], flags: MessageFlags.IsComponentsV2 });
  const fetched = await interaction.channel.messages.fetch({ message: layout.id, force: true });
  await interaction.reply({ content: 'Posted', flags: MessageFlags.Ephemeral });
  report('panel', {
    pickerId: picker.id,
    layoutId: layout.id,
    layoutFlags: fetched.flags.bitfield,
    layoutComponents: fetched.components.map((c) => c.toJSON()),
  });
}

client.once(
  'clientReady',
  listener(async () => {
    const registered = await client.application!.commands.set(commands.map((c) => c.toJSON()));
    report('ready', {
      userId: client.user!.id,
      applicationId: client.application!.id,
      commands: Object.fromEntries(registered.map((c) => [c.name, { id: c.id, type: c.type }])),
    });
  }),
);
client.on(
  'interactionCreate',
  listener(async (interaction) => {
    if (interaction.isUserContextMenuCommand()) await userCommand(interaction);
    else if (interaction.isMessageContextMenuCommand()) await messageCommand(interaction);
    else if (interaction.isChatInputCommand()) await panel(interaction);
    else if (interaction.isUserSelectMenu()) {
      await interaction.update({ content: `Picked ${interaction.users.map((u) => u.username).join(', ')}`, components: [] });
      report('select', {
        isUserSelect: interaction.isUserSelectMenu(),
        values: interaction.values,
        users: [...interaction.users.keys()],
        members: [...interaction.members.keys()],
      });
    }
  }),
);
await run(client);
