// A guild's history for moderators: the guild as it was at a moment of its log (time travel), what changed between
// two moments in the audit log's words, and rolling back what one actor did in a window of the last 7 days.
import { type GuildThen, type Moment, guildAsAt, guildChangesBetween } from '../../commands/guildHistory.js';
import { rollBack } from '../../commands/rollbacks.js';
import { invalidForm } from '../../domain/errors.js';
import { decodePosition, encodePosition } from '../../ports/eventStore.js';
import { auditEntryObject } from '../../presenters/auditLog.js';
import { autoModerationRuleObject } from '../../presenters/autoModeration.js';
import { channelObject } from '../../presenters/channels.js';
import { roleObject } from '../../presenters/roles.js';
import { apiTimestamp } from '../../presenters/timestamps.js';
import type { ReadStore } from '../../ports/readStore.js';
import { actorMeta, usersById } from '../actor.js';
import { requireAuth } from '../auth.js';
import { guildMembersOnly, perGuildLimit } from '../guildLimits.js';
import { guildParams } from '../params.js';
import { route } from '../route.js';
import { snowflakeSchema, timestampSchema } from '../validation.js';

/** A moment: an ISO 8601 time, or a position in the log (`commit/prepare`, or one number where both are one). */
const momentSchema = { type: 'string', minLength: 1, maxLength: 64 } as const;

function momentOf(text: string, path: string): Moment {
  const position = /^(\d{1,19})(?:\/(\d{1,19}))?$/.exec(text);
  if (position) return { position: position[2] ? decodePosition(text) : { commit: BigInt(position[1]), prepare: BigInt(position[1]) } };
  if (/^\d{4}-\d{2}-\d{2}/.test(text) && !Number.isNaN(Date.parse(text))) return { time: new Date(Date.parse(text)).toISOString() };
  throw invalidForm([{ path, message: 'Must be an ISO 8601 time or a log position' }]);
}

/** When and where in the log a state is from: the moment asked for, and the position of the last event folded. */
const momentObject = (moment: Moment, then: GuildThen) => ({
  time: 'time' in moment ? moment.time : apiTimestamp(then.last.metadata.createdAt),
  position: encodePosition(then.last.position),
});

const userRef = (users: Map<string, { username: string }>, id: string) => ({ id, username: users.get(id)?.username ?? null });

/** The guild's structure as it was: settings, channels, roles, members, bans and auto-moderation rules. No message text. */
async function structureObject(readStore: ReadStore, { state, banReasons }: GuildThen) {
  const users = await usersById(readStore, [...state.members.keys(), ...state.bans]);
  const byPosition = <T extends { position: number; id: string }>(list: Iterable<T>) =>
    [...list].sort((a, b) => a.position - b.position || a.id.localeCompare(b.id));
  return {
    guild: { id: state.id, ...state.settings, vanity_url_code: state.vanityCode },
    channels: byPosition(state.channels.values()).map(({ id, ...channel }) => channelObject({ _id: id, guild_id: state.id, ...channel })),
    roles: byPosition(state.roles.values()).map(({ id, ...role }) => roleObject({ _id: id, guild_id: state.id, ...role })),
    members: [...state.members.values()].map((m) => ({
      user: userRef(users, m.user_id),
      roles: m.roles,
      joined_at: apiTimestamp(m.joined_at),
      communication_disabled_until: m.communication_disabled_until ?? null,
    })),
    bans: [...state.bans].map((userId) => ({ user: userRef(users, userId), reason: banReasons.get(userId) ?? null })),
    auto_moderation_rules: [...state.autoModerationRules.values()].map(autoModerationRuleObject),
  };
}

const historyLimit = perGuildLimit('guild-history', 10, 10);

const STRUCTURE = {
  type: 'object',
  properties: {
    at: { type: 'object', properties: { time: { type: 'string' }, position: { type: 'string' } }, required: ['time', 'position'] },
    guild: { type: 'object' },
    channels: { type: 'array', items: { type: 'object' } },
    roles: { type: 'array', items: { type: 'object' } },
    members: { type: 'array', items: { type: 'object' } },
    bans: { type: 'array', items: { type: 'object' } },
    auto_moderation_rules: { type: 'array', items: { type: 'object' } },
  },
  required: ['at', 'guild', 'channels', 'roles', 'members', 'bans', 'auto_moderation_rules'],
} as const;

export const guildHistoryRoute = route({
  method: 'GET',
  path: '/guilds/:guildId/history',
  summary: 'Get the guild as it was at a moment',
  description:
    'Needs VIEW_AUDIT_LOG. `at` is an ISO 8601 time or a log position. Folded from the guild’s events up to then, never from the present read models; message text is not part of it. The fold reads at most 100000 events of the guild’s stream: a longer one answers 400.',
  tag: 'Audit log',
  auth: 'any',
  guards: [guildMembersOnly],
  params: guildParams,
  query: { type: 'object', properties: { at: momentSchema }, required: ['at'] } as const,
  limits: [historyLimit],
  responses: { 200: { description: 'The guild’s structure then.', schema: STRUCTURE } },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params: { guildId }, query }, deps) {
    const moment = momentOf(query.at, 'at');
    const then = await guildAsAt(deps, requireAuth(ctx).userId, guildId, moment);
    return { at: momentObject(moment, then), ...(await structureObject(deps.readStore, then)) };
  },
});

