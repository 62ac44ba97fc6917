// Threads an unmodified discord.js 14 bot did not open (its own process, only its base address pointed at Parley):
// those its GUILD_CREATE gives, a starter message's thread, and the threadListSync event when it gains a channel.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { createGuild, join as joinGuild } from '../http/guildSupport.js';
import { createBot, fileServer } from '../support/server.js';
import { killedAfterAll } from './botProcess.js';

const server = await fileServer();
const bots = killedAfterAll();

describe('threads a discord.js bot finds', () => {
  it('come in its GUILD_CREATE, on the message they started from, and by threadListSync when it gains their channel', async () => {
    const guild = await createGuild(server, undefined, 'Synced');
    const token = guild.owner.token;
    const app = await joinGuild(server, guild, await createBot(server), 'Bot');
    const post = (channelId: string, body: object) => server.api('POST', `/channels/${channelId}/threads`, { token, body });
    const starter = (await server.api('POST', `/channels/${guild.channelId}/messages`, { token, body: { content: 'discuss' } })).body;
    await server.api('POST', `/channels/${guild.channelId}/messages/${starter.id}/threads`, { token, body: { name: 'discussion' } });
    const joined = (await post(guild.channelId, { name: 'joined', type: 11 })).body;
    await server.api('PUT', `/channels/${joined.id}/thread-members/${app.id}`, { token });
    const hidden = (await server.api('POST', `/guilds/${guild.id}/channels`, { token, body: { name: 'hidden' } })).body;
    const later = (await post(hidden.id, { name: 'later', type: 11 })).body;
    await server.api('PUT', `/channels/${hidden.id}/permissions/${guild.id}`, { token, body: { type: 0, deny: Permission.VIEW_CHANNEL.toString() } });

    const bot = bots.start(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'threadsSyncBot.ts')], {
      PARLEY_ORIGIN: server.origin,
      BOT_TOKEN: app.token,
      GUILD_ID: guild.id,
      CHANNEL_ID: guild.channelId,
      STARTER_ID: starter.id,
      NODE_EXTRA_CA_CERTS: join(server.dataDir, 'tls', 'self-signed.crt'),
    });
    expect((await bot.next('ready', undefined, 30_000)).data).toEqual({
      threads: [starter.id, joined.id].sort(),
      joined: [joined.id],
      hasThread: true,
      thread: 'discussion',
    });

    await server.api('PUT', `/channels/${hidden.id}/permissions/${app.id}`, { token, body: { type: 1, allow: Permission.VIEW_CHANNEL.toString() } });
    expect((await bot.next('threadListSync')).data).toEqual({ guildId: guild.id, threads: [later.id], joined: [] });
    const report = await bot.next('error', undefined, 200).catch(() => null);
    expect(report).toBeNull();
  });
});
