// Auto-moderation rules and action executions, in the widely used API's shapes: REST answers and dispatches alike.
import type { APIAutoModerationRule, GatewayAutoModerationActionExecutionDispatchData } from 'discord-api-types/v10';
import type { AutoModerationRuleData } from '../domain/autoModeration.js';
import type { AutoModerationExecution } from '../domain/autoModerationExecution.js';

export const autoModerationRuleObject = (rule: AutoModerationRuleData): APIAutoModerationRule => rule as APIAutoModerationRule;

/** AUTO_MODERATION_ACTION_EXECUTION's data; `withContent` false blanks what the author wrote (no MESSAGE_CONTENT). */
export function actionExecutionObject(execution: AutoModerationExecution, withContent: boolean): GatewayAutoModerationActionExecutionDispatchData {
  return {
    guild_id: execution.guildId,
    action: execution.action as GatewayAutoModerationActionExecutionDispatchData['action'],
    rule_id: execution.ruleId,
    rule_trigger_type: execution.ruleTriggerType,
    user_id: execution.userId,
    channel_id: execution.channelId,
    ...(execution.messageId ? { message_id: execution.messageId } : {}),
    ...(execution.alertSystemMessageId ? { alert_system_message_id: execution.alertSystemMessageId } : {}),
    content: withContent ? execution.content : '',
    matched_keyword: execution.matchedKeyword,
    matched_content: withContent ? execution.matchedContent : '',
  };
}
