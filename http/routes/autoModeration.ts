// Auto-moderation rules of a guild, as the widely used API serves them: list, get, create, change, delete, all for
// members with MANAGE_GUILD. The per-field bounds are the schemas below; the rules that span fields or the guild (at
// most 6 keyword rules and 1 of each other type, an alert channel of the guild, TIMEOUT only on keyword and mention
// spam rules) are the decider's (domain/autoModeration.ts), and each regex is checked for catastrophic backtracking
// before anything is decided (commands/autoModeration.ts).
import { AutoModerationRule } from '../../contracts/moderation.js';
import { list } from '../../contracts/schema.js';
import {
  createAutoModerationRule,
  deleteAutoModerationRule,
  getAutoModerationRule,
  listAutoModerationRules,
  updateAutoModerationRule,
} from '../../commands/autoModeration.js';
import { AUTO_MODERATION_LIMITS as LIMITS, type AutoModerationAction } from '../../domain/autoModeration.js';
import { autoModerationRuleObject } from '../../presenters/autoModeration.js';
import { actorMeta } from '../actor.js';
import { requireAuth } from '../auth.js';
import { guildMembersOnly } from '../guildLimits.js';
import { guildParams } from '../params.js';
import { route } from '../route.js';
import { snowflakeSchema } from '../validation.js';

const ruleParams = { type: 'object', properties: { guildId: snowflakeSchema, ruleId: snowflakeSchema }, required: ['guildId', 'ruleId'] } as const;

const keywordList = (maxItems: number) => ({ type: 'array', items: { type: 'string', minLength: 1, maxLength: LIMITS.keywordLength }, maxItems }) as const;

const triggerMetadata = {
  type: 'object',
  properties: {
    keyword_filter: keywordList(LIMITS.keywords),
    regex_patterns: { type: 'array', items: { type: 'string', minLength: 1, maxLength: LIMITS.regexLength }, maxItems: LIMITS.regexPatterns },
    presets: { type: 'array', items: { type: 'integer', enum: [1, 2, 3] }, maxItems: 3, uniqueItems: true },
    // The larger bound is a preset rule's; a keyword rule's (100) is the decider's.
    allow_list: keywordList(LIMITS.allowList[4]),
    mention_total_limit: { type: 'integer', minimum: 1, maximum: LIMITS.mentionTotal },
    mention_raid_protection_enabled: { type: 'boolean' },
  },
  additionalProperties: false,
} as const;

const actions = {
  type: 'array',
  minItems: 1,
  maxItems: 3,
  items: {
    type: 'object',
    properties: {
      type: { type: 'integer', enum: [1, 2, 3] },
      metadata: {
        type: 'object',
        properties: {
          channel_id: snowflakeSchema,
          duration_seconds: { type: 'integer', minimum: 1, maximum: LIMITS.timeoutSeconds },
          custom_message: { type: 'string', maxLength: LIMITS.customMessage },
        },
        additionalProperties: false,
      },
    },
    required: ['type'],
    additionalProperties: false,
  },
} as const;

const ruleFields = {
  name: { type: 'string', minLength: 1, maxLength: 100 },
  event_type: { type: 'integer', enum: [1] },
  trigger_metadata: triggerMetadata,
  actions,
  enabled: { type: 'boolean' },
  exempt_roles: { type: 'array', items: snowflakeSchema, maxItems: LIMITS.exemptRoles, uniqueItems: true },
  exempt_channels: { type: 'array', items: snowflakeSchema, maxItems: LIMITS.exemptChannels, uniqueItems: true },
} as const;

export const createRuleSchema = {
  type: 'object',
  properties: { ...ruleFields, trigger_type: { type: 'integer', enum: [1, 3, 4, 5] } },
  required: ['name', 'event_type', 'trigger_type', 'actions'],
  additionalProperties: false,
} as const;

export const updateRuleSchema = { type: 'object', properties: ruleFields, additionalProperties: false } as const;

