// Permissions of the widely used API: bit values as BigInt (sent as decimal strings) and the one function that
// computes what a member may do in a guild or in one of its channels. Every route of every issue checks through here.
import { missingPermissions } from './errors.js';

export const Permission = {
  CREATE_INSTANT_INVITE: 1n << 0n,
  KICK_MEMBERS: 1n << 1n,
  BAN_MEMBERS: 1n << 2n,
  ADMINISTRATOR: 1n << 3n,
  MANAGE_CHANNELS: 1n << 4n,
  MANAGE_GUILD: 1n << 5n,
  ADD_REACTIONS: 1n << 6n,
  VIEW_AUDIT_LOG: 1n << 7n,
  PRIORITY_SPEAKER: 1n << 8n,
  STREAM: 1n << 9n,
  VIEW_CHANNEL: 1n << 10n,
  SEND_MESSAGES: 1n << 11n,
  SEND_TTS_MESSAGES: 1n << 12n,
  MANAGE_MESSAGES: 1n << 13n,
  EMBED_LINKS: 1n << 14n,
  ATTACH_FILES: 1n << 15n,
  READ_MESSAGE_HISTORY: 1n << 16n,
  MENTION_EVERYONE: 1n << 17n,
  USE_EXTERNAL_EMOJIS: 1n << 18n,
  VIEW_GUILD_INSIGHTS: 1n << 19n,
  CONNECT: 1n << 20n,
  SPEAK: 1n << 21n,
  MUTE_MEMBERS: 1n << 22n,
  DEAFEN_MEMBERS: 1n << 23n,
  MOVE_MEMBERS: 1n << 24n,
  USE_VAD: 1n << 25n,
  CHANGE_NICKNAME: 1n << 26n,
  MANAGE_NICKNAMES: 1n << 27n,
  MANAGE_ROLES: 1n << 28n,
  MANAGE_WEBHOOKS: 1n << 29n,
  MANAGE_EMOJIS_AND_STICKERS: 1n << 30n,
  USE_APPLICATION_COMMANDS: 1n << 31n,
  REQUEST_TO_SPEAK: 1n << 32n,
  MANAGE_EVENTS: 1n << 33n,
  MANAGE_THREADS: 1n << 34n,
  CREATE_PUBLIC_THREADS: 1n << 35n,
  CREATE_PRIVATE_THREADS: 1n << 36n,
  USE_EXTERNAL_STICKERS: 1n << 37n,
  SEND_MESSAGES_IN_THREADS: 1n << 38n,
  USE_EMBEDDED_ACTIVITIES: 1n << 39n,
  MODERATE_MEMBERS: 1n << 40n,
  VIEW_CREATOR_MONETIZATION_ANALYTICS: 1n << 41n,
  USE_SOUNDBOARD: 1n << 42n,
  CREATE_GUILD_EXPRESSIONS: 1n << 43n,
  CREATE_EVENTS: 1n << 44n,
  USE_EXTERNAL_SOUNDS: 1n << 45n,
  SEND_VOICE_MESSAGES: 1n << 46n,
  SEND_POLLS: 1n << 49n,
  USE_EXTERNAL_APPS: 1n << 50n,
} as const;

export type PermissionName = keyof typeof Permission;

export const ALL_PERMISSIONS = Object.values(Permission).reduce((all, bit) => all | bit, 0n);

/** What @everyone may do in a new guild: take part, but manage nothing. */
export const DEFAULT_EVERYONE_PERMISSIONS = [
  'CREATE_INSTANT_INVITE',
  'ADD_REACTIONS',
  'STREAM',
  'VIEW_CHANNEL',
  'SEND_MESSAGES',
  'EMBED_LINKS',
  'ATTACH_FILES',
  'READ_MESSAGE_HISTORY',
  'USE_EXTERNAL_EMOJIS',
  'CONNECT',
  'SPEAK',
  'USE_VAD',
  'CHANGE_NICKNAME',
  'USE_APPLICATION_COMMANDS',
  'REQUEST_TO_SPEAK',
  'CREATE_PUBLIC_THREADS',
  'CREATE_PRIVATE_THREADS',
  'USE_EXTERNAL_STICKERS',
  'SEND_MESSAGES_IN_THREADS',
  'USE_EMBEDDED_ACTIVITIES',
  'SEND_VOICE_MESSAGES',
  'SEND_POLLS',
].reduce((all, name) => all | Permission[name as PermissionName], 0n);

export const OverwriteType = { ROLE: 0, MEMBER: 1 } as const;

/** A bitfield as the domain holds it, or as events and documents carry it (a decimal string). */
export type Bits = bigint | string;

export interface PermissionOverwrite {
  /** A role id (type 0) or a user id (type 1). */
  id: string;
  type: number;
  allow: Bits;
  deny: Bits;
}

export interface PermissionGuild {
  /** The @everyone role has the guild's id. */
  guildId: string;
  ownerId: string;
  /** Every role of the guild, by id. */
  roles: ReadonlyMap<string, { permissions: Bits }>;
}

/** The member being checked; `roleIds` are the roles assigned to them (never including @everyone). */
export interface PermissionMember {
  userId: string;
  roleIds: readonly string[];
  /** The end of the member's timeout (ISO 8601), if one was set; it counts only while it lies after `at`. */
  communicationDisabledUntil?: string | null;
}

