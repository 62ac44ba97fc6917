// Moderation over many members at once: the prune count and the prune of inactive members, and bulk bans.
import { BulkBanResult, PruneCount } from '../../contracts/moderation.js';
import { banUsers, countPrunable, pruneMembers } from '../../commands/moderation.js';
import { BULK_BAN_MAX } from '../../domain/moderation.js';
import { actorMeta } from '../actor.js';
import { guildMembersOnly, perGuildLimit } from '../guildLimits.js';
import { guildParams } from '../params.js';
import { route } from '../route.js';
import { queryInteger, snowflakeSchema } from '../validation.js';

const DEFAULT_PRUNE_DAYS = 7;

export const pruneCountQuery = {
  type: 'object',
  properties: {
    days: { ...queryInteger(1, 30), default: DEFAULT_PRUNE_DAYS },
    // Comma-separated role ids, as the widely used API takes them in the query.
    include_roles: { type: 'string', pattern: '^(?:[0-9]{1,20}(?:,[0-9]{1,20})*)?$', maxLength: 5250 },
  },
} as const;

export const pruneSchema = {
  type: 'object',
  properties: {
    // Bodies take no defaults (http/validation.ts): 7 days and the count, as the widely used API's, are the handler's.
    days: queryInteger(1, 30),
    compute_prune_count: { type: 'boolean' },
    include_roles: { type: 'array', items: snowflakeSchema, maxItems: 250 },
  },
  additionalProperties: false,
} as const;

export const bulkBanSchema = {
  type: 'object',
  properties: {
    user_ids: { type: 'array', items: snowflakeSchema, minItems: 1, maxItems: BULK_BAN_MAX },
    delete_message_seconds: { type: 'integer', minimum: 0, maximum: 604800 },
  },
  required: ['user_ids'],
  additionalProperties: false,
} as const;

const PRUNED =
  'Members without roles (but those of `include_roles`) and with no message, reaction, voice join or gateway session start for `days`, who joined before then; never the owner or the caller, and only members below the caller.';
/** Both prune routes spend one bucket: a count reads as much as a prune. */
const pruneLimit = perGuildLimit('guild-prune', 10, 60);

export const pruneCountRoute = route({
  method: 'GET',
  path: '/guilds/:guildId/prune',
  summary: 'Count the members a prune would remove',
  description: `${PRUNED} Needs KICK_MEMBERS and MANAGE_GUILD.`,
  tag: 'Members',
  auth: 'any',
  guards: [guildMembersOnly],
  params: guildParams,
  query: pruneCountQuery,
  limits: [pruneLimit],
  responses: { 200: { description: 'The count.', schema: PruneCount } },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params: { guildId }, query }, deps) {
    const includeRoles = query.include_roles ? query.include_roles.split(',') : [];
    return { pruned: await countPrunable(deps, actorMeta(ctx), guildId, { days: query.days, includeRoles }) };
  },
});

export const pruneRoute = route({
  method: 'POST',
  path: '/guilds/:guildId/prune',
  summary: 'Prune inactive members',
  description: `Removes the ${PRUNED.charAt(0).toLowerCase()}${PRUNED.slice(1)} Each leaves as a kicked member does (GUILD_MEMBER_REMOVE); the audit log has one entry for the prune. \`pruned\` is null when \`compute_prune_count\` is false. Needs KICK_MEMBERS and MANAGE_GUILD.`,
  tag: 'Members',
  auth: 'any',
  guards: [guildMembersOnly],
  params: guildParams,
  body: pruneSchema,
  limits: [pruneLimit],
  audit: 'MEMBER_PRUNE',
  responses: { 200: { description: 'How many were removed (null when not asked).', schema: PruneCount } },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params: { guildId }, body }, deps) {
    const input = { days: body.days ?? DEFAULT_PRUNE_DAYS, includeRoles: (body.include_roles as string[] | undefined) ?? [] };
    const pruned = await pruneMembers(deps, actorMeta(ctx), guildId, input);
    return { pruned: body.compute_prune_count === false ? null : pruned };
  },
});

export const bulkBanRoute = route({
  method: 'POST',
  path: '/guilds/:guildId/bulk-ban',
  summary: 'Ban up to 200 users',
  description:
    'Bans each user as a single ban does (deleting their messages of the last `delete_message_seconds`); users that cannot be banned (unknown, already banned, the owner, not below the caller) are listed in `failed_users`, and when none can be, nothing is done. Needs BAN_MEMBERS and MANAGE_GUILD.',
  tag: 'Members',
  auth: 'any',
  params: guildParams,
  body: bulkBanSchema,
  audit: 'MEMBER_BAN_ADD',
  responses: { 200: { description: 'Who was banned and who was not.', schema: BulkBanResult } },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS', 'FAILED_TO_BAN_USERS'],
  async handle(ctx, { params: { guildId }, body }, deps) {
    const { banned, failed } = await banUsers(deps, actorMeta(ctx), guildId, {
      userIds: body.user_ids as string[],
      deleteMessageSeconds: body.delete_message_seconds ?? 0,
    });
    return { banned_users: banned, failed_users: failed };
  },
});

export const moderationRoutes = [pruneCountRoute, pruneRoute, bulkBanRoute];
