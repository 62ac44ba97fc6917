// Who may see and do what, for any route of any issue: the guild aggregate is the one source of permissions, loaded
// through the command handler's cache. Channel ids resolve to their guild through the channels read model, once per
// channel: a channel never moves to another guild, so the guild it was found in is remembered. DM channels answer for
// their recipients (messageChannelAccess, which every message route uses). A thread is found through its own stream
// (domain/thread.ts) and answers as a text channel of its parent's guild, with permissions from its parent.
import { LRUCache } from 'lru-cache';
import { guildDecider } from '../domain/guild.js';
import {
  type ChannelData,
  type GuildState,
  type MemberData,
  channelPermissions,
  guildPermissions,
  requireMember,
  requireNotTimedOut,
  requireVisibleChannel,
  unknownChannel,
  unknownGuild,
} from '../domain/guildState.js';
import { Permission, hasPermission, threadPermissions } from '../domain/permissions.js';
import { type ThreadState, ThreadType, threadDecider, threadPermissionsOf } from '../domain/thread.js';
import type { Doc } from '../ports/readStore.js';
import { anyChannelById } from '../projections/channels.queries.js';
import type { DmChannelDoc } from '../projections/dms.js';
import type { Uses } from './deps.js';
import type { CommandHandler } from './handle.js';
import { guildStream, threadStream } from './streams.js';

/** The guild of each guild channel seen, per command handler (one per runtime), bounded. */
const channelGuilds = new WeakMap<CommandHandler, LRUCache<string, string>>();

/** The channel's guild (from memory once seen), or, for any other channel id, its document: a DM, or null when unknown. */
async function locateChannel(deps: Uses<'commands' | 'readStore'>, channelId: string): Promise<{ guildId: string | null; doc: Doc | null }> {
  let guilds = channelGuilds.get(deps.commands);
  if (!guilds) channelGuilds.set(deps.commands, (guilds = new LRUCache({ max: 100_000 })));
  const known = guilds.get(channelId);
  if (known) return { guildId: known, doc: null };
  const doc = await anyChannelById(deps.readStore, channelId);
  let guildId = typeof doc?.guild_id === 'string' && doc.guild_id ? doc.guild_id : null;
  if (!doc) {
    const thread = await loadThread(deps, channelId);
    if (thread.status === 'active') guildId = thread.thread!.guild_id;
  }
  if (guildId) guilds.set(channelId, guildId);
  return { guildId, doc };
}

/** A thread's current state: status 'none' for an id that names no thread. */
export async function loadThread(deps: Uses<'commands'>, threadId: string): Promise<ThreadState> {
  return (await deps.commands.load(threadStream(threadId), threadDecider)).state;
}

/** A thread as the read model lists it: enough to judge who sees it. */
interface ListedThread {
  _id: string;
  type: number;
  locked: boolean;
  parent_id: string;
}

/**
 * Of these threads of the guild, those the user sees by the thread's own rules (a private one only its members and
 * MANAGE_THREADS holders), given the ids of the threads they joined.
 */
export function threadsVisibleTo<T extends ListedThread>(guild: GuildState, userId: string, threads: T[], joined: ReadonlySet<string>): T[] {
  return threads.filter((doc) => {
    const parent = guild.channels.get(doc.parent_id);
    if (!parent) return false;
    const shape = { private: doc.type === ThreadType.PRIVATE_THREAD, locked: doc.locked, member: joined.has(doc._id) };
    return hasPermission(threadPermissions(channelPermissions(guild, userId, parent), shape), Permission.VIEW_CHANNEL);
  });
}

/**
 * The guild's current state, judged at the clock's time (permissions depend on it through timeouts); UNKNOWN_GUILD
 * when it does not exist or was deleted.
 */
export async function loadGuild(deps: Uses<'commands' | 'clock'>, guildId: string): Promise<GuildState> {
  const state = await loadGuildNow(deps, guildId);
  if (state.status !== 'active') throw unknownGuild();
  return state;
}

/** The guild's state as loaded, whatever its status, stamped with the clock's time for permission checks. */
export async function loadGuildNow(deps: Uses<'commands' | 'clock'>, guildId: string): Promise<GuildState> {
  const { state } = await deps.commands.load(guildStream(guildId), guildDecider);
  return { ...state, at: deps.clock.now() };
}

export interface GuildAccess {
  guild: GuildState;
  member: MemberData;
  /** Guild-level permissions (no channel overwrites). */
  permissions: bigint;
}

/** The user's membership and guild-level permissions; UNKNOWN_GUILD when the guild is unknown or the user is not in it. */
export async function guildAccess(deps: Uses<'commands' | 'clock'>, guildId: string, userId: string): Promise<GuildAccess> {
  const guild = await loadGuild(deps, guildId);
  const member = requireMember(guild, userId);
  return { guild, member, permissions: guildPermissions(guild, userId) };
}

/** Whether the user sees this channel of the guild (VIEW_CHANNEL there, overwrites applied); false for a channel the guild does not have. */
export function canViewChannel(guild: GuildState, userId: string, channelId: string): boolean {
  const channel = guild.channels.get(channelId);
  return channel !== undefined && hasPermission(channelPermissions(guild, userId, channel), Permission.VIEW_CHANNEL);
}

export interface ChannelAccess {
  guildId: string;
  guild: GuildState;
  channel: ChannelData;
  /** The user's permissions in the channel, overwrites applied; always includes VIEW_CHANNEL. */
  permissions: bigint;
}

