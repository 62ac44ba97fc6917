// A guild's auto-moderation rules: listed, read, created, changed and deleted by members with MANAGE_GUILD. Rules are
// part of the guild aggregate, so they are read from its state (the same state every send is checked against).
// regex_patterns are compiled and checked for catastrophic backtracking (recheck) before anything is decided: a rule
// whose regex could take super-linear time on some message is refused, so no rule can slow the send path.
import { check } from 'recheck';
import {
  type AutoModerationRuleData,
  type AutoModerationRuleEdit,
  EVENT_TYPE_MESSAGE_SEND,
  type TriggerMetadata,
  triggerMetadataFor,
  unknownAutoModerationRule,
} from '../domain/autoModeration.js';
import { REGEX_FLAGS, compile, regexSource } from '../domain/autoModerationMatch.js';
import { type FieldError, invalidForm } from '../domain/errors.js';
import { Permission, requirePermission } from '../domain/permissions.js';
import { guildAccess } from './access.js';
import type { ActorMeta, Uses } from './deps.js';
import { runGuildCommand } from './guilds.js';

/**
 * How long recheck may look at one pattern: one it cannot prove safe in that time is refused as unknown. It checks in
 * a process of its own, so a long check holds only the rule's writer; at 2 s a busy machine refused ordinary patterns.
 */
const REGEX_CHECK_MS = 10_000;

/** Rules are the guild managers' business: 403 MISSING_PERMISSIONS for other members (404 for outsiders). */
async function managedRules(deps: Uses<'commands' | 'clock'>, guildId: string, actorId: string) {
  const access = await guildAccess(deps, guildId, actorId);
  requirePermission(access.permissions, Permission.MANAGE_GUILD);
  return access.guild.autoModerationRules;
}

export async function listAutoModerationRules(deps: Uses<'commands' | 'clock'>, guildId: string, actorId: string): Promise<AutoModerationRuleData[]> {
  return [...(await managedRules(deps, guildId, actorId)).values()];
}

export async function getAutoModerationRule(
  deps: Uses<'commands' | 'clock'>,
  guildId: string,
  ruleId: string,
  actorId: string,
): Promise<AutoModerationRuleData> {
  const rule = (await managedRules(deps, guildId, actorId)).get(ruleId);
  if (!rule) throw unknownAutoModerationRule();
  return rule;
}

/**
 * Each pattern compiles, and recheck finds it safe from catastrophic backtracking, as it is compiled (regexSource: its
 * non-ASCII characters folded as the content is); otherwise 400 naming the pattern.
 */
async function checkRegexes(metadata: TriggerMetadata | undefined): Promise<void> {
  const errors: FieldError[] = [];
  const patterns = metadata?.regex_patterns ?? [];
  await Promise.all(
    patterns.map(async (pattern, i) => {
      const path = `trigger_metadata.regex_patterns.${i}`;
      const source = regexSource(pattern);
      try {
        new RegExp(source, REGEX_FLAGS);
      } catch {
        errors.push({ path, message: 'Invalid regex pattern' });
        return;
      }
      const { status } = await check(source, REGEX_FLAGS, { timeout: REGEX_CHECK_MS });
      if (status !== 'safe') {
        const why = status === 'vulnerable' ? 'can backtrack catastrophically' : 'could not be shown safe from catastrophic backtracking';
        errors.push({ path, message: `This pattern ${why}` });
      }
    }),
  );
  if (errors.length) throw invalidForm(errors.sort((a, b) => a.path.localeCompare(b.path)));
}

/** The rule version as the guild's state holds it, compiled here so that the writer waits for it rather than a send. */
function prepared(rule: AutoModerationRuleData): AutoModerationRuleData {
  compile(rule);
  return rule;
}

export interface RuleInput extends AutoModerationRuleEdit {
  name: string;
  trigger_type: number;
  actions: AutoModerationRuleData['actions'];
}

export async function createAutoModerationRule(
  deps: Uses<'commands' | 'ids' | 'clock' | 'settle'>,
  meta: ActorMeta,
  guildId: string,
  input: RuleInput,
): Promise<AutoModerationRuleData> {
  await managedRules(deps, guildId, meta.actorId);
  await checkRegexes(input.trigger_metadata);
  const rule: AutoModerationRuleData = {
    id: deps.ids.next(),
    guild_id: guildId,
    name: input.name,
    creator_id: meta.actorId,
    event_type: input.event_type ?? EVENT_TYPE_MESSAGE_SEND,
    trigger_type: input.trigger_type,
    trigger_metadata: triggerMetadataFor(input.trigger_type, input.trigger_metadata),
    actions: input.actions,
    enabled: input.enabled ?? false,
    exempt_roles: input.exempt_roles ?? [],
    exempt_channels: input.exempt_channels ?? [],
  };
  const { state } = await runGuildCommand(deps, meta, guildId, { type: 'CreateAutoModerationRule', actorId: meta.actorId, rule });
  return prepared(state.autoModerationRules.get(rule.id)!);
}

export async function updateAutoModerationRule(
  deps: Uses<'commands' | 'clock' | 'settle'>,
  meta: ActorMeta,
  guildId: string,
  ruleId: string,
  edit: AutoModerationRuleEdit,
): Promise<AutoModerationRuleData> {
  await getAutoModerationRule(deps, guildId, ruleId, meta.actorId);
  await checkRegexes(edit.trigger_metadata);
  const { state } = await runGuildCommand(deps, meta, guildId, { type: 'UpdateAutoModerationRule', actorId: meta.actorId, ruleId, edit });
  return prepared(state.autoModerationRules.get(ruleId)!);
}

export async function deleteAutoModerationRule(deps: Uses<'commands' | 'clock' | 'settle'>, meta: ActorMeta, guildId: string, ruleId: string): Promise<void> {
  await runGuildCommand(deps, meta, guildId, { type: 'DeleteAutoModerationRule', actorId: meta.actorId, ruleId });
}
