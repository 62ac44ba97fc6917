// Thread use cases: starting a thread (from a message or not), changing and deleting it, its members, and what a
// message sent in it does (its author and those it mentions join, an archived thread reopens). Each resolves the
// thread, its guild and its parent, hands the thread's decider the parent's permissions of whom it concerns, and
// waits until the read models show the result. And the reads that depend on who reads: a thread, its members, and the
// lists of a guild's or a channel's threads, each as far as the reader sees them.
import { badRequest } from '../domain/errors.js';
import { ChannelFlag } from '../domain/forum.js';
import {
  type ChannelData,
  type GuildState,
  channelPermissions,
  requireNotTimedOut,
  requireVisibleChannel,
  unknownChannel,
  unknownMember,
} from '../domain/guildState.js';
import { unknownMessage } from '../domain/message.js';
import { Permission, requirePermission } from '../domain/permissions.js';
import { type Participant, type ThreadCommand, type ThreadData, type ThreadFields, type ThreadState, ThreadType, threadDecider } from '../domain/thread.js';
import { isoNow } from '../ports/clock.js';
import { channelById } from '../projections/channels.queries.js';
import type { MemberDoc } from '../projections/members.js';
import { memberOf } from '../projections/members.queries.js';
import type { ThreadDoc, ThreadMemberDoc } from '../projections/threads.js';
import {
  activeThreadsOfGuild,
  archivedThreadsOf,
  pinnedPostOf,
  threadById,
  threadMemberOf,
  threadMembersPage,
  threadMembershipsOf,
  threadsByIds,
  threadsOfParent,
} from '../projections/threads.queries.js';
import { usersByIds } from '../projections/users.queries.js';
import { type MessageChannelAccess, channelAccess, guildAccess, loadGuild, loadThread, messageChannelAccess, threadsVisibleTo } from './access.js';
import { type ActorMeta, type Uses, metadata, serviceMeta } from './deps.js';
import type { WithUser } from './members.js';
import { loadMessage } from './messages/state.js';
import { channelSendsGate, exclusive, queued, shared } from './queue.js';
import { admitSlowmode, slowmodeWindow } from './slowmode.js';
import { threadStream } from './streams.js';

type ThreadDeps = Uses<'commands' | 'clock' | 'settle'>;
type ReadDeps = Uses<'commands' | 'readStore' | 'clock'>;

/** Whom a command concerns, with their permissions in the parent channel (0 outside the guild). */
const participant = (guild: GuildState, parent: ChannelData, userId: string): Participant => ({
  id: userId,
  parentPermissions: channelPermissions(guild, userId, parent),
});

interface ResolvedThread {
  guild: GuildState;
  parent: ChannelData;
  thread: ThreadState;
}

/** The thread, its guild and its parent; UNKNOWN_CHANNEL for an id that names no thread standing. */
async function resolveThread(deps: Uses<'commands' | 'clock'>, threadId: string): Promise<ResolvedThread> {
  const thread = await loadThread(deps, threadId);
  if (thread.status !== 'active') throw unknownChannel();
  const guild = await loadGuild(deps, thread.thread!.guild_id);
  const parent = guild.channels.get(thread.thread!.parent_id);
  if (!parent) throw unknownChannel();
  return { guild, parent, thread };
}

/**
 * Appends a thread's creation while its parent stands: beside the parent's sends, never during its deletion, which
 * deletes the threads it finds under the same gate. A thread that comes after the deletion finds its parent gone,
 * rather than outliving it with its messages sealed where the deletion does not reach (its own channel id).
 */
export function whileParentStands<T>(deps: Uses<'commands' | 'clock'>, guildId: string, parentId: string, append: () => Promise<T>): Promise<T> {
  return shared(channelSendsGate(parentId), async () => {
    if (!(await loadGuild(deps, guildId)).channels.has(parentId)) throw unknownChannel();
    return append();
  });
}

