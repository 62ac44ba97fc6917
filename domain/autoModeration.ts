// A guild's auto-moderation rules (in the guild stream, beside the roles and channels they name): created, changed
// and deleted by members with MANAGE_GUILD, with the widely used API's limits. Keeping them in the guild's state means
// a send, which loads the guild for its permissions anyway, has its rules at no extra read.
import type { DomainEvent } from './decider.js';
import { type FieldError, invalidForm, notFound } from './errors.js';
import { ChannelType } from './channel.js';
import { type Change, type GuildState, diff, requireGuildPermission, withEntry, withoutEntry } from './guildState.js';
import type { AutoModerationRuleData, TriggerMetadata } from './autoModerationRule.js';
import { Permission, hasPermission } from './permissions.js';

export type { AutoModerationAction, AutoModerationRuleData, TriggerMetadata } from './autoModerationRule.js';

export const TriggerType = { KEYWORD: 1, SPAM: 3, KEYWORD_PRESET: 4, MENTION_SPAM: 5 } as const;
export const ActionType = { BLOCK_MESSAGE: 1, SEND_ALERT_MESSAGE: 2, TIMEOUT: 3 } as const;
export const KeywordPreset = { PROFANITY: 1, SEXUAL_CONTENT: 2, SLURS: 3 } as const;
/** MESSAGE_SEND, the one event type rules are checked on. */
export const EVENT_TYPE_MESSAGE_SEND = 1;

/** The widely used API's limits. */
export const AUTO_MODERATION_LIMITS = {
  rulesPerType: { [TriggerType.KEYWORD]: 6, [TriggerType.SPAM]: 1, [TriggerType.KEYWORD_PRESET]: 1, [TriggerType.MENTION_SPAM]: 1 } as Record<number, number>,
  keywords: 1000,
  keywordLength: 60,
  regexPatterns: 10,
  regexLength: 260,
  allowList: { [TriggerType.KEYWORD]: 100, [TriggerType.KEYWORD_PRESET]: 1000 } as Record<number, number>,
  mentionTotal: 50,
  customMessage: 150,
  timeoutSeconds: 2_419_200,
  exemptRoles: 20,
  exemptChannels: 50,
} as const;

/** What a rule's PATCH may change (its trigger type never changes). */
export type AutoModerationRuleEdit = Partial<
  Pick<AutoModerationRuleData, 'name' | 'event_type' | 'trigger_metadata' | 'actions' | 'enabled' | 'exempt_roles' | 'exempt_channels'>
>;

export type AutoModerationRuleCreated = DomainEvent<'AutoModerationRuleCreated', { guildId: string; rule: AutoModerationRuleData }>;
/** `rule` is the rule after the changes (the dispatch's payload). */
export type AutoModerationRuleUpdated = DomainEvent<
  'AutoModerationRuleUpdated',
  { guildId: string; ruleId: string; changes: Change[]; rule: AutoModerationRuleData }
>;
export type AutoModerationRuleDeleted = DomainEvent<'AutoModerationRuleDeleted', { guildId: string; rule: AutoModerationRuleData }>;
export type AutoModerationEvent = AutoModerationRuleCreated | AutoModerationRuleUpdated | AutoModerationRuleDeleted;

export type AutoModerationCommand =
  | { type: 'CreateAutoModerationRule'; actorId: string; rule: AutoModerationRuleData }
  | { type: 'UpdateAutoModerationRule'; actorId: string; ruleId: string; edit: AutoModerationRuleEdit }
  | { type: 'DeleteAutoModerationRule'; actorId: string; ruleId: string };

export const unknownAutoModerationRule = () => notFound('UNKNOWN_AUTO_MODERATION_RULE', 'Unknown auto moderation rule');

/** The metadata a trigger type reads, with its defaults; fields of other types are dropped. */
export function triggerMetadataFor(triggerType: number, given: TriggerMetadata = {}): TriggerMetadata {
  switch (triggerType) {
    case TriggerType.KEYWORD:
      return { keyword_filter: given.keyword_filter ?? [], regex_patterns: given.regex_patterns ?? [], allow_list: given.allow_list ?? [] };
    case TriggerType.KEYWORD_PRESET:
      return { presets: given.presets ?? [], allow_list: given.allow_list ?? [] };
    case TriggerType.MENTION_SPAM:
      return { mention_total_limit: given.mention_total_limit ?? 0, mention_raid_protection_enabled: given.mention_raid_protection_enabled ?? false };
    default:
      return {};
  }
}

