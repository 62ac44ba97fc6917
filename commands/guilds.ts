// Commands on the guild aggregate: creating, configuring and deleting guilds, and running the role, member, ban and
// channel commands, whose checks all live in the guild's decider.
import { notFound } from '../domain/errors.js';
import { type GuildCommand, guildDecider } from '../domain/guild.js';
import type { GuildSettings, GuildState } from '../domain/guildState.js';
import type { MemberBanned } from '../domain/member.js';
import { isoNow } from '../ports/clock.js';
import type { Image } from '../ports/images.js';
import { temporaryMembershipsOf } from '../projections/members.queries.js';
import { userById } from '../projections/users.queries.js';
import { type ActorMeta, type Uses, metadata } from './deps.js';
import { channelSendsGate, exclusive, exclusiveAll } from './queue.js';
import { guildStream } from './streams.js';
import { purgeMessagesOf } from './messages/delete.js';
import { claimVanityCode, releaseVanityCode } from './vanity.js';
import { deleteThreadsWithParent } from './threads.js';

/** The guild's images, each stored under its CDN folder: {folder}/{guildId}/{hash}. */
const GUILD_IMAGES = { icon: 'icons', banner: 'banners', splash: 'splashes', discovery_splash: 'discovery-splashes' } as const;
export type GuildImageField = keyof typeof GUILD_IMAGES;
const guildImageKey = (field: GuildImageField, guildId: string, hash: string) => `${GUILD_IMAGES[field]}/${guildId}/${hash}`;

/** Runs a command on a guild's stream and waits until the read models show it. */
export async function runGuildCommand(deps: Uses<'commands' | 'clock' | 'settle'>, meta: ActorMeta, guildId: string, command: GuildCommand) {
  const result = await deps.commands.handle(guildStream(guildId), guildDecider, command, metadata(meta, deps.clock));
  await deps.settle(result.position);
  return result;
}

/**
 * Decides the command on the current state without appending: refuses before side effects outside the log happen.
 * What it decided is appended by commitGuildCommand, decided again only if the guild changed in between.
 */
const decideGuildCommand = (deps: Uses<'commands' | 'clock'>, guildId: string, command: GuildCommand) =>
  deps.commands.decide(guildStream(guildId), guildDecider, command, deps.clock.now());

async function commitGuildCommand(deps: Uses<'commands' | 'clock' | 'settle'>, meta: ActorMeta, decision: Awaited<ReturnType<typeof decideGuildCommand>>) {
  const result = await deps.commands.commit(decision, metadata(meta, deps.clock));
  await deps.settle(result.position);
  return result;
}

/** A new guild with @everyone, a #general text channel and its creator as owner and first member. */
export async function createGuild(
  deps: Uses<'commands' | 'ids' | 'blobs' | 'clock' | 'settle'>,
  meta: ActorMeta,
  input: { name: string; icon: Image | null },
): Promise<string> {
  const guildId = deps.ids.next();
  if (input.icon) await deps.blobs.put(guildImageKey('icon', guildId, input.icon.hash), input.icon);
  await runGuildCommand(deps, meta, guildId, {
    type: 'CreateGuild',
    guildId,
    ownerId: meta.actorId,
    name: input.name,
    icon: input.icon?.hash ?? null,
    channelId: deps.ids.next(),
    createdAt: isoNow(deps.clock),
  });
  return guildId;
}

/** Images a command sets by hash: each given one's hash, null for one to remove. */
type ImageFields<F extends string> = Partial<Record<F, Image | null>>;
const hashesOf = <F extends string>(images: ImageFields<F>) =>
  Object.fromEntries(Object.entries(images).map(([field, image]) => [field, (image as Image | null)?.hash ?? null])) as Partial<Record<F, string | null>>;

/**
 * Runs a guild command that sets images: decided first on the current state, so a refusal stores no file, then the
 * images stored under their keys, then appended.
 */
async function runGuildCommandWithImages<F extends string>(
  deps: Uses<'commands' | 'blobs' | 'clock' | 'settle'>,
  meta: ActorMeta,
  guildId: string,
  command: GuildCommand,
  images: ImageFields<F>,
  keyOf: (field: F, hash: string) => string,
) {
  const stored = Object.entries(images).filter((entry): entry is [F, Image] => Boolean(entry[1]));
  if (!stored.length) return runGuildCommand(deps, meta, guildId, command);
  const decision = await decideGuildCommand(deps, guildId, command);
  for (const [field, image] of stored) await deps.blobs.put(keyOf(field, image.hash), image);
  return commitGuildCommand(deps, meta, decision);
}

/** Each image given replaces the guild's (null removes it); one left out stays. */
export async function updateGuild(
  deps: Uses<'commands' | 'blobs' | 'clock' | 'settle'>,
  meta: ActorMeta,
  guildId: string,
  settings: Partial<Omit<GuildSettings, GuildImageField>>,
  images: ImageFields<GuildImageField> = {},
) {
  const command: GuildCommand = { type: 'UpdateGuild', actorId: meta.actorId, settings: { ...settings, ...hashesOf(images) } };
  await runGuildCommandWithImages(deps, meta, guildId, command, images, (field, hash) => guildImageKey(field, guildId, hash));
}