export async function run(deps: ThreadDeps, meta: ActorMeta, threadId: string, command: ThreadCommand, newStream = false) {
  const result = await deps.commands.handle(threadStream(threadId), threadDecider, command, metadata(meta, deps.clock), { newStream });
  await deps.settle(result.position);
  return result;
}

export interface NewThread {
  name: string;
  type?: number;
  auto_archive_duration?: number;
  invitable?: boolean;
  /** null: no slowmode, as the widely used API takes it. */
  rate_limit_per_user?: number | null;
}

/**
 * Starts a thread in a guild channel the actor can see: from one of its messages (the thread takes the message's id)
 * or on its own (a new id). The channel's slowmode spaces out the threads a member starts there, apart from their
 * messages (one of each per window; bots and those who manage messages or the channel are exempt): admitted once the
 * thread passes its own rules, just before it is appended, so a thread refused for anything else counts for nothing.
 * Answers the thread's id.
 */
export async function createThread(
  deps: ThreadDeps & Uses<'readStore' | 'ids'>,
  meta: ActorMeta,
  channelId: string,
  input: NewThread,
  messageId: string | null,
  byBot: boolean,
): Promise<string> {
  const guild = await guildOfChannel(deps, channelId);
  requireNotTimedOut(guild, meta.actorId);
  const { channel: parent, permissions } = requireVisibleChannel(guild, meta.actorId, channelId);
  if (messageId !== null) {
    requirePermission(permissions, Permission.READ_MESSAGE_HISTORY);
    const message = await loadMessage(deps, messageId);
    if (message.status !== 'active' || message.message!.channel_id !== channelId) throw unknownMessage();
  }
  const at = isoNow(deps.clock);
  // From a message, a thread is public (an announcement thread in an announcement channel); without one, a thread is
  // private unless a type is named, the widely used API's v9 default (its decider refuses a type the parent cannot hold).
  const publicType = parent.type === 5 ? ThreadType.ANNOUNCEMENT_THREAD : ThreadType.PUBLIC_THREAD;
  const type = input.type ?? (messageId !== null || parent.type === 5 ? publicType : ThreadType.PRIVATE_THREAD);
  const threadId = messageId ?? deps.ids.next();
  const thread: ThreadData = {
    id: threadId,
    type,
    guild_id: guild.id,
    parent_id: parent.id,
    owner_id: meta.actorId,
    name: input.name,
    rate_limit_per_user: input.rate_limit_per_user ?? 0,
    archived: false,
    auto_archive_duration: input.auto_archive_duration ?? parent.default_auto_archive_duration ?? 4320,
    archive_timestamp: at,
    locked: false,
    // Only a private thread is invitable; the widely used API ignores `invitable` for others (discord.py always sends it).
    ...(type === ThreadType.PRIVATE_THREAD ? { invitable: input.invitable ?? true } : {}),
    create_timestamp: at,
  };
  const command: ThreadCommand = {
    type: 'CreateThread',
    actor: participant(guild, parent, meta.actorId),
    parentType: parent.type,
    fromMessage: messageId !== null,
    thread,
  };
  const window = slowmodeWindow(parent.rate_limit_per_user ?? 0, { permissions, bot: byBot }, false);
  await whileParentStands(deps, guild.id, parent.id, async () => {
    if (window > 0) {
      // Decided before it is admitted, so that a thread its own rules refuse takes nothing from the window.
      threadDecider.decide(command, await loadThread(deps, threadId));
      await admitSlowmode(deps, meta, 'thread', parent.id, meta.actorId, window);
    }
    return run(deps, meta, threadId, command, messageId === null);
  });
  return threadId;
}

/** The guild a guild channel (not a thread) belongs to, from the channels read model. */
async function guildOfChannel(deps: Uses<'commands' | 'readStore' | 'clock'>, channelId: string): Promise<GuildState> {
  const doc = await channelById(deps.readStore, channelId);
  if (!doc || typeof doc.guild_id !== 'string' || !doc.guild_id) {
    // A thread cannot hold threads: answer as the widely used API does for a channel of the wrong type.
    if ((await loadThread(deps, channelId)).status === 'active')
      throw badRequest('CANNOT_EXECUTE_ON_CHANNEL_TYPE', 'Cannot execute action on this channel type');
    throw unknownChannel();
  }
  return loadGuild(deps, doc.guild_id);
}

