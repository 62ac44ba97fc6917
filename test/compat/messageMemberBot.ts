// An unmodified discord.js 14 bot without the GuildMembers intent: `message.member` comes from its cache, which learns
// of a member who joined after its GUILD_CREATE only through the member a message brings. It reports what it reads of
// the author of each message of another account.
import { Client, GatewayIntentBits, PermissionFlagsBits } from 'discord.js';
import { report, run } from './botSide.js';

const client = new Client({
  intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent],
  rest: { api: `${process.env.PARLEY_ORIGIN}/api`, version: '1' },
});

client.once('clientReady', (ready) => report('ready', { userId: ready.user.id }));
client.on('messageCreate', (message) => {
  if (message.author.id === client.user!.id) return;
  const member = message.member;
  report('messageCreate', {
    id: message.id,
    member: member && {
      id: member.id,
      nickname: member.nickname,
      roles: member.roles.cache.filter((role) => role.id !== message.guildId).map((role) => role.id),
      manageMessages: member.permissions.has(PermissionFlagsBits.ManageMessages),
    },
  });
});
await run(client);
