// Members and bans of a guild (in the guild stream): joining, nicknames and roles, leaving, kicks and bans, with the
// role hierarchy of the widely used API.
import type { DomainEvent } from './decider.js';
import { badRequest, forbidden, invalidForm, missingPermissions } from './errors.js';
import {
  type Change,
  type GuildState,
  type MemberData,
  type RoleData,
  guildPermissions,
  isManagedRole,
  isOwner,
  requireAboveMember,
  requireAboveRole,
  requireGrantable,
  requireGuild,
  requireGuildPermission,
  requireMember,
  unknownBan,
  unknownMember,
  unknownRole,
  withEntry,
  withoutEntry,
} from './guildState.js';
import { ALL_PERMISSIONS, Permission, hasPermission, requirePermission } from './permissions.js';
import { unknownInvite } from './invite.js';
import type { RoleEvent } from './role.js';

export type MemberJoined = DomainEvent<
  'MemberJoined',
  {
    guildId: string;
    userId: string;
    joinedAt: string;
    /**
     * The invite or vanity code used; null for a join of no invite: the owner's at the guild's creation, a bot's added
     * by the bot flow, a user's a bot adds with guilds.join.
     */
    inviteCode: string | null;
    vanity: boolean;
    temporary: boolean;
    /** The invite's uses with this join, when the join is one of them; absent for joins made before they were counted here. */
    inviteUses?: number;
    /** Added by the event's actor through the OAuth2 bot flow (the audit log's BOT_ADD); absent otherwise. */
    botAdd?: boolean;
  }
>;
/**
 * Changes use the audit log's keys: `nick`, `avatar`, `banner`, `mute`, `deaf`, `communication_disabled_until` (a
 * timeout's end, ISO 8601, or null when lifted), and `$add` / `$remove` with [{id, name}] of the roles.
 */
export type MemberUpdated = DomainEvent<'MemberUpdated', { guildId: string; userId: string; changes: Change[] }>;
export type MemberLeft = DomainEvent<'MemberLeft', { guildId: string; userId: string }>;
export type MemberKicked = DomainEvent<'MemberKicked', { guildId: string; userId: string }>;
/** `removedMember` says whether the user was a member (a ban also shuts out users who never joined). */
export type MemberBanned = DomainEvent<
  'MemberBanned',
  { guildId: string; userId: string; deleteMessageSeconds: number; removedMember: boolean; bannedAt: string }
>;
export type MemberUnbanned = DomainEvent<'MemberUnbanned', { guildId: string; userId: string }>;
export type MemberEvent = MemberJoined | MemberUpdated | MemberLeft | MemberKicked | MemberBanned | MemberUnbanned;

export type MemberCommand =
  /**
   * `invite`: the join is a use of the invite `inviteCode`, which allows `maxUses` (0: any number) and had `usedBefore`
   * uses counted on its own stream before uses were counted with the joins.
   */
  | {
      type: 'JoinGuild';
      userId: string;
      joinedAt: string;
      inviteCode: string | null;
      vanity: boolean;
      temporary: boolean;
      invite?: { maxUses: number; usedBefore: number };
    }
  /** The OAuth2 bot flow: the bot joins with a managed role carrying `permissions` (a decimal string; none for "0"). */
  | { type: 'AddBot'; actorId: string; userId: string; roleId: string; roleName: string; permissions: string; joinedAt: string }
  /** `avatar` and `banner` are image hashes (null removes them), which only the member sets. */
  /** `mute` and `deaf` are the server's voice mute and deafen, which the command layer allows only while the member is in voice. */
  /** `communicationDisabledUntil` times the member out until then (ISO 8601, at most 28 days after the decision), null lifts it. */
  | {
      type: 'UpdateMember';
      actorId: string;
      userId: string;
      nick?: string | null;
      roles?: string[];
      avatar?: string | null;
      banner?: string | null;
      mute?: boolean;
      deaf?: boolean;
      communicationDisabledUntil?: string | null;
    }
  /**
   * An auto-moderation rule's TIMEOUT action times its author out until `until`: no member acts, so no one's
   * permissions are checked; the owner and administrators are never timed out, and a longer timeout is kept.
   */
  | { type: 'TimeOutByRule'; userId: string; until: string }
  | { type: 'AddMemberRole'; actorId: string; userId: string; roleId: string }
  | { type: 'RemoveMemberRole'; actorId: string; userId: string; roleId: string }
  | { type: 'LeaveGuild'; userId: string }
  /** A temporary member who disconnects leaves, unless they were given a role meanwhile. */
  | { type: 'EndTemporaryMembership'; userId: string }
  | { type: 'KickMember'; actorId: string; userId: string }
  | { type: 'BanMember'; actorId: string; userId: string; deleteMessageSeconds: number; bannedAt: string }
  | { type: 'UnbanMember'; actorId: string; userId: string };