/** The rules of a rule that span its fields and the guild: the per-field bounds are in the request schema. */
function ruleErrors(state: GuildState, actorPermissions: bigint, rule: AutoModerationRuleData): FieldError[] {
  const errors: FieldError[] = [];
  const meta = rule.trigger_metadata;
  const allowMax = AUTO_MODERATION_LIMITS.allowList[rule.trigger_type];
  if (allowMax !== undefined && (meta.allow_list?.length ?? 0) > allowMax) {
    errors.push({ path: 'trigger_metadata.allow_list', message: `Must have ${allowMax} or fewer items`, code: 'BASE_TYPE_MAX_LENGTH' });
  }
  if (rule.trigger_type === TriggerType.KEYWORD && !meta.keyword_filter?.length && !meta.regex_patterns?.length) {
    errors.push({ path: 'trigger_metadata.keyword_filter', message: 'A keyword rule needs keyword_filter or regex_patterns', code: 'BASE_TYPE_REQUIRED' });
  }
  if (rule.trigger_type === TriggerType.KEYWORD_PRESET && !meta.presets?.length) {
    errors.push({ path: 'trigger_metadata.presets', message: 'A keyword preset rule needs at least one preset', code: 'BASE_TYPE_REQUIRED' });
  }
  if (rule.trigger_type === TriggerType.MENTION_SPAM && !meta.mention_total_limit) {
    errors.push({ path: 'trigger_metadata.mention_total_limit', message: 'A mention spam rule needs mention_total_limit', code: 'BASE_TYPE_REQUIRED' });
  }
  rule.actions.forEach((action, i) => {
    if (action.type === ActionType.SEND_ALERT_MESSAGE) {
      const channel = action.metadata.channel_id ? state.channels.get(action.metadata.channel_id) : undefined;
      if (!channel || (channel.type !== ChannelType.GUILD_TEXT && channel.type !== ChannelType.GUILD_ANNOUNCEMENT)) {
        errors.push({ path: `actions.${i}.metadata.channel_id`, message: 'Must be a text channel of this guild' });
      }
    }
    if (action.type === ActionType.TIMEOUT) {
      if (rule.trigger_type !== TriggerType.KEYWORD && rule.trigger_type !== TriggerType.MENTION_SPAM) {
        errors.push({ path: `actions.${i}.type`, message: 'A timeout action is only allowed on keyword and mention spam rules' });
      } else if (!action.metadata.duration_seconds) {
        errors.push({ path: `actions.${i}.metadata.duration_seconds`, message: 'A timeout action needs duration_seconds', code: 'BASE_TYPE_REQUIRED' });
      } else if (!hasPermission(actorPermissions, Permission.MODERATE_MEMBERS)) {
        errors.push({ path: `actions.${i}.type`, message: 'A timeout action needs the MODERATE_MEMBERS permission' });
      }
    }
  });
  rule.exempt_roles.forEach((id, i) => {
    if (!state.roles.has(id)) errors.push({ path: `exempt_roles.${i}`, message: 'Unknown role' });
  });
  rule.exempt_channels.forEach((id, i) => {
    if (!state.channels.has(id)) errors.push({ path: `exempt_channels.${i}`, message: 'Unknown channel' });
  });
  return errors;
}

function requireRule(state: GuildState, ruleId: string): AutoModerationRuleData {
  const rule = state.autoModerationRules.get(ruleId);
  if (!rule) throw unknownAutoModerationRule();
  return rule;
}

export const autoModerationDeciders = {
  CreateAutoModerationRule(command: Extract<AutoModerationCommand, { type: 'CreateAutoModerationRule' }>, state: GuildState): AutoModerationEvent[] {
    const permissions = requireGuildPermission(state, command.actorId, Permission.MANAGE_GUILD);
    const { rule } = command;
    const sameType = [...state.autoModerationRules.values()].filter((r) => r.trigger_type === rule.trigger_type).length;
    if (sameType >= AUTO_MODERATION_LIMITS.rulesPerType[rule.trigger_type]) {
      throw invalidForm([
        { path: 'trigger_type', message: 'Maximum number of rules of this type exceeded', code: 'AUTO_MODERATION_MAX_RULES_OF_TYPE_EXCEEDED' },
      ]);
    }
    const errors = ruleErrors(state, permissions, rule);
    if (errors.length) throw invalidForm(errors);
    return [{ type: 'AutoModerationRuleCreated', data: { guildId: state.id, rule } }];
  },

  UpdateAutoModerationRule(command: Extract<AutoModerationCommand, { type: 'UpdateAutoModerationRule' }>, state: GuildState): AutoModerationEvent[] {
    const permissions = requireGuildPermission(state, command.actorId, Permission.MANAGE_GUILD);
    const current = requireRule(state, command.ruleId);
    // Fields not given (undefined) keep their values.
    const edit: AutoModerationRuleEdit = Object.fromEntries(Object.entries(command.edit).filter(([, value]) => value !== undefined));
    if (edit.trigger_metadata) edit.trigger_metadata = triggerMetadataFor(current.trigger_type, edit.trigger_metadata);
    const rule = { ...current, ...edit };
    const errors = ruleErrors(state, permissions, rule);
    if (errors.length) throw invalidForm(errors);
    const changes = diff(current, edit);
    return changes.length ? [{ type: 'AutoModerationRuleUpdated', data: { guildId: state.id, ruleId: rule.id, changes, rule } }] : [];
  },

  DeleteAutoModerationRule(command: Extract<AutoModerationCommand, { type: 'DeleteAutoModerationRule' }>, state: GuildState): AutoModerationEvent[] {
    requireGuildPermission(state, command.actorId, Permission.MANAGE_GUILD);
    return [{ type: 'AutoModerationRuleDeleted', data: { guildId: state.id, rule: requireRule(state, command.ruleId) } }];
  },
};

export const autoModerationEvolvers = {
  AutoModerationRuleCreated: (state: GuildState, event: AutoModerationRuleCreated): GuildState => ({
    ...state,
    autoModerationRules: withEntry(state.autoModerationRules, event.data.rule.id, event.data.rule),
  }),
  AutoModerationRuleUpdated: (state: GuildState, event: AutoModerationRuleUpdated): GuildState => ({
    ...state,
    autoModerationRules: withEntry(state.autoModerationRules, event.data.ruleId, event.data.rule),
  }),
  AutoModerationRuleDeleted: (state: GuildState, event: AutoModerationRuleDeleted): GuildState => ({
    ...state,
    autoModerationRules: withoutEntry(state.autoModerationRules, event.data.rule.id),
  }),
};
