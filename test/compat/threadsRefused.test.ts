// Thread refusals as a bot meets them, with an unmodified discord.js 14 bot (threadsRefusedBot.ts): a member without the
// permission is refused with the widely used API's status and message, which discord.js throws as a DiscordAPIError
// (403 Missing Permissions, the widely used API's code 50013 on /api/v10), and
// nothing changes.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { createGuild, join as joinGuild } from '../http/guildSupport.js';
import { createBot, fileServer } from '../support/server.js';
import { killedAfterAll } from './botProcess.js';

const server = await fileServer();
const bots = killedAfterAll();

describe('thread refusals with discord.js', () => {
  it('refuses a bot without CREATE_PUBLIC_THREADS or MANAGE_THREADS with 403 Missing Permissions, changing nothing', async () => {
    const guild = await createGuild(server, undefined, 'Threads');
    const app = await joinGuild(server, guild, await createBot(server), 'Bot');
    const owner = guild.owner.token;
    const denied = await server.api('PUT', `/channels/${guild.channelId}/permissions/${app.id}`, {
      token: owner,
      body: { type: 1, deny: Permission.CREATE_PUBLIC_THREADS.toString() },
    });
    expect(denied.status).toBe(204);
    const thread = await server.api('POST', `/channels/${guild.channelId}/threads`, { token: owner, body: { name: 'the owner’s', type: 11 } });
    expect(thread.status).toBe(201);
    const bot = bots.start(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'threadsRefusedBot.ts')], {
      PARLEY_ORIGIN: server.origin,
      BOT_TOKEN: app.token,
      CHANNEL_ID: guild.channelId,
      THREAD_ID: thread.body.id,
      NODE_EXTRA_CA_CERTS: join(server.dataDir, 'tls', 'self-signed.crt'),
    });

    const missing = { status: 403, code: 50013, message: 'Missing Permissions' };
    expect((await bot.next('refused', undefined, 30_000)).data).toEqual({ create: missing, lock: missing, archivedPrivate: missing });
    const active = await server.api('GET', `/guilds/${guild.id}/threads/active`, { token: owner });
    expect(active.body.threads).toEqual([expect.objectContaining({ id: thread.body.id, thread_metadata: expect.objectContaining({ locked: false }) })]);
  });
});
