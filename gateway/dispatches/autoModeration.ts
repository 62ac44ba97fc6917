// Dispatches of auto-moderation: rule changes (AUTO_MODERATION_CONFIGURATION) and action executions
// (AUTO_MODERATION_EXECUTION), to the guild's members who may see them, those with MANAGE_GUILD. An execution's
// content and matched content reach only sessions with MESSAGE_CONTENT (or the author's own), as the widely used API.
import { Permission } from '../../domain/permissions.js';
import { actionExecutionObject, autoModerationRuleObject } from '../../presenters/autoModeration.js';
import type { GatewayDeps } from '../deps.js';
import { membersWith } from '../guilds.js';
import { Intent } from '../protocol.js';
import { deriver, dispatch } from './deriver.js';

/** The members who manage the guild, as it stands (none once it is gone). */
const managers = (runtime: GatewayDeps, guildId: string) => membersWith(runtime, guildId, Permission.MANAGE_GUILD);

export const autoModerationDispatches = deriver({
  handles: ['AutoModerationRuleCreated', 'AutoModerationRuleUpdated', 'AutoModerationRuleDeleted', 'AutoModerationActionExecuted'],
  async derive(event, runtime) {
    switch (event.type) {
      case 'AutoModerationRuleCreated':
      case 'AutoModerationRuleUpdated':
      case 'AutoModerationRuleDeleted': {
        const t = (
          {
            AutoModerationRuleCreated: 'AUTO_MODERATION_RULE_CREATE',
            AutoModerationRuleUpdated: 'AUTO_MODERATION_RULE_UPDATE',
            AutoModerationRuleDeleted: 'AUTO_MODERATION_RULE_DELETE',
          } as const
        )[event.type];
        const users = await managers(runtime, event.data.guildId);
        return [dispatch(t, autoModerationRuleObject(event.data.rule), { intent: Intent.AUTO_MODERATION_CONFIGURATION, audience: { users } })];
      }
      case 'AutoModerationActionExecuted': {
        const { execution } = event.data;
        const users = await managers(runtime, execution.guildId);
        return [
          dispatch('AUTO_MODERATION_ACTION_EXECUTION', actionExecutionObject(execution, true), {
            intent: Intent.AUTO_MODERATION_EXECUTION,
            audience: { users },
            withoutContent: { d: actionExecutionObject(execution, false), authorId: execution.userId, mentionIds: [] },
          }),
        ];
      }
    }
  },
});
