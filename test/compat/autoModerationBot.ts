// An unmodified discord.js 14 bot that manages its guild's auto-moderation: once ready it creates a keyword rule in
// GUILD_ID with guild.autoModerationRules.create (blocking, and alerting ALERT_CHANNEL_ID), and it reports each
// autoModerationActionExecution event it receives.
import { AutoModerationActionType, AutoModerationRuleEventType, AutoModerationRuleTriggerType, Client, GatewayIntentBits } from 'discord.js';
import { listener, report, run } from './botSide.js';

const client = new Client({
  intents: [
    GatewayIntentBits.Guilds,
    GatewayIntentBits.AutoModerationConfiguration,
    GatewayIntentBits.AutoModerationExecution,
    GatewayIntentBits.MessageContent,
  ],
  rest: { api: `${process.env.PARLEY_ORIGIN}/api`, version: '10' },
});

client.once(
  'clientReady',
  listener(async () => {
    const guild = await client.guilds.fetch(process.env.GUILD_ID!);
    const rule = await guild.autoModerationRules.create({
      name: 'No spoilers',
      eventType: AutoModerationRuleEventType.MessageSend,
      triggerType: AutoModerationRuleTriggerType.Keyword,
      triggerMetadata: { keywordFilter: ['spoiler*'], regexPatterns: ['end(ing)? is \\w+'] },
      actions: [
        { type: AutoModerationActionType.BlockMessage, metadata: { customMessage: 'No spoilers here' } },
        { type: AutoModerationActionType.SendAlertMessage, metadata: { channel: process.env.ALERT_CHANNEL_ID! } },
      ],
      enabled: true,
      reason: 'from discord.js',
    });
    report('ruleCreated', {
      id: rule.id,
      name: rule.name,
      creatorId: rule.creatorId,
      triggerType: rule.triggerType,
      keywordFilter: rule.triggerMetadata.keywordFilter,
      regexPatterns: rule.triggerMetadata.regexPatterns,
      actions: rule.actions.map((a) => ({ type: a.type, customMessage: a.metadata.customMessage ?? null, channelId: a.metadata.channelId ?? null })),
      enabled: rule.enabled,
      cached: guild.autoModerationRules.cache.has(rule.id),
    });
  }),
);
client.on('autoModerationActionExecution', (execution) => {
  report('autoModerationActionExecution', {
    ruleId: execution.ruleId,
    actionType: execution.action.type,
    userId: execution.userId,
    channelId: execution.channelId,
    content: execution.content,
    matchedKeyword: execution.matchedKeyword,
    matchedContent: execution.matchedContent,
    alertSystemMessageId: execution.alertSystemMessageId,
    ruleCached: execution.autoModerationRule?.id ?? null,
  });
});
await run(client);
