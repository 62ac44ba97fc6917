// Rolling back a raid: what one actor did to a guild in a window of the last 7 days, planned from the log
// (domain/rollback.ts) and applied as the caller's own ordinary commands, each with its audit entry and dispatches.
// Every compensating event names the event it undoes as its cause, so a second plan sees the first was applied.
import { DomainError, invalidForm, missingPermissions, notFound } from '../domain/errors.js';
import type { GuildCommand } from '../domain/guild.js';
import { type ChannelData, type GuildState, outranks } from '../domain/guildState.js';
import { Permission, requirePermission } from '../domain/permissions.js';
import { type NotUndoable, type RollbackAction, type RollbackWindow, planRollback } from '../domain/rollback.js';
import { snowflakeTimestamp } from '../domain/snowflake.js';
import { invitesOf } from '../projections/invites.queries.js';
import { messagesByAuthorSince } from '../projections/messages.queries.js';
import { userById } from '../projections/users.queries.js';
import { webhooksOf } from '../projections/webhooks.queries.js';
import { guildAccess, loadGuild } from './access.js';
import type { ActorMeta, Uses } from './deps.js';
import { guildEmojiIds } from './emojis.js';
import { type HistoryDeps, loggedEvent, readGuildLog } from './guildHistory.js';
import { deleteChannel } from './channels.js';
import { runGuildCommand } from './guilds.js';
import { deleteInvite } from './invites.js';
import { deleteMessage } from './messages/delete.js';
import { deleteWebhook, managedWebhook } from './webhooks.js';

/** Actions that remove what the actor made. */
const REMOVALS: RollbackAction['kind'][] = ['delete_message', 'delete_channel', 'delete_role', 'revoke_invite', 'delete_webhook'];

/** How far back a rollback reaches. */
export const ROLLBACK_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

export type RollbackDeps = HistoryDeps & Uses<'commands' | 'readStore' | 'ids' | 'clock' | 'settle' | 'settleFiles'>;

export interface RollbackInput {
  actorId: string;
  after?: string;
  before?: string;
  dryRun?: boolean;
}

export interface RollbackResult extends RollbackWindow {
  dryRun: boolean;
  actions: RollbackAction[];
  notUndoable: NotUndoable[];
  applied: boolean;
  idMap: Record<string, string>;
}

/** The window asked for, within the last 7 days and in order; 400 otherwise. */
function windowOf(deps: Uses<'clock'>, input: RollbackInput): RollbackWindow {
  const now = deps.clock.now();
  const after = input.after ? Date.parse(input.after) : now - ROLLBACK_WINDOW_MS;
  const before = input.before ? Date.parse(input.before) : now;
  if (after < now - ROLLBACK_WINDOW_MS) throw invalidForm([{ path: 'after', message: 'Must be within the last 7 days' }]);
  if (before < after) throw invalidForm([{ path: 'before', message: 'Must not be before after' }]);
  return { actorId: input.actorId, after: new Date(after).toISOString(), before: new Date(before).toISOString() };
}

/** ADMINISTRATOR (or the owner), an actor who exists and is below the caller (or is the caller). */
async function requireRollbackRights(deps: RollbackDeps, callerId: string, guildId: string, actorId: string) {
  const { guild, permissions } = await guildAccess(deps, guildId, callerId);
  requirePermission(permissions, Permission.ADMINISTRATOR);
  if (!(await userById(deps.readStore, actorId))) throw notFound('UNKNOWN_USER', 'Unknown User');
  if (actorId !== callerId && !outranks(guild, callerId, actorId))
    throw missingPermissions('Missing Permissions: the actor is not below you in the role hierarchy');
}

/** What the actor made outside the guild's stream that still stands. */
async function standingWorkOf(deps: Uses<'readStore'>, guildId: string, window: RollbackWindow) {
  const [messages, invites, webhooks] = await Promise.all([
    messagesByAuthorSince(deps.readStore, guildId, window.actorId, window.after),
    invitesOf(deps.readStore, { guild_id: guildId, pack_id: null }),
    webhooksOf(deps.readStore, { guild_id: guildId }),
  ]);
  return {
    messages: messages.map((m) => ({ id: m._id, channelId: m.channel_id, at: m.timestamp })),
    invites: invites.filter((i) => i.inviter_id === window.actorId).map((i) => ({ code: i.code, at: i.created_at })),
    webhooks: webhooks.filter((w) => w.creator_id === window.actorId).map((w) => ({ id: w._id, at: new Date(snowflakeTimestamp(w._id)).toISOString() })),
  };
}