/**
 * A guild channel the user can see, with their permissions in it. UNKNOWN_CHANNEL when the channel does not exist, is
 * not a guild channel, or the user is not a member of its guild or lacks VIEW_CHANNEL there.
 */
export async function channelAccess(deps: Uses<'commands' | 'readStore' | 'clock'>, channelId: string, userId: string): Promise<ChannelAccess> {
  const { guildId } = await locateChannel(deps, channelId);
  if (!guildId) throw unknownChannel();
  return guildChannelAccess(deps, guildId, channelId, userId);
}

/** channelAccess once the channel's guild is known; a channel the guild no longer has is unknown. */
async function guildChannelAccess(deps: Uses<'commands' | 'clock'>, guildId: string, channelId: string, userId: string): Promise<ChannelAccess> {
  const guild = await loadGuildNow(deps, guildId);
  const { channel, permissions } = requireVisibleChannel(guild, userId, channelId);
  return { guildId: guild.id, guild, channel, permissions };
}

/** What participants may do in a DM: take part, but not manage others' messages or mention @everyone. */
export const DM_PERMISSIONS =
  Permission.VIEW_CHANNEL |
  Permission.SEND_MESSAGES |
  Permission.SEND_TTS_MESSAGES |
  Permission.EMBED_LINKS |
  Permission.ATTACH_FILES |
  Permission.READ_MESSAGE_HISTORY |
  Permission.ADD_REACTIONS |
  Permission.USE_EXTERNAL_EMOJIS;

export interface MessageChannelAccess {
  channelId: string;
  guildId: string | null;
  type: number;
  /** The user's permissions in the channel; always includes VIEW_CHANNEL. */
  permissions: bigint;
  /** The guild, for guild channels (roles and channels that mentions name). */
  guild: GuildState | null;
  /** The DM document, for DMs and group DMs. */
  dm: DmChannelDoc | null;
  /** The thread, for threads. */
  thread?: ThreadState;
}

export const isDm = (doc: Doc | null): doc is DmChannelDoc => doc !== null && doc.guild_id === null && (doc.type === 1 || doc.type === 3);

/** A channel the user can see (a guild channel, or a DM they take part in); otherwise 404 UNKNOWN_CHANNEL. */
export async function messageChannelAccess(deps: Uses<'commands' | 'readStore' | 'clock'>, channelId: string, userId: string): Promise<MessageChannelAccess> {
  const { guildId, doc } = await locateChannel(deps, channelId);
  if (!guildId) {
    if (!isDm(doc) || !doc.recipient_ids.includes(userId)) throw unknownChannel();
    return { channelId, guildId: null, type: doc.type, permissions: DM_PERMISSIONS, guild: null, dm: doc };
  }
  // Judged at the clock's time, like every guild access: a timeout that has run out no longer holds the member back.
  const guild = await loadGuildNow(deps, guildId);
  if (!guild.channels.has(channelId) && guild.status === 'active') return threadChannelAccess(deps, guild, channelId, userId);
  const { channel, permissions } = requireVisibleChannel(guild, userId, channelId);
  return { channelId, guildId: guild.id, type: channel.type, permissions, guild, dm: null };
}

/** A thread of the guild the user can see, as a text channel; anything else is unknown. */
async function threadChannelAccess(deps: Uses<'commands'>, guild: GuildState, threadId: string, userId: string): Promise<MessageChannelAccess> {
  const thread = await loadThread(deps, threadId);
  if (thread.status !== 'active' || thread.thread!.guild_id !== guild.id) throw unknownChannel();
  const permissions = threadPermissionsOf(guild, thread, userId);
  if (!hasPermission(permissions, Permission.VIEW_CHANNEL)) throw unknownChannel();
  return { channelId: threadId, guildId: guild.id, type: thread.thread!.type, permissions, guild, dm: null, thread };
}

/** Whether the channel of `access` still stands: a send appended after its deletion would add to a channel gone. */
export async function channelStands(deps: Uses<'commands' | 'clock'>, access: MessageChannelAccess, authorId: string | null = null): Promise<boolean> {
  if (!access.guildId) return true;
  const guild = await loadGuild(deps, access.guildId);
  // A member's send that waited behind a prune finds its author gone.
  if (authorId !== null && !guild.members.has(authorId)) return false;
  if (!access.thread) return guild.channels.has(access.channelId);
  return (await loadThread(deps, access.channelId)).status === 'active' && guild.channels.has(access.thread.thread!.parent_id);
}

/**
 * A timed-out member may read but not take part: sends, reactions and interactions in a guild channel refuse them with
 * 403 MISSING_ACCESS (their permissions there, computed at the clock's time, hold nothing but reading anyway).
 */
export function requireNotTimedOutIn(access: MessageChannelAccess, userId: string): void {
  if (access.guild) requireNotTimedOut(access.guild, userId);
}

/**
 * Where a user's interaction happens, checked alike for every kind (a command or its autocomplete, a click, a modal's
 * submit) before anything about it is looked up: a channel they see, of a guild they are a member of or a DM they take
 * part in, and not while they are timed out there. USE_APPLICATION_COMMANDS is a command's own check, as on the widely
 * used API: a click or a modal's submit does not need it.
 */
export async function interactionAccess(deps: Uses<'commands' | 'readStore' | 'clock'>, channelId: string, userId: string): Promise<MessageChannelAccess> {
  const access = await messageChannelAccess(deps, channelId, userId);
  requireNotTimedOutIn(access, userId);
  return access;
}