/** Changes to a thread as a request names them: a null slowmode is none. */
type ThreadChanges = Omit<ThreadFields, 'rate_limit_per_user'> & { rate_limit_per_user?: number | null };

/**
 * Changes a thread. Pinning a post reads its forum's pinned post and appends in turn with the forum's other pinnings in
 * this process, so two at once do not both pass (between processes of the distributed mode they may, as two webhooks
 * made at once may pass the per-channel count).
 */
export async function updateThread(deps: ThreadDeps & Uses<'readStore'>, meta: ActorMeta, threadId: string, changes: ThreadChanges): Promise<void> {
  const { rate_limit_per_user: slowmode, ...rest } = changes;
  const fields: ThreadFields = slowmode === undefined ? rest : { ...rest, rate_limit_per_user: slowmode ?? 0 };
  const { guild, parent } = await resolveThread(deps, threadId);
  const actor = participant(guild, parent, meta.actorId);
  const update = async (pinnedPostId: string | null = null) => {
    const command: ThreadCommand = { type: 'UpdateThread', actor, fields, at: isoNow(deps.clock), forumTags: parent.available_tags, pinnedPostId };
    await run(deps, meta, threadId, command);
  };
  if (!((fields.flags ?? 0) & ChannelFlag.PINNED)) return update();
  await queued(`forum-pins-${parent.id}`, async () => update((await pinnedPostOf(deps.readStore, parent.id))?._id ?? null));
}

/**
 * Deletes the thread once the sends under way in it are appended, as a channel's deletion does, and answers once its
 * messages' keys and files are gone.
 */
export async function deleteThread(deps: ThreadDeps & Uses<'settleFiles'>, meta: ActorMeta, threadId: string): Promise<void> {
  const { guild, parent } = await resolveThread(deps, threadId);
  const { position } = await exclusive(channelSendsGate(threadId), () =>
    run(deps, meta, threadId, { type: 'DeleteThread', actor: participant(guild, parent, meta.actorId) }),
  );
  await deps.settleFiles(position);
}

/**
 * Deletes every thread of a channel whose deletion was already found allowed, each under its sends gate: their
 * messages are sealed under the thread's own id, so the thread's deletion is what erases them.
 */
export async function deleteThreadsWithParent(deps: Uses<'commands' | 'readStore' | 'clock' | 'settle'>, meta: ActorMeta, parentId: string): Promise<void> {
  for (const { _id } of await threadsOfParent(deps.readStore, parentId)) {
    await exclusive(channelSendsGate(_id), () => run(deps, meta, _id, { type: 'DeleteWithParent' }));
  }
}

export async function addThreadMember(deps: ThreadDeps, meta: ActorMeta, threadId: string, userId: string): Promise<void> {
  const { guild, parent } = await resolveThread(deps, threadId);
  // A timed-out member neither joins a thread nor adds anyone to one.
  requireNotTimedOut(guild, meta.actorId);
  const target = guild.members.has(userId) ? participant(guild, parent, userId) : null;
  await run(deps, meta, threadId, { type: 'AddThreadMember', actor: participant(guild, parent, meta.actorId), target, at: isoNow(deps.clock) });
}

export async function removeThreadMember(deps: ThreadDeps, meta: ActorMeta, threadId: string, userId: string): Promise<void> {
  const { guild, parent } = await resolveThread(deps, threadId);
  await run(deps, meta, threadId, { type: 'RemoveThreadMember', actor: participant(guild, parent, meta.actorId), userId });
}

/**
 * What a message about to be appended in a thread does to it: its author and the members it mentions join, and an
 * archived thread reopens. A webhook's message (an interaction's response too) joins no one as its author, and cannot reopen a locked thread.
 */
