// Compatibility: a discord.js 14 bot process creates an auto-moderation rule with guild.autoModerationRules.create(),
// and receives autoModerationActionExecution when a member's message trips it (the message being blocked).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { createGuild, grantRole, join as joinGuild, newMember } from '../http/guildSupport.js';
import { createBot, fileServer } from '../support/server.js';
import { killedAfterAll } from './botProcess.js';

const server = await fileServer();
const bots = killedAfterAll();

describe('discord.js and auto-moderation', () => {
  it('creates a rule with guild.autoModerationRules.create and receives autoModerationActionExecution', async () => {
    const guild = await createGuild(server);
    const app = await joinGuild(server, guild, await createBot(server), 'Bot');
    await grantRole(server, guild, app, Permission.MANAGE_GUILD, 'automod managers');
    const member = await newMember(server, guild);
    const alerts = (await server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body: { name: 'alerts' } })).body.id;

    const bot = bots.start(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'autoModerationBot.ts')], {
      PARLEY_ORIGIN: server.origin,
      BOT_TOKEN: app.token,
      NODE_EXTRA_CA_CERTS: join(server.dataDir, 'tls', 'self-signed.crt'),
      GUILD_ID: guild.id,
      ALERT_CHANNEL_ID: alerts,
    });
    const created = (await bot.next('ruleCreated', undefined, 30_000)).data;
    expect(created).toMatchObject({
      name: 'No spoilers',
      creatorId: app.id,
      triggerType: 1,
      keywordFilter: ['spoiler*'],
      regexPatterns: ['end(ing)? is \\w+'],
      actions: [
        { type: 1, customMessage: 'No spoilers here', channelId: null },
        { type: 2, customMessage: null, channelId: alerts },
      ],
      enabled: true,
    });
    const audit = await server.api('GET', `/guilds/${guild.id}/audit-logs?action_type=140`, { token: guild.owner.token });
    expect(audit.body.audit_log_entries[0]).toMatchObject({ target_id: created.id, user_id: app.id, reason: 'from discord.js' });

    const sent = await server.api('POST', `/channels/${guild.channelId}/messages`, { token: member.token, body: { content: 'the ending is sad' } });
    expect({ status: sent.status, code: sent.body.code }).toEqual({ status: 400, code: 'AUTOMOD_BLOCKED' });
    const executed = (await bot.next('autoModerationActionExecution', (d) => d.actionType === 2, 30_000)).data;
    expect(executed).toMatchObject({
      ruleId: created.id,
      userId: member.id,
      channelId: guild.channelId,
      content: 'the ending is sad',
      matchedKeyword: 'end(ing)? is \\w+',
      matchedContent: 'ending is sad',
      alertSystemMessageId: expect.any(String),
    });
    expect((await bot.next('autoModerationActionExecution', (d) => d.actionType === 1)).data.alertSystemMessageId).toBeNull();
  });
});
