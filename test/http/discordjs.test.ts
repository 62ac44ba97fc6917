// Compatibility: discord.js 14's managers, unchanged but for the base address, drive the guild routes over REST as a
// bot would: what they send (role colours, ban windows, overwrites, audit reasons) and what they read back.
import { type Client, type Guild, PermissionFlagsBits, type TextChannel } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { type RestClient, restClient } from '../support/discordjs.js';
import { type TestServer, createBot, registerUser, startTestServer } from '../support/server.js';
import { type TestGuild, createGuild, grantRole, join, newMember } from './guildSupport.js';

let server: TestServer;
let rest: RestClient;
let client: Client;
let testGuild: TestGuild;
let guild: Guild;

beforeAll(async () => {
  server = await startTestServer();
  testGuild = await createGuild(server, undefined, 'Compat Guild');
  const bot = await join(server, testGuild, await createBot(server), 'Bot');
  await grantRole(server, testGuild, bot, Permission.ADMINISTRATOR, 'bots');
  // REST only: no gateway session is needed for what is fetched and changed here.
  rest = await restClient(server, bot.token);
  client = rest.client;
  guild = await client.guilds.fetch(testGuild.id);
});
afterAll(async () => {
  await rest.close();
  await server.close();
});

describe('discord.js against the guild routes', () => {
  it('reads the guild, its roles and channels', async () => {
    expect(guild.name).toBe('Compat Guild');
    expect(guild.ownerId).toBe(testGuild.owner.id);
    expect(guild.roles.everyone.permissions.has(PermissionFlagsBits.ViewChannel)).toBe(true);
    const channels = await guild.channels.fetch();
    expect(channels.get(testGuild.channelId)?.name).toBe('general');
  });

  it('creates and edits channels, roles and overwrites, and edits the guild', async () => {
    const category = await guild.channels.create({ name: 'Compat', type: 4 });
    const text = await guild.channels.create({ name: 'compat-text', parent: category.id, topic: 'from discord.js', reason: 'testing reasons' });
    expect(text.parentId).toBe(category.id);
    const role = await guild.roles.create({ name: 'Compat Role', colors: { primaryColor: 0x00ff00 }, permissions: [PermissionFlagsBits.KickMembers] });
    expect(role.color).toBe(0x00ff00);
    expect(role.permissions.has(PermissionFlagsBits.KickMembers)).toBe(true);
    await role.edit({ name: 'Compat Role 2', hoist: true });
    await text.permissionOverwrites.edit(role.id, { SendMessages: false });
    const refetched = (await guild.channels.fetch(text.id, { force: true })) as TextChannel;
    expect(refetched.permissionOverwrites.cache.get(role.id)?.deny.has(PermissionFlagsBits.SendMessages)).toBe(true);
    await text.edit({ name: 'compat-renamed' });
    const edited = await guild.edit({ name: 'Compat Guild 2' });
    expect(edited.name).toBe('Compat Guild 2');
    await text.delete();
    await expect(guild.channels.fetch(text.id, { force: true })).rejects.toMatchObject({ status: 404, code: 'UNKNOWN_CHANNEL' });
  });

  it('manages members and bans, and reads the audit log with its reasons', async () => {
    const member = await newMember(server, testGuild);
    const fetched = await guild.members.fetch({ user: member.id, force: true });
    expect(fetched.user.username).toBe(member.username);
    const role = await guild.roles.create({ name: 'Member Role' });
    await fetched.roles.add(role, 'promoted');
    await fetched.setNickname('Compat Nick');
    expect((await guild.members.fetch({ user: member.id, force: true })).nickname).toBe('Compat Nick');

    const outsider = await registerUser(server);
    await guild.bans.create(outsider.id, { deleteMessageSeconds: 3600, reason: 'compat ban' });
    const ban = await guild.bans.fetch({ user: outsider.id, force: true });
    expect(ban.reason).toBe('compat ban');
    await guild.bans.remove(outsider.id);
    await guild.members.kick(member.id, 'compat kick');

    const logs = await guild.fetchAuditLogs({ limit: 10 });
    const entries = [...logs.entries.values()];
    expect(entries[0]).toMatchObject({ action: 20, targetId: member.id, reason: 'compat kick' });
    expect(entries.find((e) => e.action === 22)?.reason).toBe('compat ban');
    expect(entries.find((e) => e.action === 24 && e.changes.some((c) => c.key === '$add'))?.reason).toBe('promoted');
  });

  it('creates invites', async () => {
    const invite = await guild.invites.create(testGuild.channelId, { maxAge: 0, maxUses: 3, unique: true });
    expect(invite.maxUses).toBe(3);
    expect(invite.guild?.id).toBe(testGuild.id);
    const fetched = await client.fetchInvite(invite.code);
    expect(fetched.code).toBe(invite.code);
  });
});
