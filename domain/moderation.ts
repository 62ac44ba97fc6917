// Moderation over many members at once, in the guild stream: pruning the inactive, and bans in bulk. A prune is one
// moderator's act and the audit log shows it as one entry (MEMBER_PRUNE), so it is one set of events appended at once;
// a bulk ban is many bans, each the single ban's MemberBanned (its own audit entry, dispatches and read models).
import type { DomainEvent } from './decider.js';
import { badRequest, invalidForm } from './errors.js';
import { type GuildState, outranks, requireGuildPermission } from './guildState.js';
import type { MemberBanned } from './member.js';
import { Permission } from './permissions.js';

/** Members one MembersPruned names at most: a prune of a large guild is several of them, appended together. */
export const PRUNE_CHUNK = 1000;
/** The user ids one bulk ban takes, as in the widely used API. */
export const BULK_BAN_MAX = 200;

/**
 * Members removed by a prune, `part` (from 0) of the prune's events, each naming up to PRUNE_CHUNK of them; `total`
 * is how many the whole prune removed, and `days` the inactivity it asked for (the audit entry's options).
 */
export type MembersPruned = DomainEvent<'MembersPruned', { guildId: string; userIds: string[]; days: number; part: number; total: number }>;
export type ModerationEvent = MembersPruned | MemberBanned;

export type ModerationCommand =
  /**
   * `inactive`: the members the activity read model shows without activity since `inactiveSince` (an ISO time). The
   * decider keeps those the guild still holds as prunable: members since before then, with no role outside
   * `includeRoles`, neither the owner nor the actor, and below the actor.
   */
  | { type: 'PruneMembers'; actorId: string; days: number; inactiveSince: string; includeRoles: string[]; inactive: string[] }
  /** Existing users (the command layer drops unknown ids, which fail); each one that cannot be banned fails alone. */
  | { type: 'BanMembers'; actorId: string; userIds: string[]; deleteMessageSeconds: number; bannedAt: string };

function requireModerator(state: GuildState, actorId: string, permission: bigint): void {
  requireGuildPermission(state, actorId, permission);
  requireGuildPermission(state, actorId, Permission.MANAGE_GUILD);
}

function prunable(state: GuildState, command: Extract<ModerationCommand, { type: 'PruneMembers' }>): string[] {
  const included = new Set(command.includeRoles);
  return [...new Set(command.inactive)].filter((userId) => {
    const member = state.members.get(userId);
    return (
      member !== undefined &&
      member.joined_at < command.inactiveSince &&
      member.roles.every((roleId) => included.has(roleId)) &&
      // Never the owner, nor the actor (no one is below themselves).
      outranks(state, command.actorId, userId)
    );
  });
}

export const moderationDeciders = {
  PruneMembers(command: Extract<ModerationCommand, { type: 'PruneMembers' }>, state: GuildState): ModerationEvent[] {
    requireModerator(state, command.actorId, Permission.KICK_MEMBERS);
    const errors = command.includeRoles.flatMap((roleId, i) =>
      state.roles.has(roleId) && roleId !== state.id ? [] : [{ path: `include_roles.${i}`, message: 'Unknown role, or the @everyone role' }],
    );
    if (errors.length) throw invalidForm(errors);
    const userIds = prunable(state, command);
    const parts = Array.from({ length: Math.ceil(userIds.length / PRUNE_CHUNK) }, (_, part) => userIds.slice(part * PRUNE_CHUNK, (part + 1) * PRUNE_CHUNK));
    return parts.map((chunk, part) => ({
      type: 'MembersPruned',
      data: { guildId: state.id, userIds: chunk, days: command.days, part, total: userIds.length },
    }));
  },

  BanMembers(command: Extract<ModerationCommand, { type: 'BanMembers' }>, state: GuildState): ModerationEvent[] {
    requireModerator(state, command.actorId, Permission.BAN_MEMBERS);
    const { deleteMessageSeconds, bannedAt } = command;
    const banned = [...new Set(command.userIds)].filter((userId) => !state.bans.has(userId) && outranks(state, command.actorId, userId));
    // As the widely used API: a bulk ban that bans nobody is refused whole (its code 500000).
    if (!banned.length) throw badRequest('FAILED_TO_BAN_USERS', 'Failed to ban users');
    return banned.map((userId) => ({
      type: 'MemberBanned',
      data: { guildId: state.id, userId, deleteMessageSeconds, removedMember: state.members.has(userId), bannedAt },
    }));
  },
};

export const moderationEvolvers = {
  MembersPruned(state: GuildState, event: MembersPruned): GuildState {
    const members = new Map(state.members);
    for (const userId of event.data.userIds) members.delete(userId);
    return { ...state, members };
  },
};
