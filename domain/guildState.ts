// The state of the guild aggregate (stream guild-{id}) and the checks every guild command shares. Settings, roles,
// channels with their overwrites, members with their roles, and bans live in one stream: moderation and configuration
// change at human pace, and one stream makes each decision see a consistent guild (a role's position and a member's
// roles, a channel's overwrites and the role they name) without coordination between streams.
// Entities are kept in the shapes of the widely used API (snake_case keys, bitfields as decimal strings), the same
// shapes events carry, so that a change {key, old_value, new_value} applies to state, read models and audit alike.
import { isDeepStrictEqual } from 'node:util';
import type { AutoModerationRuleData } from './autoModerationRule.js';
import { forbidden, missingPermissions, notFound } from './errors.js';
import type { ForumTag, ReactionEmoji } from './forum.js';
import { ALL_PERMISSIONS, Permission, computePermissions, isTimedOut, requirePermission } from './permissions.js';

export interface Change {
  key: string;
  old_value?: unknown;
  new_value?: unknown;
}

export interface GuildSettings {
  name: string;
  icon: string | null;
  /** Image hashes, as icon's; absent from guilds created before they existed. */
  banner?: string | null;
  splash?: string | null;
  discovery_splash?: string | null;
  description: string | null;
  owner_id: string;
  verification_level: number;
  default_message_notifications: number;
  explicit_content_filter: number;
  afk_channel_id: string | null;
  afk_timeout: number;
  system_channel_id: string | null;
  system_channel_flags: number;
  preferred_locale: string;
}

export interface RoleData {
  id: string;
  name: string;
  color: number;
  hoist: boolean;
  mentionable: boolean;
  /** Decimal string. */
  permissions: string;
  /** 0 is @everyone; the other roles are numbered 1..n from the bottom. */
  position: number;
  /** On a bot's managed role (made when the bot flow adds it): the role is that bot's alone. */
  tags?: { bot_id: string };
}

export interface OverwriteData {
  id: string;
  type: 0 | 1;
  allow: string;
  deny: string;
}

export interface ChannelData {
  id: string;
  type: number;
  name: string;
  position: number;
  parent_id: string | null;
  permission_overwrites: OverwriteData[];
  topic?: string | null;
  nsfw?: boolean;
  rate_limit_per_user?: number;
  bitrate?: number;
  user_limit?: number;
  rtc_region?: string | null;
  video_quality_mode?: number;
  default_auto_archive_duration?: number;
  /** Forum (15) and media (16) channels only (domain/forum.ts); default_forum_layout for forums alone. */
  available_tags?: ForumTag[];
  default_reaction_emoji?: ReactionEmoji | null;
  default_thread_rate_limit_per_user?: number;
  default_sort_order?: number | null;
  default_forum_layout?: number;
  /** Forum and media channels' REQUIRE_TAG (and media download options): domain/forum.ts. Absent: none. */
  flags?: number;
}

export interface MemberData {
  user_id: string;
  nick: string | null;
  /** Assigned roles; @everyone is implied, never listed. */
  roles: string[];
  joined_at: string;
  deaf: boolean;
  mute: boolean;
  /** Joined through a temporary invite. */
  temporary: boolean;
  /** The member's own avatar and banner in this guild (image hashes); absent until first set. */
  avatar?: string | null;
  banner?: string | null;
  /** The end of the member's timeout (ISO 8601), null once cleared; absent until first set. */
  communication_disabled_until?: string | null;
}

export interface GuildState {
  status: 'none' | 'active' | 'deleted';
  id: string;
  settings: GuildSettings;
  vanityCode: string | null;
  roles: ReadonlyMap<string, RoleData>;
  channels: ReadonlyMap<string, ChannelData>;
  members: ReadonlyMap<string, MemberData>;
  bans: ReadonlySet<string>;
  /** By invite code: the joins this stream counted as the invite's uses (its max_uses is held here, with the joins). */
  inviteUses: ReadonlyMap<string, number>;
  /**
   * The moment (ms since the epoch, from the clock port) the state is judged at: permissions depend on time through
   * timeouts. The guild's decider sets it to the command's time, and commands/access.ts to the clock's when it loads
   * the guild for a check; a state nobody stamped has 0, at which every timeout ever set is still in force.
   */
  at: number;
  /** By id: the guild's auto-moderation rules (domain/autoModeration.ts), which every send in the guild is checked against. */
  autoModerationRules: ReadonlyMap<string, AutoModerationRuleData>;
}

export const initialGuildState = (): GuildState => ({
  status: 'none',
  id: '',
  settings: {
    name: '',
    icon: null,
    description: null,
    owner_id: '',
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    afk_channel_id: null,
    afk_timeout: 300,
    system_channel_id: null,
    system_channel_flags: 0,
    preferred_locale: 'en-US',
  },
  vanityCode: null,
  roles: new Map(),
  channels: new Map(),
  members: new Map(),
  bans: new Set(),
  inviteUses: new Map(),
  at: 0,
  autoModerationRules: new Map(),
});

export const unknownGuild = () => notFound('UNKNOWN_GUILD', 'Unknown Guild');
export const unknownChannel = () => notFound('UNKNOWN_CHANNEL', 'Unknown Channel');
export const unknownMember = () => notFound('UNKNOWN_MEMBER', 'Unknown Member');
export const unknownRole = () => notFound('UNKNOWN_ROLE', 'Unknown Role');
export const unknownBan = () => notFound('UNKNOWN_BAN', 'Unknown Ban');

