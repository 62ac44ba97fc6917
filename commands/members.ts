// A guild's members: changed (their own images too), kicked, given and taken roles, banned and unbanned, by those the
// guild's decider allows (domain/member.ts: the permission, and a target below the actor's highest role). Commands on
// the guild's stream.
import { notFound } from '../domain/errors.js';
import type { GuildCommand } from '../domain/guild.js';
import type { GuildState } from '../domain/guildState.js';
import type { MemberBanned } from '../domain/member.js';
import { isoNow } from '../ports/clock.js';
import { userById } from '../projections/users.queries.js';
import type { ActorMeta, Uses } from './deps.js';
import { type ImageFields, commitGuildCommand, decideGuildCommand, hashesOf, runGuildCommand, runGuildCommandWithImages } from './guilds.js';
import { purgeMessagesOf } from './messages/delete.js';
import { assertVoiceMove, moveVoiceMember, requireInVoice } from './voice.js';

type MemberDeps = Uses<'commands' | 'clock' | 'settle'>;

/** Needs KICK_MEMBERS. */
export async function kickMember(deps: MemberDeps, meta: ActorMeta, guildId: string, userId: string): Promise<void> {
  await runGuildCommand(deps, meta, guildId, { type: 'KickMember', actorId: meta.actorId, userId });
}

/** Needs MANAGE_ROLES, and the role below the actor's highest. */
export async function addMemberRole(deps: MemberDeps, meta: ActorMeta, guildId: string, userId: string, roleId: string): Promise<void> {
  await runGuildCommand(deps, meta, guildId, { type: 'AddMemberRole', actorId: meta.actorId, userId, roleId });
}

/** Needs MANAGE_ROLES, and the role below the actor's highest. */
export async function removeMemberRole(deps: MemberDeps, meta: ActorMeta, guildId: string, userId: string, roleId: string): Promise<void> {
  await runGuildCommand(deps, meta, guildId, { type: 'RemoveMemberRole', actorId: meta.actorId, userId, roleId });
}

/** Needs BAN_MEMBERS. */
export async function unbanUser(deps: MemberDeps, meta: ActorMeta, guildId: string, userId: string): Promise<void> {
  await runGuildCommand(deps, meta, guildId, { type: 'UnbanMember', actorId: meta.actorId, userId });
}

/** A member's own guild images, stored as the CDN serves them: guilds/{guildId}/users/{userId}/{avatars|banners}/{hash}. */
const memberImageKey = (guildId: string, userId: string, field: 'avatar' | 'banner', hash: string) => `guilds/${guildId}/users/${userId}/${field}s/${hash}`;

/**
 * Nickname, roles, the server voice mute and deafen and the timeout (by those allowed), the member's own avatar and
 * banner (null removes one), and a move to another voice channel (`channelId`; null disconnects). Mute and deafen need
 * the member in voice; the move, on the guild's voice stream, is decided before the member's changes are appended and
 * appended after.
 */
export async function updateMember(
  deps: Uses<'commands' | 'blobs' | 'clock' | 'settle'>,
  meta: ActorMeta,
  guildId: string,
  userId: string,
  input: { nick?: string | null; roles?: string[]; mute?: boolean; deaf?: boolean; communicationDisabledUntil?: string | null; channelId?: string | null },
  images: ImageFields<'avatar' | 'banner'> = {},
) {
  const { channelId, ...changes } = input;
  if (changes.mute !== undefined || changes.deaf !== undefined) await requireInVoice(deps, guildId, userId);
  if (channelId !== undefined) await assertVoiceMove(deps, meta, guildId, userId, channelId);
  const command: GuildCommand = { type: 'UpdateMember', actorId: meta.actorId, userId, ...changes, ...hashesOf(images) };
  await runGuildCommandWithImages(deps, meta, guildId, command, images, (field, hash) => memberImageKey(guildId, userId, field, hash));
  if (channelId !== undefined) await moveVoiceMember(deps, meta, guildId, userId, channelId);
}

/** Bans a member or any existing user, so that they cannot join. */
export async function banUser(
  deps: Uses<'commands' | 'readStore' | 'clock' | 'settle' | 'settleFiles'>,
  meta: ActorMeta,
  guildId: string,
  userId: string,
  deleteMessageSeconds: number,
) {
  const command: GuildCommand = { type: 'BanMember', actorId: meta.actorId, userId, deleteMessageSeconds, bannedAt: isoNow(deps.clock) };
  const decision = await decideGuildCommand(deps, guildId, command);
  if (!(await userById(deps.readStore, userId))) throw notFound('UNKNOWN_USER', 'Unknown User');
  const { state } = await commitGuildCommand(deps, meta, decision);
  await purgeMessagesOfBan(deps, meta, state, { userId, bannedAt: command.bannedAt, deleteMessageSeconds });
}

/** Deletes the banned user's messages of the `deleteMessageSeconds` before the ban (none for 0). */
export async function purgeMessagesOfBan(
  deps: Uses<'commands' | 'readStore' | 'clock' | 'settle' | 'settleFiles'>,
  meta: ActorMeta,
  guild: GuildState,
  ban: Pick<MemberBanned['data'], 'userId' | 'bannedAt' | 'deleteMessageSeconds'>,
) {
  if (ban.deleteMessageSeconds === 0) return;
  const since = new Date(Date.parse(ban.bannedAt) - ban.deleteMessageSeconds * 1000).toISOString();
  await purgeMessagesOf(deps, meta, guild, ban.userId, since);
}