export async function threadMessageSent(
  deps: ThreadDeps,
  meta: ActorMeta,
  access: MessageChannelAccess,
  message: { author: { id: string }; webhook_id: string | null; mentions: { id: string }[] },
): Promise<void> {
  if (!access.thread || !access.guild) return;
  const guild = access.guild;
  const parent = guild.channels.get(access.thread.thread!.parent_id);
  if (!parent) throw unknownChannel();
  const mentioned = message.mentions.filter((user) => guild.members.has(user.id)).map((user) => participant(guild, parent, user.id));
  const author = message.webhook_id ? null : participant(guild, parent, message.author.id);
  const command: ThreadCommand = { type: 'ThreadMessageSent', author, mentioned, at: isoNow(deps.clock) };
  await run(deps, meta, access.channelId, command);
}

/**
 * Archives a thread idle for its auto_archive_duration, as the service (processes/threadAutoArchive.ts). It holds the
 * thread's sends gate, as a deletion does, so the sends under way are appended and read before the thread's latest
 * activity is, and a send that comes after finds it archived (and reopens it, unless it is locked). Answers whether it
 * archived the thread: not when it is active again, archived or deleted meanwhile.
 */
export async function archiveIdleThread(deps: ThreadDeps & Uses<'readStore'>, threadId: string): Promise<boolean> {
  return exclusive(channelSendsGate(threadId), async () => {
    const doc = await threadById(deps.readStore, threadId);
    if (!doc) return false;
    const command: ThreadCommand = { type: 'ArchiveIdleThread', lastActivityAt: doc.last_activity_at, at: isoNow(deps.clock) };
    const result = await deps.commands.handle(threadStream(threadId), threadDecider, command, serviceMeta(deps));
    await deps.settle(result.position);
    return result.events.length > 0;
  });
}

/**
 * A thread the reader can see, by the thread's own rules (UNKNOWN_CHANNEL for any other thread, standing or deleted).
 * What a thread's fetch answers, and what its deletion answers before it deletes.
 */
export async function readThread(deps: ReadDeps, threadId: string, readerId: string): Promise<ThreadData> {
  const access = await messageChannelAccess(deps, threadId, readerId);
  if (!access.thread) throw unknownChannel();
  return access.thread.thread!;
}

/** A thread member, with their guild member when asked for and still in the guild. */
export interface ThreadMemberView {
  doc: ThreadMemberDoc;
  member?: WithUser<MemberDoc>;
}

/** Thread members of a guild's thread, each with their guild member when asked (those who left it are shown without). */
async function withMembers(deps: Uses<'readStore'>, guildId: string, docs: ThreadMemberDoc[], withMember: boolean): Promise<ThreadMemberView[]> {
  if (!withMember || !docs.length) return docs.map((doc) => ({ doc }));
  const users = new Map((await usersByIds(deps.readStore, [...new Set(docs.map((doc) => doc.user_id))])).map((u) => [u._id, u]));
  return Promise.all(
    docs.map(async (doc) => {
      const member = await memberOf(deps.readStore, guildId, doc.user_id);
      const user = users.get(doc.user_id);
      return member && user ? { doc, member: { doc: member, user } } : { doc };
    }),
  );
}

/** A page of a visible thread's members, in user id order after `after`. */
export async function readThreadMembers(
  deps: ReadDeps,
  threadId: string,
  readerId: string,
  query: { after?: string; limit: number; withMember: boolean },
): Promise<ThreadMemberView[]> {
  const thread = await readThread(deps, threadId, readerId);
  const docs = await threadMembersPage(deps.readStore, threadId, { after: query.after, limit: query.limit });
  return withMembers(deps, thread.guild_id, docs, query.withMember);
}

/** One member of a visible thread (UNKNOWN_MEMBER for anyone not in it). */
export async function readThreadMember(deps: ReadDeps, threadId: string, userId: string, readerId: string, withMember: boolean): Promise<ThreadMemberView> {
  const thread = await readThread(deps, threadId, readerId);
  const doc = await threadMemberOf(deps.readStore, threadId, userId);
  if (!doc) throw unknownMember();
  return (await withMembers(deps, thread.guild_id, [doc], withMember))[0]!;
}

