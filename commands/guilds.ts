// The guild aggregate: a guild read by its members; creating, configuring, leaving and deleting guilds, and how any
// command on the guild's stream is run (decided, its images stored, appended, settled), whose checks all live in the
// guild's decider. The commands on its channels, roles and members are commands/channels.ts's, roles.ts's and
// members.ts's.
import { type GuildCommand, guildDecider } from '../domain/guild.js';
import { type GuildSettings, unknownGuild } from '../domain/guildState.js';
import { isoNow } from '../ports/clock.js';
import type { Image } from '../ports/images.js';
import type { EmojiDoc, StickerDoc } from '../projections/expressions.js';
import { emojisOfGuild, stickersOfGuild } from '../projections/expressions.queries.js';
import type { GuildDoc, RoleDoc } from '../projections/guilds.js';
import { guildById, rolesOfGuild } from '../projections/guilds.queries.js';
import { temporaryMembershipsOf } from '../projections/members.queries.js';
import { guildAccess } from './access.js';
import { type ActorMeta, type Uses, metadata } from './deps.js';
import { channelSendsGate, exclusiveAll } from './queue.js';
import { guildStream } from './streams.js';
import { claimVanityCode, releaseVanityCode } from './vanity.js';

/** The guild's images, each stored under its CDN folder: {folder}/{guildId}/{hash}. */
const GUILD_IMAGES = { icon: 'icons', banner: 'banners', splash: 'splashes', discovery_splash: 'discovery-splashes' } as const;
export type GuildImageField = keyof typeof GUILD_IMAGES;
const guildImageKey = (field: GuildImageField, guildId: string, hash: string) => `${GUILD_IMAGES[field]}/${guildId}/${hash}`;

/** What the API's guild object shows: the guild with its roles, emojis and stickers, as the read models have them. */
export interface GuildView {
  guild: GuildDoc;
  roles: RoleDoc[];
  emojis: EmojiDoc[];
  stickers: StickerDoc[];
}

/** The guild as the read models show it, whoever asks: what creating or changing it answers. */
export async function guildViewOf(deps: Uses<'readStore'>, guildId: string): Promise<GuildView> {
  const [guild, roles, emojis, stickers] = await Promise.all([
    guildById(deps.readStore, guildId),
    rolesOfGuild(deps.readStore, guildId),
    emojisOfGuild(deps.readStore, guildId),
    stickersOfGuild(deps.readStore, guildId),
  ]);
  if (!guild) throw unknownGuild();
  return { guild, roles, emojis, stickers };
}

/** The guild, to its members (404 for anyone else). */
export async function readGuild(deps: Uses<'commands' | 'readStore' | 'clock'>, guildId: string, readerId: string): Promise<GuildView> {
  await guildAccess(deps, guildId, readerId);
  return guildViewOf(deps, guildId);
}

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
export const decideGuildCommand = (deps: Uses<'commands' | 'clock'>, guildId: string, command: GuildCommand) =>
  deps.commands.decide(guildStream(guildId), guildDecider, command, deps.clock.now());

export async function commitGuildCommand(
  deps: Uses<'commands' | 'clock' | 'settle'>,
  meta: ActorMeta,
  decision: Awaited<ReturnType<typeof decideGuildCommand>>,
) {
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
export type ImageFields<F extends string> = Partial<Record<F, Image | null>>;
export const hashesOf = <F extends string>(images: ImageFields<F>) =>
  Object.fromEntries(Object.entries(images).map(([field, image]) => [field, (image as Image | null)?.hash ?? null])) as Partial<Record<F, string | null>>;

/**
 * Runs a guild command that sets images: decided first on the current state, so a refusal stores no file, then the
 * images stored under their keys, then appended.
 */
export async function runGuildCommandWithImages<F extends string>(
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
