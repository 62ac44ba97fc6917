// Invites: creating them for a channel, a guild or a guild's sticker pack; listing them, to those who manage them;
// accepting them (the way into a guild, for users and bots alike, also through a vanity code); revoking them. A guild
// invite's use is the join itself, counted on the guild's stream, so max_uses holds when many accept at once and a
// member who is already in uses nothing; a pack invite's uses are counted on its own stream.
import { randomInt } from 'node:crypto';
import { ChannelType } from '../domain/channel.js';
import { missingPermissions } from '../domain/errors.js';
import { guildDecider } from '../domain/guild.js';
import { type ChannelData, type GuildState, channelPermissions, guildPermissions, requireVisibleChannel } from '../domain/guildState.js';
import { type InviteData, inviteDecider, isInviteUsable, unknownInvite } from '../domain/invite.js';
import { Permission, hasPermission, requirePermission } from '../domain/permissions.js';
import { isoNow } from '../ports/clock.js';
import type { InviteDoc } from '../projections/invites.js';
import { type InviteScope, invitesOf, invitesWithTerms } from '../projections/invites.queries.js';
import { channelAccess, guildAccess, loadGuildNow } from './access.js';
import { type ActorMeta, type Uses, metadata } from './deps.js';
import { runGuildCommand } from './guilds.js';
import { guildStream, inviteStream } from './streams.js';
import { vanityHolder } from './vanity.js';

export interface InviteOptions {
  max_uses: number;
  max_age: number;
  temporary: boolean;
  /** false reuses an equivalent live invite of the same inviter instead of making a new code. */
  unique: boolean;
}

const CODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const newInviteCode = () => Array.from({ length: 8 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');

async function codeIsFree(deps: Uses<'commands'>, code: string): Promise<boolean> {
  return (await vanityHolder(deps, code)) === null && (await deps.commands.load(inviteStream(code), inviteDecider)).state.status === 'none';
}

/** Returns the code of the new (or reused) invite, once the read models show it. */
async function issueInvite(
  deps: Uses<'commands' | 'readStore' | 'clock' | 'settle'>,
  meta: ActorMeta,
  target: Pick<InviteData, 'guild_id' | 'channel_id' | 'pack_id'>,
  options: InviteOptions,
): Promise<string> {
  const terms = { ...target, inviter_id: meta.actorId, max_uses: options.max_uses, max_age: options.max_age, temporary: options.temporary };
  if (!options.unique) {
    const reusable = (await invitesWithTerms(deps.readStore, terms)).find((doc) => isInviteUsable(doc, deps.clock.now()));
    if (reusable) return reusable.code;
  }
  for (let attempt = 1; ; attempt++) {
    const code = newInviteCode();
    if (await codeIsFree(deps, code)) {
      const invite = { ...terms, code, created_at: isoNow(deps.clock) };
      const { position } = await deps.commands.handle(inviteStream(code), inviteDecider, { type: 'CreateInvite', invite }, metadata(meta, deps.clock));
      await deps.settle(position);
      return code;
    }
    if (attempt >= 5) throw new Error('no free invite code after 5 draws');
  }
}

export async function createChannelInvite(
  deps: Uses<'commands' | 'readStore' | 'clock' | 'settle'>,
  meta: ActorMeta,
  channelId: string,
  options: InviteOptions,
): Promise<string> {
  const { guildId, permissions } = await channelAccess(deps, channelId, meta.actorId);
  requirePermission(permissions, Permission.CREATE_INSTANT_INVITE);
  return issueInvite(deps, meta, { guild_id: guildId, channel_id: channelId, pack_id: null }, options);
}

/** The first channel (by position) the user may invite into. */
function defaultInviteChannel(guild: GuildState, userId: string): ChannelData | undefined {
  return [...guild.channels.values()]
    .filter(
      (c) =>
        c.type !== ChannelType.GUILD_CATEGORY &&
        hasPermission(channelPermissions(guild, userId, c), Permission.VIEW_CHANNEL | Permission.CREATE_INSTANT_INVITE),
    )
    .sort((a, b) => a.position - b.position)[0];
}

/** A guild invite leads into `channelId`, or else into the first channel the inviter may invite into. */
export async function createGuildInvite(
  deps: Uses<'commands' | 'readStore' | 'clock' | 'settle'>,
  meta: ActorMeta,
  guildId: string,
  options: InviteOptions & { channelId?: string },
): Promise<string> {
  const { guild } = await guildAccess(deps, guildId, meta.actorId);
  const channel = options.channelId ? requireVisibleChannel(guild, meta.actorId, options.channelId).channel : defaultInviteChannel(guild, meta.actorId);
  if (!channel || !hasPermission(channelPermissions(guild, meta.actorId, channel), Permission.CREATE_INSTANT_INVITE)) throw missingPermissions();
  return issueInvite(deps, meta, { guild_id: guildId, channel_id: channel.id, pack_id: null }, options);
}

/** A pack is a guild's sticker pack: its id is the guild's. */
export async function createPackInvite(
  deps: Uses<'commands' | 'readStore' | 'clock' | 'settle'>,
  meta: ActorMeta,
  packId: string,
  options: InviteOptions,
): Promise<string> {
  const { permissions } = await guildAccess(deps, packId, meta.actorId);
  requirePermission(permissions, Permission.CREATE_INSTANT_INVITE);
  return issueInvite(deps, meta, { guild_id: packId, channel_id: null, pack_id: packId }, options);
}

/** The invites of a scope still usable, oldest first. */
async function liveInvites(deps: Uses<'readStore' | 'clock'>, of: InviteScope): Promise<InviteDoc[]> {
  const now = deps.clock.now();
  return (await invitesOf(deps.readStore, of)).filter((doc) => isInviteUsable(doc, now));
}

/** A channel's invites, to those with MANAGE_CHANNELS there. */
export async function readChannelInvites(deps: Uses<'commands' | 'readStore' | 'clock'>, channelId: string, readerId: string): Promise<InviteDoc[]> {
  const { permissions } = await channelAccess(deps, channelId, readerId);
  requirePermission(permissions, Permission.MANAGE_CHANNELS);
  return liveInvites(deps, { channel_id: channelId });
}

/** A guild's invites, or those of its sticker pack (whose id is the guild's), to those with MANAGE_GUILD. */
export async function readGuildInvites(
  deps: Uses<'commands' | 'readStore' | 'clock'>,
  guildId: string,
  readerId: string,
  of: 'guild' | 'pack',
): Promise<InviteDoc[]> {
  const { permissions } = await guildAccess(deps, guildId, readerId);
  requirePermission(permissions, Permission.MANAGE_GUILD);
  return liveInvites(deps, of === 'pack' ? { pack_id: guildId } : { guild_id: guildId, pack_id: null });
}

export interface Accepted {
  guildId: string;
  /** An already_member outcome counted no use. */
  outcome: 'joined' | 'already_member' | 'pack_added';
}

async function joinByVanity(deps: Uses<'commands' | 'clock' | 'settle'>, meta: ActorMeta, code: string, now: number): Promise<Accepted> {
  const guildId = await vanityHolder(deps, code);
  const guild = guildId ? (await deps.commands.load(guildStream(guildId), guildDecider)).state : null;
  if (!guildId || guild?.status !== 'active' || guild.vanityCode !== code) throw unknownInvite();
  const join = { type: 'JoinGuild', userId: meta.actorId, joinedAt: new Date(now).toISOString(), inviteCode: code, vanity: true, temporary: false } as const;
  const { events } = await runGuildCommand(deps, meta, guildId, join);
  return { guildId, outcome: events.length > 0 ? 'joined' : 'already_member' };
}

/**
 * Accepts an invite or vanity code for the actor. Expired, used-up, revoked and unknown codes, and codes whose guild or
 * channel is gone, all answer 404 UNKNOWN_INVITE; a banned user gets 403 USER_BANNED and nothing is counted.
 */
export async function acceptInvite(deps: Uses<'commands' | 'clock' | 'settle'>, meta: ActorMeta, code: string): Promise<Accepted> {
  const now = deps.clock.now();
  const { state } = await deps.commands.load(inviteStream(code), inviteDecider);
  if (state.status === 'none') return joinByVanity(deps, meta, code, now);
  const accept = { type: 'AcceptInvite', userId: meta.actorId, now } as const;
  inviteDecider.decide(accept, state);
  const invite = state.invite!;
  const { state: guild } = await deps.commands.load(guildStream(invite.guild_id), guildDecider);
  if (guild.status !== 'active' || (invite.channel_id && !guild.channels.has(invite.channel_id))) throw unknownInvite();

  if (invite.pack_id) {
    const { position } = await deps.commands.handle(inviteStream(code), inviteDecider, accept, metadata(meta, deps.clock));
    await deps.settle(position);
    return { guildId: invite.guild_id, outcome: 'pack_added' };
  }
  // The join is the use, counted on the guild's stream with the membership: a member already in uses nothing.
  const { events } = await runGuildCommand(deps, meta, invite.guild_id, {
    type: 'JoinGuild',
    userId: meta.actorId,
    joinedAt: new Date(now).toISOString(),
    inviteCode: code,
    vanity: false,
    temporary: invite.temporary,
    invite: { maxUses: invite.max_uses, usedBefore: invite.uses },
  });
  return { guildId: invite.guild_id, outcome: events.length > 0 ? 'joined' : 'already_member' };
}

/**
 * Revokes an invite: MANAGE_CHANNELS on its channel or MANAGE_GUILD. With `channelId`, a channel the actor sees
 * (UNKNOWN_CHANNEL first, as for any other), and the invite must belong to it (DELETE /channels/:id/invites/:code).
 */
export async function deleteInvite(deps: Uses<'commands' | 'readStore' | 'clock' | 'settle'>, meta: ActorMeta, code: string, channelId?: string) {
  if (channelId !== undefined) await channelAccess(deps, channelId, meta.actorId);
  const { state } = await deps.commands.load(inviteStream(code), inviteDecider);
  const invite = state.invite;
  if (state.status !== 'active' || !invite || (channelId !== undefined && invite.channel_id !== channelId)) throw unknownInvite();
  const guild = await loadGuildNow(deps, invite.guild_id);
  if (guild.status !== 'active') throw unknownInvite();
  const channel = invite.channel_id ? guild.channels.get(invite.channel_id) : undefined;
  const mayManage =
    hasPermission(guildPermissions(guild, meta.actorId), Permission.MANAGE_GUILD) ||
    (channel !== undefined && hasPermission(channelPermissions(guild, meta.actorId, channel), Permission.MANAGE_CHANNELS));
  if (!mayManage) throw missingPermissions();
  const { position } = await deps.commands.handle(inviteStream(code), inviteDecider, { type: 'DeleteInvite' }, metadata(meta, deps.clock));
  await deps.settle(position);
}