function targetMember(state: GuildState, userId: string): MemberData {
  const member = state.members.get(userId);
  if (!member) throw unknownMember();
  return member;
}

/** The $add/$remove changes for a member's roles, refusing roles the actor may not hand out. */
function roleChanges(state: GuildState, actorId: string, member: MemberData, add: string[], remove: string[]): Change[] {
  requirePermission(guildPermissions(state, actorId), Permission.MANAGE_ROLES);
  const added = add.filter((id) => !member.roles.includes(id));
  const removed = remove.filter((id) => member.roles.includes(id));
  for (const id of [...added, ...removed]) requireAboveRole(state, actorId, state.roles.get(id)!.position);
  const named = (ids: string[]) => ids.map((id) => ({ id, name: state.roles.get(id)!.name }));
  const changes: Change[] = [];
  if (added.length) changes.push({ key: '$add', new_value: named(added) });
  if (removed.length) changes.push({ key: '$remove', new_value: named(removed) });
  return changes;
}

function nickChange(state: GuildState, actorId: string, member: MemberData, nick: string | null): Change[] {
  const next = nick === '' ? null : nick;
  if (next === member.nick) return [];
  const permissions = guildPermissions(state, actorId);
  const self = actorId === member.user_id;
  if (!(self && hasPermission(permissions, Permission.CHANGE_NICKNAME))) {
    requirePermission(permissions, Permission.MANAGE_NICKNAMES);
    if (!self) requireAboveMember(state, actorId, member.user_id);
  }
  return [{ key: 'nick', old_value: member.nick, new_value: next }];
}

/** The widely used API's longest timeout. */
export const MAX_TIMEOUT_MS = 28 * 24 * 60 * 60 * 1000;

/**
 * A timeout set or lifted by `actorId`: MODERATE_MEMBERS, never on the owner or a member at or above the actor's
 * highest role (403), nor on a member with ADMINISTRATOR, whom a timeout would not hold back; the end is at most 28 days
 * after the decision (`state.at`), else 400 on the field as the widely used API answers.
 */
export function timeoutChange(state: GuildState, actorId: string, member: MemberData, until: string | null): Change[] {
  requirePermission(guildPermissions(state, actorId), Permission.MODERATE_MEMBERS);
  requireAboveMember(state, actorId, member.user_id);
  if (until !== null && guildPermissions(state, member.user_id) === ALL_PERMISSIONS) {
    throw missingPermissions('Missing Permissions: a member with ADMINISTRATOR cannot be timed out');
  }
  const end = until === null ? null : Date.parse(until);
  if (end !== null && (Number.isNaN(end) || end - state.at > MAX_TIMEOUT_MS)) {
    const message = 'Invalid communication disabled timestamp: at most 28 days ahead';
    throw invalidForm([{ path: 'communication_disabled_until', message, code: 'INVALID_COMMUNICATION_DISABLED_TIMESTAMP' }]);
  }
  return timeoutTo(member, end === null ? null : new Date(end).toISOString());
}

/** The change that times `member` out until `next` (null lifts it), if it changes anything. */
function timeoutTo(member: MemberData, next: string | null): Change[] {
  const current = member.communication_disabled_until ?? null;
  return next === current ? [] : [{ key: 'communication_disabled_until', old_value: current, new_value: next }];
}

const updated = (state: GuildState, member: MemberData, changes: Change[]): MemberEvent[] =>
  changes.length ? [{ type: 'MemberUpdated', data: { guildId: state.id, userId: member.user_id, changes } }] : [];

/** A role a member can be given: an existing role other than @everyone and the bots' managed roles. */
const assignable = (state: GuildState, roleId: string) => roleId !== state.id && state.roles.has(roleId) && !isManagedRole(state, roleId);

function requireAssignable(state: GuildState, roleId: string): void {
  if (isManagedRole(state, roleId)) throw badRequest('MANAGED_ROLE', "A bot's managed role cannot be given or taken by hand");
  if (!assignable(state, roleId)) throw unknownRole();
}

