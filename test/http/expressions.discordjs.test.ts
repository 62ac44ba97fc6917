// Compatibility: discord.js 14's emoji and sticker managers, unchanged but for the base address, create, rename and
// delete a guild's emojis and stickers as a bot with MANAGE_EMOJIS_AND_STICKERS would, and read back what they made.
import type { Guild } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { type RestClient, restClient } from '../support/discordjs.js';
import { type TestServer, createBot, startTestServer } from '../support/server.js';
import { animatedImage, served, stillImage } from './expressionSupport.js';
import { type TestGuild, createGuild, grantRole, join } from './guildSupport.js';

let server: TestServer;
let rest: RestClient;
let testGuild: TestGuild;
let guild: Guild;

beforeAll(async () => {
  server = await startTestServer();
  testGuild = await createGuild(server, undefined, 'Expressive Guild');
  const bot = await join(server, testGuild, await createBot(server), 'Bot');
  await grantRole(server, testGuild, bot, Permission.MANAGE_EMOJIS_AND_STICKERS | Permission.VIEW_AUDIT_LOG, 'expression managers');
  // REST only: no gateway session is needed for what is made and changed here.
  rest = await restClient(server, bot.token);
  guild = await rest.client.guilds.fetch(testGuild.id);
});
afterAll(async () => {
  await rest.close();
  await server.close();
});

describe('discord.js against the emoji and sticker routes', () => {
  it('creates, renames and deletes an emoji with guild.emojis', async () => {
    const emoji = await guild.emojis.create({ attachment: await stillImage(64, 64, 'png'), name: 'djs_emoji', reason: 'from discord.js' });
    expect(emoji.name).toBe('djs_emoji');
    expect(emoji.animated).toBe(false);
    expect(emoji.guild.id).toBe(testGuild.id);
    // The URL discord.js builds from its CDN base is one the CDN serves.
    const image = await served(server, emoji.imageURL({ extension: 'webp', size: 32 }));
    expect(image.image).toEqual({ format: 'webp', width: 32, height: 32, pages: 1 });
    const renamed = await emoji.setName('djs_renamed');
    expect(renamed.name).toBe('djs_renamed');
    const fetched = await guild.emojis.fetch(emoji.id, { force: true });
    expect(fetched.name).toBe('djs_renamed');
    const animated = await guild.emojis.create({ attachment: await animatedImage(32, 32, 3), name: 'djs_animated' });
    expect(animated.animated).toBe(true);
    expect((await served(server, animated.imageURL({ extension: 'gif' }))).image).toMatchObject({ format: 'gif', pages: 3 });
    await emoji.delete();
    expect((await guild.emojis.fetch(undefined, { force: true })).map((e) => e.name)).toEqual(['djs_animated']);
    const log = await guild.fetchAuditLogs({ type: 72 });
    expect(log.entries.find((entry) => entry.targetId === emoji.id)?.reason).toBe('from discord.js');
  });

  it('creates, renames and deletes a sticker with guild.stickers', async () => {
    const sticker = await guild.stickers.create({
      file: await stillImage(320, 320, 'png'),
      name: 'djs_sticker',
      tags: 'robot',
      description: 'made by discord.js',
    });
    expect(sticker.name).toBe('djs_sticker');
    expect(sticker.description).toBe('made by discord.js');
    expect(sticker.guildId).toBe(testGuild.id);
    expect((await served(server, sticker.url)).image).toMatchObject({ format: 'png' });
    const edited = await sticker.edit({ name: 'djs_edited', description: 'edited by discord.js' });
    expect(edited.name).toBe('djs_edited');
    expect((await guild.stickers.fetch(sticker.id, { force: true })).description).toBe('edited by discord.js');
    await sticker.delete();
    await expect(guild.stickers.fetch(sticker.id, { force: true })).rejects.toMatchObject({ status: 404, code: 'UNKNOWN_STICKER' });
  });
});