export const guildHistoryDiffRoute = route({
  method: 'GET',
  path: '/guilds/:guildId/history/diff',
  summary: 'List what changed in the guild between two moments',
  description:
    'Needs VIEW_AUDIT_LOG. `from` and `to` are ISO 8601 times or log positions (`to` defaults to now; a `from` before the guild is its creation). Each entry is the audit log’s entry of one change to the guild’s structure, with its `time`, oldest first.',
  tag: 'Audit log',
  auth: 'any',
  guards: [guildMembersOnly],
  params: guildParams,
  query: { type: 'object', properties: { from: momentSchema, to: momentSchema }, required: ['from'] } as const,
  limits: [historyLimit],
  responses: {
    200: {
      description: 'The two moments and the entries between them.',
      schema: {
        type: 'object',
        properties: { from: STRUCTURE.properties.at, to: STRUCTURE.properties.at, entries: { type: 'array', items: { type: 'object' } } },
        required: ['from', 'to', 'entries'],
      },
    },
  },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params: { guildId }, query }, deps) {
    const from = momentOf(query.from, 'from');
    const to = query.to ? momentOf(query.to, 'to') : { time: new Date(deps.clock.now()).toISOString() };
    const changes = await guildChangesBetween(deps, requireAuth(ctx).userId, guildId, from, to);
    return {
      from: momentObject(changes.fromMoment, changes.from),
      to: momentObject(to, changes.to),
      entries: changes.entries.map((entry) => ({ ...auditEntryObject(entry), time: apiTimestamp(entry.timestamp) })),
    };
  },
});

export const rollbackRoute = route({
  method: 'POST',
  path: '/guilds/:guildId/rollbacks',
  summary: 'Roll back what one actor did in the guild',
  description:
    'Needs ADMINISTRATOR (or the owner), and an actor below the caller. The window (`after`, `before`) lies within the last 7 days and defaults to all of it. Answers the plan: each compensating action, and what cannot be undone and why. Without `dry_run` it applies the plan as the caller’s own actions, each with its audit entry (reason `Rollback of <actor> <window>`); a plan applied once plans nothing more (a refusal midway keeps what was applied: applying again goes on from there). Recreated channels and roles get new ids: `id_map` maps the old to the new.',
  tag: 'Audit log',
  auth: 'any',
  guards: [guildMembersOnly],
  params: guildParams,
  body: {
    type: 'object',
    properties: { actor_id: snowflakeSchema, after: timestampSchema, before: timestampSchema, dry_run: { type: 'boolean' } },
    required: ['actor_id'],
    additionalProperties: false,
  } as const,
  limits: [perGuildLimit('guild-rollbacks', 20, 60)],
  responses: {
    200: {
      description: 'The plan, applied unless `dry_run`.',
      schema: {
        type: 'object',
        properties: {
          actor_id: { type: 'string' },
          after: { type: 'string' },
          before: { type: 'string' },
          dry_run: { type: 'boolean' },
          actions: {
            type: 'array',
            items: {
              type: 'object',
              properties: { kind: { type: 'string' }, target_id: { type: 'string' }, description: { type: 'string' } },
              required: ['kind', 'target_id', 'description'],
            },
          },
          not_undoable: {
            type: 'array',
            items: { type: 'object', properties: { target_id: { type: 'string' }, reason: { type: 'string' } }, required: ['target_id', 'reason'] },
          },
          applied: { type: 'boolean' },
          id_map: { type: 'object', additionalProperties: { type: 'string' } },
        },
        required: ['actor_id', 'after', 'before', 'dry_run', 'actions', 'not_undoable', 'applied', 'id_map'],
      },
    },
  },
  errors: ['UNKNOWN_GUILD', 'UNKNOWN_USER', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params: { guildId }, body }, deps) {
    const input = { actorId: body.actor_id, after: body.after, before: body.before, dryRun: body.dry_run };
    const result = await rollBack(deps, actorMeta(ctx), guildId, input);
    return {
      actor_id: result.actorId,
      after: result.after,
      before: result.before,
      dry_run: result.dryRun,
      actions: result.actions.map(({ kind, target_id, description }) => ({ kind, target_id, description })),
      not_undoable: result.notUndoable,
      applied: result.applied,
      id_map: result.idMap,
    };
  },
});

export const guildHistoryRoutes = [guildHistoryRoute, guildHistoryDiffRoute, rollbackRoute];
