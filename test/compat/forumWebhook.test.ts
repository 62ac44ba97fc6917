// A forum's flags and webhook with an unmodified discord.js 14 bot (its own process, only its base address pointed at
// Parley): forum.edit({ flags: RequireTag }) and the 40067 of a post without a tag, a webhook that opens a post with
// webhook.send({ threadName, appliedTags }) and the 220001 of a send naming none, and thread.pin(); checked over HTTPS.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { createGuild, grantRole, join as joinGuild } from '../http/guildSupport.js';
import { createBot, fileServer } from '../support/server.js';
import { killedAfterAll } from './botProcess.js';

const server = await fileServer();
const bots = killedAfterAll();

describe('a forum’s flags and webhook with discord.js', () => {
  it('requires tags, opens a post through a webhook with threadName and pins it', async () => {
    const guild = await createGuild(server, undefined, 'Forum');
    const body = { name: 'releases', type: 15, available_tags: [{ name: 'stable' }] };
    const forum = (await server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body })).body;
    const app = await joinGuild(server, guild, await createBot(server), 'Bot');
    await grantRole(server, guild, app, Permission.MANAGE_CHANNELS | Permission.MANAGE_WEBHOOKS | Permission.MANAGE_THREADS);
    const bot = bots.start(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'forumWebhookBot.ts')], {
      PARLEY_ORIGIN: server.origin,
      BOT_TOKEN: app.token,
      FORUM_ID: forum.id,
      NODE_EXTRA_CA_CERTS: join(server.dataDir, 'tls', 'self-signed.crt'),
    });

    expect((await bot.next('flags', undefined, 30_000)).data).toEqual({ requireTag: true });
    expect((await bot.next('untagged')).data).toEqual({ code: 40067 });
    const posted = (await bot.next('webhookPost')).data;
    expect(posted).toEqual({ id: posted.channelId, channelId: expect.any(String), webhookId: expect.any(String) });
    expect((await bot.next('noThread')).data).toEqual({ code: 220001 });
    const [stable] = forum.available_tags;
    expect((await bot.next('pinned')).data).toEqual({ id: posted.channelId, pinned: true, appliedTags: [stable.id] });

    // What the bot did, as the API shows it to a person.
    const post = await server.api('GET', `/channels/${posted.channelId}`, { token: guild.owner.token });
    expect(post.body).toMatchObject({ parent_id: forum.id, owner_id: posted.webhookId, name: 'Release v3', flags: 2, applied_tags: [stable.id] });
    expect((await server.api('GET', `/channels/${forum.id}`, { token: guild.owner.token })).body.flags).toBe(16);
    const report = await bot.next('error', undefined, 200).catch(() => null);
    expect(report).toBeNull();
  });
});
