// What auto-moderation did about one message (stream auto-moderation-execution-{id}, a new one per moderated send or
// edit): one event per action of each rule it triggered, as the widely used API sends one
// AUTO_MODERATION_ACTION_EXECUTION per action. A blocked message leaves these events and nothing else in the log.
import type { AutoModerationAction } from './autoModeration.js';
import type { Decider, DomainEvent } from './decider.js';
import { DomainError } from './errors.js';

export interface AutoModerationExecution {
  guildId: string;
  ruleId: string;
  /** The rule's name when it ran: the audit entry names it. */
  ruleName: string;
  ruleTriggerType: number;
  action: AutoModerationAction;
  userId: string;
  channelId: string;
  /** The message, when it was sent or edited anyway (the rule did not block it). */
  messageId: string | null;
  /** The alert a SEND_ALERT_MESSAGE action posted. */
  alertSystemMessageId: string | null;
  /** What the author wrote, and what the rule matched in it: the author's personal data, sealed (domain/personalData.ts). */
  content: string;
  matchedKeyword: string | null;
  matchedContent: string | null;
  /**
   * For a TIMEOUT action, until when the member's communication is disabled. Recorded here; the timeout itself is
   * the `MemberUpdated` the guild's `TimeOutByRule` command appends, with no member acting.
   */
  timeoutUntil: string | null;
}

export type AutoModerationActionExecuted = DomainEvent<'AutoModerationActionExecuted', { execution: AutoModerationExecution }>;

export type ExecuteAutoModerationActions = { type: 'ExecuteAutoModerationActions'; executions: AutoModerationExecution[] };

export const autoModerationExecutionDecider: Decider<{ executed: boolean }, ExecuteAutoModerationActions, AutoModerationActionExecuted> = {
  initialState: () => ({ executed: false }),
  decide(command, state) {
    if (state.executed) throw new DomainError('conflict', 'ALREADY_EXECUTED', 'These actions were already executed');
    return command.executions.map((execution) => ({ type: 'AutoModerationActionExecuted', data: { execution } }));
  },
  evolve: () => ({ executed: true }),
};