/** Actions as stored: metadata always an object, as the widely used API answers it. */
const actionsOf = (given: { type: number; metadata?: AutoModerationAction['metadata'] }[] | undefined) =>
  given?.map((action) => ({ type: action.type, metadata: action.metadata ?? {} }));

const rule = { description: 'The rule.', schema: AutoModerationRule };
const base = { tag: 'Guilds', auth: 'any', guards: [guildMembersOnly] } as const;

export const listRulesRoute = route({
  ...base,
  method: 'GET',
  path: '/guilds/:guildId/auto-moderation/rules',
  summary: 'List a guild’s auto-moderation rules',
  description: 'Needs MANAGE_GUILD.',
  params: guildParams,
  responses: { 200: { description: 'The rules.', schema: list(AutoModerationRule) } },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  handle: async (ctx, { params }, deps) => (await listAutoModerationRules(deps, params.guildId, requireAuth(ctx).userId)).map(autoModerationRuleObject),
});

export const getRuleRoute = route({
  ...base,
  method: 'GET',
  path: '/guilds/:guildId/auto-moderation/rules/:ruleId',
  summary: 'Get an auto-moderation rule',
  description: 'Needs MANAGE_GUILD.',
  params: ruleParams,
  responses: { 200: rule },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS', 'UNKNOWN_AUTO_MODERATION_RULE'],
  handle: async (ctx, { params }, deps) => autoModerationRuleObject(await getAutoModerationRule(deps, params.guildId, params.ruleId, requireAuth(ctx).userId)),
});

export const createRuleRoute = route({
  ...base,
  method: 'POST',
  path: '/guilds/:guildId/auto-moderation/rules',
  summary: 'Create an auto-moderation rule',
  description:
    'Needs MANAGE_GUILD (and MODERATE_MEMBERS for a TIMEOUT action). At most 6 keyword rules and one rule of each other trigger type; each of `regex_patterns` must be safe from catastrophic backtracking. `enabled` is false unless given.',
  params: guildParams,
  body: createRuleSchema,
  audit: 'AUTO_MODERATION_RULE_CREATE',
  responses: { 200: rule },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  handle: async (ctx, { params, body }, deps) =>
    autoModerationRuleObject(await createAutoModerationRule(deps, actorMeta(ctx), params.guildId, { ...body, actions: actionsOf(body.actions)! })),
});

export const updateRuleRoute = route({
  ...base,
  method: 'PATCH',
  path: '/guilds/:guildId/auto-moderation/rules/:ruleId',
  summary: 'Change an auto-moderation rule',
  description: 'Needs MANAGE_GUILD. Only the fields given change; `trigger_metadata` is replaced whole.',
  params: ruleParams,
  body: updateRuleSchema,
  audit: 'AUTO_MODERATION_RULE_UPDATE',
  responses: { 200: rule },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS', 'UNKNOWN_AUTO_MODERATION_RULE'],
  handle: async (ctx, { params, body }, deps) =>
    autoModerationRuleObject(
      await updateAutoModerationRule(deps, actorMeta(ctx), params.guildId, params.ruleId, { ...body, actions: actionsOf(body.actions) }),
    ),
});

export const deleteRuleRoute = route({
  ...base,
  method: 'DELETE',
  path: '/guilds/:guildId/auto-moderation/rules/:ruleId',
  summary: 'Delete an auto-moderation rule',
  description: 'Needs MANAGE_GUILD.',
  params: ruleParams,
  audit: 'AUTO_MODERATION_RULE_DELETE',
  responses: { 204: { description: 'Deleted.' } },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS', 'UNKNOWN_AUTO_MODERATION_RULE'],
  handle: (ctx, { params }, deps) => deleteAutoModerationRule(deps, actorMeta(ctx), params.guildId, params.ruleId),
});

export const autoModerationRoutes = [listRulesRoute, getRuleRoute, createRuleRoute, updateRuleRoute, deleteRuleRoute];