/** A member's own guild images, stored as the CDN serves them: guilds/{guildId}/users/{userId}/{avatars|banners}/{hash}. */
const memberImageKey = (guildId: string, userId: string, field: 'avatar' | 'banner', hash: string) => `guilds/${guildId}/users/${userId}/${field}s/${hash}`;

/**
 * Nickname, roles, the server voice mute and deafen and the timeout (by those allowed), and the member's own avatar and
 * banner (null removes one).
 */
export async function updateMember(
  deps: Uses<'commands' | 'blobs' | 'clock' | 'settle'>,
  meta: ActorMeta,
  guildId: string,
  userId: string,
  input: { nick?: string | null; roles?: string[]; mute?: boolean; deaf?: boolean; communicationDisabledUntil?: string | null },
  images: ImageFields<'avatar' | 'banner'> = {},
) {
  const command: GuildCommand = { type: 'UpdateMember', actorId: meta.actorId, userId, ...input, ...hashesOf(images) };
  await runGuildCommandWithImages(deps, meta, guildId, command, images, (field, hash) => memberImageKey(guildId, userId, field, hash));
}

/**
 * Times a member out until `until` (ISO 8601, at most 28 days from now) or lifts their timeout (null): MODERATE_MEMBERS,
 * not on the owner, administrators or members at or above the actor's highest role. Recorded as MemberUpdated with the
 * change `communication_disabled_until` (audit entry 24, GUILD_MEMBER_UPDATE); the reason travels in `meta`.
 */
export async function timeoutMember(deps: Uses<'commands' | 'clock' | 'settle'>, meta: ActorMeta, guildId: string, userId: string, until: string | null) {
  await runGuildCommand(deps, meta, guildId, { type: 'UpdateMember', actorId: meta.actorId, userId, communicationDisabledUntil: until });
}

/**
 * A channel's deletion waits for the sends under way in it, and holds back new ones until it is appended; its files
 * leave the blob store before the answer (the attachment remover follows ChannelDeleted). Its threads go first, once
 * the deletion is known to be allowed, so that no thread outlives its parent with its messages readable. The guild is
 * loaded once: the decision that allowed the threads' deletion is the one appended, unless the guild changed meanwhile
 * (then it is decided again, and may still be refused).
 */
export async function deleteChannel(
  deps: Uses<'commands' | 'readStore' | 'clock' | 'settle' | 'settleFiles'>,
  meta: ActorMeta,
  guildId: string,
  channelId: string,
) {
  const command = { type: 'DeleteChannel', actorId: meta.actorId, channelId } as const;
  const decision = await decideGuildCommand(deps, guildId, command);
  const { position } = await exclusive(channelSendsGate(channelId), async () => {
    // Under the gate that threads are opened under (commands/threads.ts): none can be opened after these are found.
    await deleteThreadsWithParent(deps, meta, channelId);
    // Settled here, so that read models show the deletion before the sends held back run.
    return commitGuildCommand(deps, meta, decision);
  });
  await deps.settleFiles(position);
}

/** The actor leaves the guild; its owner cannot. */
export async function leaveGuild(deps: Uses<'commands' | 'clock' | 'settle'>, meta: ActorMeta, guildId: string): Promise<void> {
  await runGuildCommand(deps, meta, guildId, { type: 'LeaveGuild', userId: meta.actorId });
}

export async function deleteGuild(deps: Uses<'commands' | 'clock' | 'settle' | 'settleFiles'>, meta: ActorMeta, guildId: string) {
  const { state } = await deps.commands.load(guildStream(guildId), guildDecider);
  // As a channel's deletion, for all of its channels at once, files included.
  const gates = [...state.channels.keys()].map(channelSendsGate);
  const { events, position } = await exclusiveAll(gates, () => runGuildCommand(deps, meta, guildId, { type: 'DeleteGuild', actorId: meta.actorId }));
  await deps.settleFiles(position);
  const deleted = events.find((e) => e.type === 'GuildDeleted');
  if (deleted?.type === 'GuildDeleted' && deleted.data.vanityCode) await releaseVanityCode(deps, meta, guildId, deleted.data.vanityCode);
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

/** Sets (or with null removes) a guild's vanity code: the code is claimed first, the old one released last. */
export async function setVanityCode(deps: Uses<'commands' | 'clock' | 'settle'>, meta: ActorMeta, guildId: string, code: string | null) {
  const command: GuildCommand = { type: 'SetVanityCode', actorId: meta.actorId, code };
  const decision = await decideGuildCommand(deps, guildId, command);
  if (code) await claimVanityCode(deps, meta, guildId, code);
  const { events } = await commitGuildCommand(deps, meta, decision);
  const set = events.find((e) => e.type === 'VanityCodeSet');
  if (set?.type === 'VanityCodeSet' && set.data.previousCode) await releaseVanityCode(deps, meta, guildId, set.data.previousCode);
}

/**
 * Ends the user's temporary memberships (those joined through temporary invites, with no role given since): for the
 * gateway to call when the user's last session disconnects.
 */
export async function endTemporaryMemberships(deps: Uses<'commands' | 'readStore' | 'clock' | 'settle'>, meta: ActorMeta) {
  const memberships = await temporaryMembershipsOf(deps.readStore, meta.actorId);
  for (const { guild_id } of memberships) await runGuildCommand(deps, meta, guild_id, { type: 'EndTemporaryMembership', userId: meta.actorId });
}
