// An unmodified discord.js 14 bot with modals and autocomplete, run as its own process: only the REST base address
// points at Parley. Once ready it registers its commands; /feedback shows a modal (ModalBuilder, TextInputBuilder)
// and waits for it with awaitModalSubmit, /rate replies with a button whose click shows a modal that the
// interactionCreate listener reads with isModalSubmit and answers with update(); /fruit's option is autocompleted
// with isAutocomplete, options.getFocused and respond. It reports what it read as JSON lines for modals.test.ts.
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  type ChatInputCommandInteraction,
  Client,
  GatewayIntentBits,
  ModalBuilder,
  SlashCommandBuilder,
  TextInputBuilder,
  TextInputStyle,
} from 'discord.js';
import { listener, report, run } from './botSide.js';

const client = new Client({
  intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages],
  rest: { api: `${process.env.PARLEY_ORIGIN}/api`, version: '10' },
});

const FRUITS = ['apple', 'apricot', 'banana', 'blueberry', 'cherry'];

const commands = [
  new SlashCommandBuilder().setName('feedback').setDescription('Tell us what you think'),
  new SlashCommandBuilder().setName('rate').setDescription('Rate us with a button'),
  new SlashCommandBuilder()
    .setName('fruit')
    .setDescription('Pick a fruit')
    .addStringOption((o) => o.setName('name').setDescription('Which fruit').setRequired(true).setAutocomplete(true)),
];

const textRow = (input: TextInputBuilder) => new ActionRowBuilder<TextInputBuilder>().addComponents(input);

const feedbackModal = new ModalBuilder()
  .setCustomId('feedback-form')
  .setTitle('Your feedback')
  .addComponents(
    textRow(new TextInputBuilder().setCustomId('subject').setLabel('Subject').setStyle(TextInputStyle.Short).setMinLength(3).setMaxLength(40)),
    textRow(new TextInputBuilder().setCustomId('details').setLabel('Details').setStyle(TextInputStyle.Paragraph).setRequired(false)),
  );

const rateModal = new ModalBuilder()
  .setCustomId('rate-form')
  .setTitle('Rate us')
  .addComponents(textRow(new TextInputBuilder().setCustomId('stars').setLabel('Stars (1-5)').setStyle(TextInputStyle.Short).setMaxLength(1)));

async function command(interaction: ChatInputCommandInteraction) {
  switch (interaction.commandName) {
    case 'feedback': {
      await interaction.showModal(feedbackModal);
      const submitted = await interaction.awaitModalSubmit({ time: 30_000, filter: (i) => i.customId === 'feedback-form' });
      const subject = submitted.fields.getTextInputValue('subject');
      const details = submitted.fields.getTextInputValue('details');
      await submitted.reply(`Thanks for "${subject}"`);
      return report('feedback', {
        id: interaction.id,
        submitId: submitted.id,
        isModalSubmit: submitted.isModalSubmit(),
        userId: submitted.user.id,
        subject,
        details,
        fromMessage: submitted.isFromMessage(),
      });
    }
    case 'rate': {
      const button = new ButtonBuilder().setCustomId('rate').setLabel('Rate').setStyle(ButtonStyle.Primary);
      const response = await interaction.reply({
        content: 'Rate us',
        components: [new ActionRowBuilder<ButtonBuilder>().addComponents(button)],
        withResponse: true,
      });
      return report('rate', { messageId: response.resource?.message?.id ?? null });
    }
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
    if (interaction.isAutocomplete()) {
      const focused = interaction.options.getFocused(true);
      await interaction.respond(FRUITS.filter((f) => f.startsWith(focused.value)).map((f) => ({ name: f.toUpperCase(), value: f })));
      return report('autocomplete', {
        command: interaction.commandName,
        name: focused.name,
        value: focused.value,
        getFocused: interaction.options.getFocused(),
      });
    }
    if (interaction.isChatInputCommand()) return command(interaction);
    if (interaction.isButton() && interaction.customId === 'rate') return interaction.showModal(rateModal);
    // The feedback modal is awaited where it was shown; the rating's is answered here.
    if (interaction.isModalSubmit() && interaction.customId === 'rate-form') {
      const stars = interaction.fields.getTextInputValue('stars');
      if (!interaction.isFromMessage()) throw new Error('the rating modal came from a button, so from its message');
      await interaction.update({ content: `Rated ${stars} stars`, components: [] });
      return report('rated', { stars, messageId: interaction.message.id });
    }
  }),
);
await run(client);