/** Threads as the lists answer them: those the reader sees, with the reader's memberships of them. */
export interface ThreadList {
  threads: ThreadDoc[];
  members: ThreadMemberDoc[];
  /** Set by the paged lists (the archived ones). */
  hasMore?: boolean;
}

/** Of these threads, those the reader sees, with the reader's memberships of them. */
async function visibleList(deps: Uses<'readStore'>, guild: GuildState, readerId: string, docs: ThreadDoc[], hasMore?: boolean): Promise<ThreadList> {
  const memberships = await threadMembershipsOf(deps.readStore, guild.id, readerId);
  const joined = new Map(memberships.map((m) => [m.thread_id, m]));
  const threads = threadsVisibleTo(guild, readerId, docs, new Set(joined.keys()));
  return {
    threads,
    members: threads.flatMap((doc) => joined.get(doc._id) ?? []),
    ...(hasMore === undefined ? {} : { hasMore }),
  };
}

/** The guild's threads not archived that the reader sees; to the guild's members (404 for anyone else). */
export async function readActiveThreads(deps: ReadDeps, guildId: string, readerId: string): Promise<ThreadList> {
  const { guild } = await guildAccess(deps, guildId, readerId);
  return visibleList(deps, guild, readerId, await activeThreadsOfGuild(deps.readStore, guildId));
}

/** The guild of a channel whose archived threads the reader lists: READ_MESSAGE_HISTORY there, and `needs` besides. */
async function archiveReader(deps: ReadDeps, channelId: string, readerId: string, needs = 0n): Promise<GuildState> {
  const { guild, permissions } = await channelAccess(deps, channelId, readerId);
  requirePermission(permissions, Permission.READ_MESSAGE_HISTORY | needs);
  return guild;
}

/** Which threads each archived list holds, and what it needs besides READ_MESSAGE_HISTORY. */
const ARCHIVED = {
  public: { types: [ThreadType.PUBLIC_THREAD, ThreadType.ANNOUNCEMENT_THREAD], needs: 0n },
  private: { types: [ThreadType.PRIVATE_THREAD], needs: Permission.MANAGE_THREADS },
} as const;

/** A channel's archived public or private threads, most recently archived first, archived before `before` (ISO 8601). */
export async function readArchivedThreads(
  deps: ReadDeps,
  channelId: string,
  readerId: string,
  kind: keyof typeof ARCHIVED,
  query: { before?: string; limit: number },
): Promise<ThreadList> {
  const { types, needs } = ARCHIVED[kind];
  const guild = await archiveReader(deps, channelId, readerId, needs);
  const before = query.before ? new Date(query.before).toISOString() : undefined;
  const docs = await archivedThreadsOf(deps.readStore, channelId, [...types], before, query.limit + 1);
  return visibleList(deps, guild, readerId, docs.slice(0, query.limit), docs.length > query.limit);
}

/** The archived private threads of a channel the reader has joined, by thread id descending, before `before` (a thread id). */
export async function readJoinedArchivedThreads(
  deps: ReadDeps,
  channelId: string,
  readerId: string,
  query: { before?: string; limit: number },
): Promise<ThreadList> {
  const guild = await archiveReader(deps, channelId, readerId);
  const joined = (await threadMembershipsOf(deps.readStore, guild.id, readerId)).filter((m) => m.parent_id === channelId).map((m) => m.thread_id);
  const below = (id: string) => !query.before || BigInt(id) < BigInt(query.before);
  const docs = (await threadsByIds(deps.readStore, joined))
    .filter((doc) => doc.archived && doc.type === ThreadType.PRIVATE_THREAD && below(doc._id))
    .sort((a, b) => (BigInt(b._id) > BigInt(a._id) ? 1 : -1));
  return visibleList(deps, guild, readerId, docs.slice(0, query.limit), docs.length > query.limit);
}
