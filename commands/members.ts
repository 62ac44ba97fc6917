// A guild's members and bans: read by its members (bans by BAN_MEMBERS holders); members changed (their own images
// too), kicked, given and taken roles, banned and unbanned, by those the guild's decider allows (domain/member.ts: the
// permission, and a target below the actor's highest role), with commands on the guild's stream.
import { notFound } from '../domain/errors.js';
import type { GuildCommand } from '../domain/guild.js';
import { type GuildState, unknownBan, unknownMember } from '../domain/guildState.js';
import type { MemberBanned } from '../domain/member.js';
import { Permission, requirePermission } from '../domain/permissions.js';
import { isoNow } from '../ports/clock.js';
import type { BanDoc, MemberDoc } from '../projections/members.js';
import { banOf, bansPage, memberOf, membersPage } from '../projections/members.queries.js';
import type { PageQuery } from '../projections/paging.js';
import type { UserDoc } from '../projections/users.js';
import { userById, usersByIds } from '../projections/users.queries.js';
import { guildAccess } from './access.js';
import type { ActorMeta, Uses } from './deps.js';
import { type ImageFields, commitGuildCommand, decideGuildCommand, hashesOf, runGuildCommand, runGuildCommandWithImages } from './guilds.js';
import { purgeMessagesOf } from './messages/delete.js';
import { assertVoiceMove, moveVoiceMember, requireInVoice } from './voice.js';

type MemberDeps = Uses<'commands' | 'clock' | 'settle'>;
type ReadDeps = Uses<'commands' | 'readStore' | 'clock'>;

/** A member or a ban with the user it is about, whom the API's object embeds. */
export interface WithUser<D> {
  doc: D;
  user: UserDoc;
}

/** The documents whose user exists, each with them, the users looked up at once. */
async function withUsers<D extends { user_id: string }>(deps: Uses<'readStore'>, docs: D[]): Promise<WithUser<D>[]> {
  if (!docs.length) return [];
  const users = new Map((await usersByIds(deps.readStore, [...new Set(docs.map((d) => d.user_id))])).map((u) => [u._id, u]));
  return docs.flatMap((doc) => {
    const user = users.get(doc.user_id);
    return user ? [{ doc, user }] : [];
  });
}

/**
 * A page of the guild's members by user id, to its members (404 for anyone else). The page asked for is read only
 * then (`page`), so that anyone else learns only that the guild is unknown.
 */
export async function readMembers(
  deps: ReadDeps,
  guildId: string,
  readerId: string,
  page: () => { after?: string; limit: number },
): Promise<WithUser<MemberDoc>[]> {
  await guildAccess(deps, guildId, readerId);
  const { after, limit } = page();
  return withUsers(deps, await membersPage(deps.readStore, guildId, { after: after ?? '0', limit }));
}

/** The member as the read model shows them, whoever asks: what a change of theirs answers. */
export async function memberDocOf(deps: Uses<'readStore'>, guildId: string, userId: string): Promise<WithUser<MemberDoc>> {
  const doc = await memberOf(deps.readStore, guildId, userId);
  const [member] = doc ? await withUsers(deps, [doc]) : [];
  if (!member) throw unknownMember();
  return member;
}

/** One of the guild's members, to its members (404 for anyone else). */
export async function readMember(deps: ReadDeps, guildId: string, userId: string, readerId: string): Promise<WithUser<MemberDoc>> {
  await guildAccess(deps, guildId, readerId);
  return memberDocOf(deps, guildId, userId);
}

/** Bans are BAN_MEMBERS holders' business: 403 MISSING_PERMISSIONS for other members, 404 for outsiders. */
async function requireBanViewer(deps: ReadDeps, guildId: string, readerId: string): Promise<void> {
  const { permissions } = await guildAccess(deps, guildId, readerId);
  requirePermission(permissions, Permission.BAN_MEMBERS);
}

/** A page of the guild's bans by user id; the page asked for is read once the reader may see them. */
export async function readBans(deps: ReadDeps, guildId: string, readerId: string, page: () => PageQuery): Promise<WithUser<BanDoc>[]> {
  await requireBanViewer(deps, guildId, readerId);
  return withUsers(deps, await bansPage(deps.readStore, guildId, page()));
}

export async function readBan(deps: ReadDeps, guildId: string, userId: string, readerId: string): Promise<WithUser<BanDoc>> {
  await requireBanViewer(deps, guildId, readerId);
  const doc = await banOf(deps.readStore, guildId, userId);
  const [ban] = doc ? await withUsers(deps, [doc]) : [];
  if (!ban) throw unknownBan();
  return ban;
}

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