/** The changes that turn `current` into `next`, for the keys `next` names. */
export function diff<T extends object>(current: T, next: Partial<T>): Change[] {
  const changes: Change[] = [];
  for (const [key, value] of Object.entries(next)) {
    if (value === undefined) continue;
    const old = (current as Record<string, unknown>)[key];
    if (!isDeepStrictEqual(old, value)) changes.push({ key, old_value: old, new_value: value });
  }
  return changes;
}

export function applyChanges<T extends object>(current: T, changes: readonly Change[]): T {
  return { ...current, ...Object.fromEntries(changes.map((c) => [c.key, c.new_value])) };
}

export function withEntry<K, V>(map: ReadonlyMap<K, V>, key: K, value: V): Map<K, V> {
  return new Map(map).set(key, value);
}

export function withoutEntry<K, V>(map: ReadonlyMap<K, V>, key: K): Map<K, V> {
  const next = new Map(map);
  next.delete(key);
  return next;
}

/** A bot's managed role: given with the bot, never assigned or removed by hand. */
export const isManagedRole = (state: GuildState, roleId: string) => state.roles.get(roleId)?.tags !== undefined;

/** Refuses unless the guild exists and is not deleted. */
export function requireGuild(state: GuildState): void {
  if (state.status !== 'active') throw unknownGuild();
}

/** The actor's membership; a guild the actor is not in answers 404, as they cannot see it. */
export function requireMember(state: GuildState, userId: string): MemberData {
  requireGuild(state);
  const member = state.members.get(userId);
  if (!member) throw unknownGuild();
  return member;
}

export function isOwner(state: GuildState, userId: string): boolean {
  return state.settings.owner_id === userId;
}

const permissionGuild = (state: GuildState) => ({ guildId: state.id, ownerId: state.settings.owner_id, roles: state.roles });
const permissionMember = (member: MemberData) => ({
  userId: member.user_id,
  roleIds: member.roles,
  communicationDisabledUntil: member.communication_disabled_until,
});

/**
 * A timed-out member may only read: their sends, reactions, voice joins and interactions are refused with the widely
 * used API's 403 Missing Access (their permissions, computed at `state.at`, would refuse them anyway, less clearly).
 */
export function requireNotTimedOut(state: GuildState, userId: string): void {
  const until = state.members.get(userId)?.communication_disabled_until;
  if (isTimedOut(until, state.at) && guildPermissions(state, userId) !== ALL_PERMISSIONS) {
    throw forbidden('MISSING_ACCESS', `Missing Access: you are timed out in this guild until ${until}`);
  }
}

/** Guild-level permissions of a member (0 for anyone else). */
export function guildPermissions(state: GuildState, userId: string): bigint {
  const member = state.members.get(userId);
  if (!member || state.status !== 'active') return 0n;
  return computePermissions(permissionGuild(state), permissionMember(member), state.at);
}

/** Permissions of a member in one channel, overwrites applied (0 for anyone else). */
export function channelPermissions(state: GuildState, userId: string, channel: ChannelData): bigint {
  const member = state.members.get(userId);
  if (!member || state.status !== 'active') return 0n;
  return computePermissions(permissionGuild(state), permissionMember(member), state.at, channel.permission_overwrites);
}

/** Membership and a guild-level permission: 404 for outsiders, 403 MISSING_PERMISSIONS for members without it. */
export function requireGuildPermission(state: GuildState, actorId: string, permission: bigint): bigint {
  requireMember(state, actorId);
  const permissions = guildPermissions(state, actorId);
  requirePermission(permissions, permission);
  return permissions;
}

/** A channel the actor can see, with the actor's permissions in it; anything else answers 404 UNKNOWN_CHANNEL. */
export function requireVisibleChannel(state: GuildState, actorId: string, channelId: string): { channel: ChannelData; permissions: bigint } {
  if (state.status !== 'active' || !state.members.has(actorId)) throw unknownChannel();
  const channel = state.channels.get(channelId);
  if (!channel) throw unknownChannel();
  const permissions = channelPermissions(state, actorId, channel);
  if (!(permissions & Permission.VIEW_CHANNEL)) throw unknownChannel();
  return { channel, permissions };
}

/** The position of the member's highest role (0 with only @everyone); the owner is above every role. */
export function highestPosition(state: GuildState, userId: string): number {
  if (isOwner(state, userId)) return Infinity;
  let highest = 0;
  for (const roleId of state.members.get(userId)?.roles ?? []) highest = Math.max(highest, state.roles.get(roleId)?.position ?? 0);
  return highest;
}

/** Role hierarchy: an actor acts only on roles strictly below their highest role. */
export function requireAboveRole(state: GuildState, actorId: string, position: number): void {
  if (highestPosition(state, actorId) <= position) throw missingPermissions('Missing Permissions: the role is not below your highest role');
}

/** Role hierarchy for kick and ban: never the owner, and only members whose highest role is below the actor's. */
export function outranks(state: GuildState, actorId: string, targetId: string): boolean {
  return !isOwner(state, targetId) && (!state.members.has(targetId) || highestPosition(state, actorId) > highestPosition(state, targetId));
}

export function requireAboveMember(state: GuildState, actorId: string, targetId: string): void {
  if (isOwner(state, targetId)) throw missingPermissions('Missing Permissions: the owner cannot be moderated');
  if (!outranks(state, actorId, targetId)) throw missingPermissions("Missing Permissions: the member's highest role is not below yours");
}

/** An actor cannot hand out bits they do not hold themselves (administrators and the owner hold them all). */
export function requireGrantable(held: bigint, granted: bigint): void {
  if (held !== ALL_PERMISSIONS && (granted & ~held) !== 0n) throw missingPermissions('Missing Permissions: cannot grant permissions you do not have');
}