export async function rollBack(deps: RollbackDeps, meta: ActorMeta, guildId: string, input: RollbackInput): Promise<RollbackResult> {
  const window = windowOf(deps, input);
  await requireRollbackRights(deps, meta.actorId, guildId, input.actorId);
  const [log, standing] = await Promise.all([readGuildLog(deps, guildId, 'actor_id'), standingWorkOf(deps, guildId, window)]);
  const plan = planRollback(log.map(loggedEvent), window, standing);
  const dryRun = input.dryRun ?? false;
  const result = { ...window, dryRun, actions: plan.actions, notUndoable: plan.not_undoable, applied: false, idMap: plan.idMap };
  if (dryRun) return result;
  const reason = `Rollback of ${window.actorId} ${window.after}..${window.before}`;
  const idMap = { ...plan.idMap };
  for (const action of plan.actions) {
    try {
      await apply(deps, { ...meta, reason, causationId: action.cause }, guildId, action, idMap);
    } catch (error) {
      // What someone removed since the plan was read needs no removing: the compensation is made.
      if (!(REMOVALS.includes(action.kind) && error instanceof DomainError && error.kind === 'not_found')) throw error;
    }
  }
  return { ...result, applied: true, idMap };
}

/** One compensation, as the caller's command; `idMap` learns the ids of what it recreates. */
async function apply(deps: RollbackDeps, meta: ActorMeta, guildId: string, action: RollbackAction, idMap: Record<string, string>) {
  const current = (id: string) => idMap[id] ?? id;
  const run = (command: GuildCommand) => runGuildCommand(deps, meta, guildId, command);
  const actorId = meta.actorId;
  switch (action.kind) {
    case 'recreate_role': {
      const { name, color, hoist, mentionable, permissions, position } = action.role;
      const roleId = deps.ids.next();
      await run({ type: 'CreateRole', actorId, roleId, fields: { name, color, hoist, mentionable, permissions } });
      idMap[action.target_id] = roleId;
      if (position !== 1) await run({ type: 'MoveRoles', actorId, positions: [{ id: roleId, position }] });
      return;
    }
    case 'restore_role': {
      const { position, ...fields } = action.fields;
      const roleId = current(action.target_id);
      if (Object.keys(fields).length) await run({ type: 'UpdateRole', actorId, roleId, fields });
      if (position !== undefined) await run({ type: 'MoveRoles', actorId, positions: [{ id: roleId, position }] });
      return;
    }
    case 'recreate_channel': {
      const { id: _old, type, permission_overwrites, parent_id, ...fields } = action.channel;
      const guild = await loadGuild(deps, guildId);
      const channelId = deps.ids.next();
      const channel = { ...fields, type, ...inGuild(guild, current, { permission_overwrites, parent_id }) };
      await run({ type: 'CreateChannel', actorId, channelId, fields: channel, emojiIds: await guildEmojiIds(deps, guildId) });
      idMap[action.target_id] = channelId;
      return;
    }
    case 'restore_channel': {
      const guild = await loadGuild(deps, guildId);
      const { permission_overwrites, parent_id, ...fields } = action.fields;
      const restored = { ...fields, ...inGuild(guild, current, { permission_overwrites, parent_id }) };
      await run({ type: 'UpdateChannel', actorId, channelId: current(action.target_id), fields: restored, emojiIds: await guildEmojiIds(deps, guildId) });
      return;
    }
    case 'restore_guild': {
      const settings = { ...action.fields };
      for (const key of ['afk_channel_id', 'system_channel_id'] as const) if (settings[key]) settings[key] = current(settings[key]);
      await run({ type: 'UpdateGuild', actorId, settings });
      return;
    }
    case 'unban':
      await run({ type: 'UnbanMember', actorId, userId: action.target_id });
      return;
    case 'restore_member_roles':
      await run({ type: 'UpdateMember', actorId, userId: action.target_id, roles: action.roles.map(current) });
      return;
    case 'lift_timeout':
      await run({ type: 'UpdateMember', actorId, userId: action.target_id, communicationDisabledUntil: null });
      return;
    case 'delete_message':
      await deleteMessage(deps, meta, action.channelId, action.target_id);
      return;
    case 'delete_channel':
      await deleteChannel(deps, meta, guildId, action.target_id);
      return;
    case 'delete_role':
      await run({ type: 'DeleteRole', actorId, roleId: action.target_id });
      return;
    case 'revoke_invite':
      await deleteInvite(deps, meta, action.target_id);
      return;
    case 'delete_webhook':
      await deleteWebhook(deps, meta, await managedWebhook(deps, action.target_id, actorId));
      return;
  }
}

/**
 * A channel's overwrites and parent as they can be set now: ids of recreated roles and channels mapped, overwrites
 * of roles and members no longer in the guild left out, a parent no longer there dropped.
 */
function inGuild(
  guild: GuildState,
  current: (id: string) => string,
  { permission_overwrites, parent_id }: Partial<Pick<ChannelData, 'permission_overwrites' | 'parent_id'>>,
) {
  const fields: Partial<Pick<ChannelData, 'permission_overwrites' | 'parent_id'>> = {};
  if (permission_overwrites)
    fields.permission_overwrites = permission_overwrites
      .map((o) => ({ ...o, id: o.type === 0 ? current(o.id) : o.id }))
      .filter((o) => (o.type === 0 ? guild.roles.has(o.id) : guild.members.has(o.id)));
  if (parent_id !== undefined) fields.parent_id = parent_id && guild.channels.has(current(parent_id)) ? current(parent_id) : null;
  return fields;
}