export const memberDeciders = {
  TimeOutByRule(command: Extract<MemberCommand, { type: 'TimeOutByRule' }>, state: GuildState): MemberEvent[] {
    requireGuild(state);
    const member = state.members.get(command.userId);
    if (!member || isOwner(state, command.userId) || guildPermissions(state, command.userId) === ALL_PERMISSIONS) return [];
    const current = member.communication_disabled_until;
    if (current && Date.parse(current) >= Date.parse(command.until)) return [];
    return updated(state, member, timeoutTo(member, command.until));
  },

  JoinGuild(command: Extract<MemberCommand, { type: 'JoinGuild' }>, state: GuildState): MemberEvent[] {
    requireGuild(state);
    if (state.bans.has(command.userId)) throw forbidden('USER_BANNED', 'The user is banned from this guild');
    if (state.members.has(command.userId)) return [];
    const { userId, joinedAt, inviteCode, vanity, temporary, invite } = command;
    if (!invite || !inviteCode) return [{ type: 'MemberJoined', data: { guildId: state.id, userId, joinedAt, inviteCode, vanity, temporary } }];
    // A use is counted with the membership it makes, in one event: a member already in counts none, and max_uses holds.
    const used = invite.usedBefore + (state.inviteUses.get(inviteCode) ?? 0);
    if (invite.maxUses > 0 && used >= invite.maxUses) throw unknownInvite();
    return [{ type: 'MemberJoined', data: { guildId: state.id, userId, joinedAt, inviteCode, vanity, temporary, inviteUses: used + 1 } }];
  },

  AddBot(command: Extract<MemberCommand, { type: 'AddBot' }>, state: GuildState): (MemberEvent | RoleEvent)[] {
    const held = requireGuildPermission(state, command.actorId, Permission.MANAGE_GUILD);
    if (state.bans.has(command.userId)) throw forbidden('USER_BANNED', 'The bot is banned from this guild');
    if (state.members.has(command.userId)) return [];
    // As with roles: nobody hands a bot what they could not hand out themselves.
    requireGrantable(held, BigInt(command.permissions));
    const { userId, joinedAt } = command;
    const joined: MemberEvent = {
      type: 'MemberJoined',
      data: { guildId: state.id, userId, joinedAt, inviteCode: null, vanity: false, temporary: false, botAdd: true },
    };
    if (command.permissions === '0') return [joined];
    const role: RoleData = {
      id: command.roleId,
      name: command.roleName,
      color: 0,
      hoist: false,
      mentionable: false,
      permissions: command.permissions,
      position: 1,
      tags: { bot_id: userId },
    };
    return [
      joined,
      { type: 'RoleCreated', data: { guildId: state.id, role } },
      { type: 'MemberUpdated', data: { guildId: state.id, userId, changes: [{ key: '$add', new_value: [{ id: role.id, name: role.name }] }] } },
    ];
  },

  UpdateMember(command: Extract<MemberCommand, { type: 'UpdateMember' }>, state: GuildState): MemberEvent[] {
    requireMember(state, command.actorId);
    const member = targetMember(state, command.userId);
    const changes: Change[] = [];
    if (command.nick !== undefined) changes.push(...nickChange(state, command.actorId, member, command.nick));
    for (const key of ['avatar', 'banner'] as const) {
      const value = command[key];
      if (value === undefined) continue;
      if (command.actorId !== member.user_id) throw missingPermissions(`Missing Permissions: only the member sets their guild ${key}`);
      if (value !== (member[key] ?? null)) changes.push({ key, old_value: member[key] ?? null, new_value: value });
    }
    for (const [key, permission] of [
      ['mute', Permission.MUTE_MEMBERS],
      ['deaf', Permission.DEAFEN_MEMBERS],
    ] as const) {
      const value = command[key];
      if (value === undefined || value === member[key]) continue;
      requirePermission(guildPermissions(state, command.actorId), permission);
      changes.push({ key, old_value: member[key], new_value: value });
    }
    if (command.communicationDisabledUntil !== undefined) {
      changes.push(...timeoutChange(state, command.actorId, member, command.communicationDisabledUntil));
    }
    if (command.roles) {
      // A bot's managed role may be listed (clients send the member's whole list back) but is neither given nor taken.
      const kept = (id: string) => isManagedRole(state, id) && member.roles.includes(id);
      const errors = command.roles.flatMap((id, i) =>
        assignable(state, id) || kept(id)
          ? []
          : [{ path: `roles.${i}`, message: "Unknown role, the @everyone role or a bot's managed role, which cannot be assigned" }],
      );
      if (errors.length) throw invalidForm(errors);
      const wanted = [...new Set(command.roles)];
      const removed = member.roles.filter((id) => !wanted.includes(id) && !isManagedRole(state, id));
      changes.push(...roleChanges(state, command.actorId, member, wanted, removed));
    }
    return updated(state, member, changes);
  },

  AddMemberRole(command: Extract<MemberCommand, { type: 'AddMemberRole' }>, state: GuildState): MemberEvent[] {
    requireMember(state, command.actorId);
    const member = targetMember(state, command.userId);
    requireAssignable(state, command.roleId);
    return updated(state, member, roleChanges(state, command.actorId, member, [command.roleId], []));
  },

  RemoveMemberRole(command: Extract<MemberCommand, { type: 'RemoveMemberRole' }>, state: GuildState): MemberEvent[] {
    requireMember(state, command.actorId);
    const member = targetMember(state, command.userId);
    requireAssignable(state, command.roleId);
    return updated(state, member, roleChanges(state, command.actorId, member, [], [command.roleId]));
  },

  LeaveGuild(command: Extract<MemberCommand, { type: 'LeaveGuild' }>, state: GuildState): MemberEvent[] {
    requireMember(state, command.userId);
    if (isOwner(state, command.userId)) throw badRequest('OWNER_CANNOT_LEAVE', 'The owner cannot leave the guild: transfer ownership or delete it');
    return [{ type: 'MemberLeft', data: { guildId: state.id, userId: command.userId } }];
  },

  EndTemporaryMembership(command: Extract<MemberCommand, { type: 'EndTemporaryMembership' }>, state: GuildState): MemberEvent[] {
    const member = state.status === 'active' ? state.members.get(command.userId) : undefined;
    if (!member?.temporary || member.roles.length > 0) return [];
    return [{ type: 'MemberLeft', data: { guildId: state.id, userId: command.userId } }];
  },

  KickMember(command: Extract<MemberCommand, { type: 'KickMember' }>, state: GuildState): MemberEvent[] {
    requireGuildPermission(state, command.actorId, Permission.KICK_MEMBERS);
    targetMember(state, command.userId);
    requireAboveMember(state, command.actorId, command.userId);
    return [{ type: 'MemberKicked', data: { guildId: state.id, userId: command.userId } }];
  },

  BanMember(command: Extract<MemberCommand, { type: 'BanMember' }>, state: GuildState): MemberEvent[] {
    requireGuildPermission(state, command.actorId, Permission.BAN_MEMBERS);
    requireAboveMember(state, command.actorId, command.userId);
    if (state.bans.has(command.userId)) return [];
    const { userId, deleteMessageSeconds, bannedAt } = command;
    return [{ type: 'MemberBanned', data: { guildId: state.id, userId, deleteMessageSeconds, removedMember: state.members.has(userId), bannedAt } }];
  },

  UnbanMember(command: Extract<MemberCommand, { type: 'UnbanMember' }>, state: GuildState): MemberEvent[] {
    requireGuildPermission(state, command.actorId, Permission.BAN_MEMBERS);
    if (!state.bans.has(command.userId)) throw unknownBan();
    return [{ type: 'MemberUnbanned', data: { guildId: state.id, userId: command.userId } }];
  },
};