/** What a timed-out member keeps: the widely used API lets them read, nothing more. */
export const TIMED_OUT_PERMISSIONS = Permission.VIEW_CHANNEL | Permission.READ_MESSAGE_HISTORY;

/** Whether a timeout ending at `until` (ISO 8601) is still in force at `at` (milliseconds since the epoch, from the clock port). */
export const isTimedOut = (until: string | null | undefined, at: number): boolean => Boolean(until) && Date.parse(until!) > at;

// Helpers at module level, not closures made on each call: the permissions of a request are computed several times.
const rolePermissions = (guild: PermissionGuild, roleId: string) => BigInt(guild.roles.get(roleId)?.permissions ?? 0n);
const applyOverwrite = (permissions: bigint, allow: Bits, deny: Bits) => (permissions & ~BigInt(deny)) | BigInt(allow);

/**
 * What `member` may do in `guild`, or in a channel of it when the channel's overwrites are given. The algorithm of
 * the widely used API: the owner may do everything; otherwise the base is @everyone's permissions OR the member's
 * roles'; ADMINISTRATOR grants everything (overwrites do not apply); then the @everyone overwrite, the member's role
 * overwrites OR-ed together, and the member's own overwrite, each removing its deny bits before adding its allow bits.
 * In a channel, no VIEW_CHANNEL leaves nothing, and no SEND_MESSAGES takes away what only makes sense when sending.
 * A member timed out at `at` (which the owner and administrators cannot be) keeps at most VIEW_CHANNEL and
 * READ_MESSAGE_HISTORY, so every check made through here refuses them the rest until the timeout ends.
 */
export function computePermissions(guild: PermissionGuild, member: PermissionMember, at: number, overwrites?: readonly PermissionOverwrite[]): bigint {
  if (member.userId === guild.ownerId) return ALL_PERMISSIONS;
  let permissions = rolePermissions(guild, guild.guildId);
  for (const roleId of member.roleIds) permissions |= rolePermissions(guild, roleId);
  if (permissions & Permission.ADMINISTRATOR) return ALL_PERMISSIONS;
  const held = overwrites ? channelOverwritten(guild, member, permissions, overwrites) : permissions;
  return isTimedOut(member.communicationDisabledUntil, at) ? held & TIMED_OUT_PERMISSIONS : held;
}

function channelOverwritten(guild: PermissionGuild, member: PermissionMember, base: bigint, overwrites: readonly PermissionOverwrite[]): bigint {
  let permissions = base;
  let roleAllow = 0n;
  let roleDeny = 0n;
  let everyone: PermissionOverwrite | undefined;
  let own: PermissionOverwrite | undefined;
  for (const overwrite of overwrites) {
    if (overwrite.type === OverwriteType.MEMBER) {
      if (overwrite.id === member.userId) own ??= overwrite;
    } else if (overwrite.type === OverwriteType.ROLE) {
      if (overwrite.id === guild.guildId) everyone ??= overwrite;
      if (member.roleIds.includes(overwrite.id)) {
        roleAllow |= BigInt(overwrite.allow);
        roleDeny |= BigInt(overwrite.deny);
      }
    }
  }
  if (everyone) permissions = applyOverwrite(permissions, everyone.allow, everyone.deny);
  permissions = applyOverwrite(permissions, roleAllow, roleDeny);
  if (own) permissions = applyOverwrite(permissions, own.allow, own.deny);

  if (!(permissions & Permission.VIEW_CHANNEL)) return 0n;
  if (!(permissions & Permission.SEND_MESSAGES)) permissions &= ~(Permission.MENTION_EVERYONE | Permission.ATTACH_FILES | Permission.EMBED_LINKS);
  return permissions;
}

export function hasPermission(permissions: bigint, required: bigint): boolean {
  return (permissions & required) === required;
}

/** Refuses with 403 MISSING_PERMISSIONS unless every bit of `required` is held. */
export function requirePermission(permissions: bigint, required: bigint): void {
  if (!hasPermission(permissions, required)) throw missingPermissions();
}

/** A bitfield a client sent (a decimal string or a safe integer), in its canonical form, keeping only bits that name permissions. */
export function normalizePermissions(value: string | number): string {
  return (BigInt(value) & ALL_PERMISSIONS).toString();
}

/**
 * What a member may do in a thread, from their permissions in its parent channel (threads have no overwrites of their
 * own: they inherit the parent's). A private thread is seen only by its members and by MANAGE_THREADS holders; in a
 * thread SEND_MESSAGES_IN_THREADS stands for SEND_MESSAGES, and a locked thread takes messages only from MANAGE_THREADS
 * holders.
 */
export function threadPermissions(parent: bigint, thread: { private: boolean; locked: boolean; member: boolean }): bigint {
  if (!(parent & Permission.VIEW_CHANNEL)) return 0n;
  const manages = (parent & Permission.MANAGE_THREADS) !== 0n;
  if (thread.private && !thread.member && !manages) return 0n;
  const sends = (parent & Permission.SEND_MESSAGES_IN_THREADS) !== 0n && (!thread.locked || manages);
  return sends ? parent | Permission.SEND_MESSAGES : parent & ~Permission.SEND_MESSAGES;
}
