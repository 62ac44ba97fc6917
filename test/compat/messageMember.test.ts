// Bots without the members intent read a guild message's author as a member, from the member MESSAGE_CREATE brings:
// a discord.py bot (Debian's python3-discord, unmodified) reads `message.author.guild_permissions` and `.roles` in
// on_message, and a discord.js 14 bot's `message.member` is there for a member who joined after its GUILD_CREATE.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { type TestGuild, createGuild, grantRole, join as joinGuild, newMember } from '../http/guildSupport.js';
import { type TestBot, createBot, fileServer } from '../support/server.js';
import { type BotProcess, killedAfterAll } from './botProcess.js';
import { PYTHON, missing } from './discordpyProbe.js';

const server = await fileServer();
const bots = killedAfterAll();

/** A guild with the bot in it, and the bot started (by `start`) and ready before anyone else joins. */
async function readyBotIn(start: (app: TestBot) => BotProcess) {
  const guild = await createGuild(server);
  const app = await createBot(server);
  await joinGuild(server, guild, app, 'Bot');
  const bot = start(app);
  await bot.next('ready', undefined, 30_000);
  return { guild, app, bot };
}

/** A member who joins after the bot's GUILD_CREATE, with a nick and a role allowing MANAGE_MESSAGES, posts mentioning the owner. */
async function memberPosts(guild: TestGuild) {
  const member = await newMember(server, guild);
  const roleId = await grantRole(server, guild, member, Permission.MANAGE_MESSAGES, 'mods');
  const nicked = await server.api('PATCH', `/guilds/${guild.id}/members/${member.id}`, { token: guild.owner.token, body: { nick: 'Ada' } });
  expect(nicked.status).toBe(200);
  const sent = await server.api('POST', `/channels/${guild.channelId}/messages`, { token: member.token, body: { content: `hi <@${guild.owner.id}>` } });
  expect(sent.status).toBe(200);
  return { member, roleId, messageId: sent.body.id as string };
}

describe('a message’s author as a member, without the members intent', () => {
  it.skipIf(missing !== null && !process.env.CI)('discord.py: message.author is a Member with its roles and guild permissions', async () => {
    expect(missing).toBeNull();
    const { guild, bot } = await readyBotIn((app) =>
      bots.start(PYTHON, [join(import.meta.dirname, 'discordpy', 'message_member.py')], {
        PARLEY_ORIGIN: server.origin,
        BOT_TOKEN: app.token,
        SSL_CERT_FILE: join(server.dataDir, 'tls', 'self-signed.crt'),
      }),
    );
    const { roleId, messageId } = await memberPosts(guild);
    expect((await bot.next('message', (m) => m.id === messageId)).data).toEqual({
      id: messageId,
      kind: 'Member',
      nick: 'Ada',
      roles: [roleId],
      manage_messages: true,
      mentions: ['Member'],
    });
  });

  it('discord.js: message.member is there, with its roles and permissions', async () => {
    const { guild, bot } = await readyBotIn((app) =>
      bots.start(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'messageMemberBot.ts')], {
        PARLEY_ORIGIN: server.origin,
        BOT_TOKEN: app.token,
        NODE_EXTRA_CA_CERTS: join(server.dataDir, 'tls', 'self-signed.crt'),
      }),
    );
    const { member, roleId, messageId } = await memberPosts(guild);
    expect((await bot.next('messageCreate', (m) => m.id === messageId)).data).toEqual({
      id: messageId,
      member: { id: member.id, nickname: 'Ada', roles: [roleId], manageMessages: true },
    });
  });
});