/** The member's fields that changes set to a string or null. */
const TEXT_KEYS = ['nick', 'avatar', 'banner', 'communication_disabled_until'];

function applyMemberChanges(member: MemberData, changes: readonly Change[]): MemberData {
  let next = member;
  const roleIds = (change: Change) => (change.new_value as { id: string }[]).map((r) => r.id);
  for (const change of changes) {
    if (TEXT_KEYS.includes(change.key)) next = { ...next, [change.key]: change.new_value as string | null };
    else if (change.key === 'mute' || change.key === 'deaf') next = { ...next, [change.key]: change.new_value as boolean };
    else if (change.key === '$add') next = { ...next, roles: [...next.roles, ...roleIds(change)] };
    else if (change.key === '$remove') next = { ...next, roles: next.roles.filter((id) => !roleIds(change).includes(id)) };
  }
  return next;
}

const removeMember = (state: GuildState, event: { data: { userId: string } }): GuildState => ({
  ...state,
  members: withoutEntry(state.members, event.data.userId),
});

export const memberEvolvers = {
  MemberJoined(state: GuildState, event: MemberJoined): GuildState {
    const { userId, joinedAt, temporary, inviteCode, inviteUses } = event.data;
    const member: MemberData = { user_id: userId, nick: null, roles: [], joined_at: joinedAt, deaf: false, mute: false, temporary };
    const next = { ...state, members: withEntry(state.members, userId, member) };
    if (inviteUses === undefined || !inviteCode) return next;
    return { ...next, inviteUses: withEntry(state.inviteUses, inviteCode, (state.inviteUses.get(inviteCode) ?? 0) + 1) };
  },
  MemberUpdated(state: GuildState, event: MemberUpdated): GuildState {
    const member = state.members.get(event.data.userId)!;
    return { ...state, members: withEntry(state.members, member.user_id, applyMemberChanges(member, event.data.changes)) };
  },
  MemberLeft: removeMember,
  MemberKicked: removeMember,
  MemberBanned(state: GuildState, event: MemberBanned): GuildState {
    return { ...removeMember(state, event), bans: new Set(state.bans).add(event.data.userId) };
  },
  MemberUnbanned(state: GuildState, event: MemberUnbanned): GuildState {
    const bans = new Set(state.bans);
    bans.delete(event.data.userId);
    return { ...state, bans };
  },
};
