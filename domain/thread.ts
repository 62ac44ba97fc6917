// Threads (stream thread-{id}): a thread channel under a guild text or announcement channel, and who has joined it. A
// thread has no overwrites of its own: what a member may do in it is their permission in the parent channel, turned
// by threadPermissions (permissions.ts); the command layer computes the parent's permissions from the guild and hands
// them in, so these rules stay pure. A thread started from a message takes the message's id, so a second thread on the
// same message finds its stream taken.
import type { Decider, DomainEvent } from './decider.js';
import { DomainError, badRequest, invalidForm, missingPermissions } from './errors.js';
import { ChannelFlag, type ForumTag, cannotSendInForum, isForum, maxPinnedPosts, requireAppliedTags, tagRequired } from './forum.js';
import { type Change, type GuildState, applyChanges, channelPermissions, diff, unknownChannel, unknownMember } from './guildState.js';
import { Permission, hasPermission, requirePermission, threadPermissions } from './permissions.js';

export const ThreadType = { ANNOUNCEMENT_THREAD: 10, PUBLIC_THREAD: 11, PRIVATE_THREAD: 12 } as const;
export const AUTO_ARCHIVE_DURATIONS = [60, 1440, 4320, 10080] as const;
/**
 * Parents that hold threads: text (public and private threads), announcement channels (announcement threads), forum
 * and media channels (public threads, their posts: domain/forum.ts).
 */
const THREAD_PARENTS: Record<number, readonly number[]> = {
  0: [ThreadType.PUBLIC_THREAD, ThreadType.PRIVATE_THREAD],
  5: [ThreadType.ANNOUNCEMENT_THREAD],
  15: [ThreadType.PUBLIC_THREAD],
  16: [ThreadType.PUBLIC_THREAD],
};

/** A thread as the widely used API describes it, thread_metadata's fields kept flat so that changes name them. */
export interface ThreadData {
  id: string;
  type: number;
  guild_id: string;
  parent_id: string;
  owner_id: string;
  name: string;
  rate_limit_per_user: number;
  archived: boolean;
  auto_archive_duration: number;
  archive_timestamp: string;
  locked: boolean;
  /** Private threads only: whether members who do not manage threads may add others. */
  invitable?: boolean;
  create_timestamp: string;
  /** Posts in forum and media channels only: the ids of the parent's tags the post carries. */
  applied_tags?: string[];
  /** PINNED (a post pinned atop its forum) or none; absent: none. */
  flags?: number;
}

export interface ThreadState {
  status: 'none' | 'active' | 'deleted';
  /** Kept once deleted: who could see it decides who is told it is gone. */
  thread: ThreadData | null;
  /** Members by user id, with when they joined. */
  members: ReadonlyMap<string, string>;
}

/** `byWebhook`: a webhook opened the post, as its message's side (no member joins, no audit-log entry, as for its messages). */
export type ThreadCreated = DomainEvent<'ThreadCreated', { guildId: string; thread: ThreadData; fromMessage: boolean; byWebhook?: true }>;
/** `byMessage`: a message reopened the archived thread (no one's edit, so no audit-log entry). */
export type ThreadUpdated = DomainEvent<'ThreadUpdated', { guildId: string; threadId: string; parentId: string; changes: Change[]; byMessage?: true }>;
/** The service archived a thread that saw no activity for its auto_archive_duration (no one's edit: no audit-log entry). */
export type ThreadArchived = DomainEvent<'ThreadArchived', { guildId: string; threadId: string; parentId: string; archiveTimestamp: string }>;
/** `withParent`: deleted because its parent channel was (no audit entry of its own, as the widely used API shows none). */
export type ThreadDeleted = DomainEvent<'ThreadDeleted', { guildId: string; thread: ThreadData; withParent?: true }>;
export type ThreadMemberAdded = DomainEvent<
  'ThreadMemberAdded',
  { guildId: string; threadId: string; parentId: string; userId: string; joinTimestamp: string; memberCount: number }
>;
export type ThreadMemberRemoved = DomainEvent<
  'ThreadMemberRemoved',
  { guildId: string; threadId: string; parentId: string; userId: string; memberCount: number }
>;
export type ThreadEvent = ThreadCreated | ThreadUpdated | ThreadArchived | ThreadDeleted | ThreadMemberAdded | ThreadMemberRemoved;

/** A user and their permissions in the thread's parent channel (0 for someone outside the guild). */
export interface Participant {
  id: string;
  parentPermissions: bigint;
}

export type ThreadFields = Partial<
  Pick<ThreadData, 'name' | 'archived' | 'locked' | 'auto_archive_duration' | 'invitable' | 'rate_limit_per_user' | 'applied_tags' | 'flags'>
>;

export type ThreadCommand =
  /**
   * `forumTags` and `forumFlags`: the parent's tags and flags, when it is a forum or media channel. `byWebhook`: the
   * actor is a webhook opening a post (executed with thread_name), which does not join it.
   */
  | {
      type: 'CreateThread';
      actor: Participant;
      parentType: number;
      fromMessage: boolean;
      thread: ThreadData;
      forumTags?: readonly ForumTag[];
      forumFlags?: number;
      byWebhook?: true;
    }
  /** `pinnedPostId`: the parent forum's pinned post, if it has one (a forum pins one at most). */
  | { type: 'UpdateThread'; actor: Participant; fields: ThreadFields; at: string; forumTags?: readonly ForumTag[]; pinnedPostId?: string | null }
  | { type: 'DeleteThread'; actor: Participant }
  /** Its parent channel is being deleted by someone allowed to: the thread and its messages go with it. */
  | { type: 'DeleteWithParent' }
  | { type: 'AddThreadMember'; actor: Participant; target: Participant | null; at: string }
  | { type: 'RemoveThreadMember'; actor: Participant; userId: string }
  /**
   * A message was sent: its author, and those it mentions who can see the thread, join; an archived thread reopens.
   * A webhook's message (`author` null) has no member to join, and cannot reopen a locked thread.
   */
  | { type: 'ThreadMessageSent'; author: Participant | null; mentioned: Participant[]; at: string }
  /**
   * The service's clock says the thread may be idle: `lastActivityAt` is its latest activity as the read models know it
   * (its last message, creation or unarchiving); the thread's own archive_timestamp counts too, as the log has it.
   */
  | { type: 'ArchiveIdleThread'; lastActivityAt: string; at: string };

export const threadArchived = () => badRequest('THREAD_ARCHIVED', 'Operation is not allowed on an archived thread');
export const threadAlreadyCreated = () => badRequest('THREAD_ALREADY_CREATED', 'A thread has already been created for this message');
const notAPost = () => invalidForm([{ path: 'applied_tags', message: 'Only posts in forum and media channels have tags' }]);
export const threadLocked = () => new DomainError('forbidden', 'THREAD_LOCKED', 'Thread is locked');

/**
 * A thread's flags are PINNED or none; only a forum's post is pinned, and only while no other post of the forum is
 * (MANAGE_THREADS, which pinning takes, is checked with the other fields).
 */
function requirePinnable(thread: ThreadData, flags: number, pinnedPostId: string | null): void {
  if (flags & ~ChannelFlag.PINNED) throw invalidForm([{ path: 'flags', message: 'A thread’s only flag is PINNED (2)' }]);
  if (!(flags & ChannelFlag.PINNED)) return;
  if (thread.applied_tags === undefined) throw invalidForm([{ path: 'flags', message: 'Only posts in forum and media channels are pinned' }]);
  if (pinnedPostId !== null && pinnedPostId !== thread.id) throw maxPinnedPosts();
}

/** The participant's permissions in the thread, by the one permission algorithm. */
export function permissionsIn(state: ThreadState, who: Participant): bigint {
  const thread = state.thread!;
  return threadPermissions(who.parentPermissions, {
    private: thread.type === ThreadType.PRIVATE_THREAD,
    locked: thread.locked,
    member: state.members.has(who.id),
  });
}

/** The user's permissions in a thread of the guild, from theirs in its parent (0 once the parent is gone). */
export function threadPermissionsOf(guild: GuildState, thread: ThreadState, userId: string): bigint {
  const parent = guild.channels.get(thread.thread!.parent_id);
  return parent ? permissionsIn(thread, { id: userId, parentPermissions: channelPermissions(guild, userId, parent) }) : 0n;
}

/** The thread and the actor's permissions in it; a thread the actor cannot see is unknown. */
function requireVisibleThread(state: ThreadState, actor: Participant): { thread: ThreadData; permissions: bigint } {
  if (state.status !== 'active') throw unknownChannel();
  const permissions = permissionsIn(state, actor);
  if (!hasPermission(permissions, Permission.VIEW_CHANNEL)) throw unknownChannel();
  return { thread: state.thread!, permissions };
}

const memberAdded = (thread: ThreadData, userId: string, at: string, count: number): ThreadMemberAdded => ({
  type: 'ThreadMemberAdded',
  data: { guildId: thread.guild_id, threadId: thread.id, parentId: thread.parent_id, userId, joinTimestamp: at, memberCount: count },
});

const deciders = {
  CreateThread(command: Extract<ThreadCommand, { type: 'CreateThread' }>, state: ThreadState): ThreadEvent[] {
    if (state.status !== 'none') throw threadAlreadyCreated();
    const { thread, actor } = command;
    const types = THREAD_PARENTS[command.parentType];
    if (!types) throw badRequest('CANNOT_EXECUTE_ON_CHANNEL_TYPE', 'Cannot execute action on this channel type');
    if (!types.includes(thread.type) || (command.fromMessage && thread.type === ThreadType.PRIVATE_THREAD)) {
      throw invalidForm([{ path: 'type', message: `Threads of type ${thread.type} cannot be created here` }]);
    }
    if (isForum(command.parentType)) {
      // A post opens with its first message: it takes what sending one in the forum would.
      if (command.fromMessage) throw cannotSendInForum();
      requirePermission(actor.parentPermissions, Permission.SEND_MESSAGES);
      requireAppliedTags(thread.applied_tags ?? [], [], command.forumTags ?? [], actor.parentPermissions);
      if ((command.forumFlags ?? 0) & ChannelFlag.REQUIRE_TAG && !thread.applied_tags?.length) throw tagRequired();
    } else {
      if (thread.applied_tags !== undefined) throw notAPost();
      requirePermission(
        actor.parentPermissions,
        thread.type === ThreadType.PRIVATE_THREAD ? Permission.CREATE_PRIVATE_THREADS : Permission.CREATE_PUBLIC_THREADS,
      );
    }
    const created: ThreadCreated = { type: 'ThreadCreated', data: { guildId: thread.guild_id, thread, fromMessage: command.fromMessage } };
    if (command.byWebhook) return [{ ...created, data: { ...created.data, byWebhook: true } }];
    return [created, memberAdded(thread, actor.id, thread.create_timestamp, 1)];
  },

  UpdateThread(command: Extract<ThreadCommand, { type: 'UpdateThread' }>, state: ThreadState): ThreadEvent[] {
    const { thread, permissions } = requireVisibleThread(state, command.actor);
    const { fields } = command;
    const manages = hasPermission(permissions, Permission.MANAGE_THREADS);
    if (fields.invitable !== undefined && thread.type !== ThreadType.PRIVATE_THREAD) {
      throw invalidForm([{ path: 'invitable', message: 'Only private threads are invitable' }]);
    }
    if (fields.applied_tags !== undefined) {
      if (thread.applied_tags === undefined) throw notAPost();
      requireAppliedTags(fields.applied_tags, thread.applied_tags, command.forumTags ?? [], permissions);
    }
    if (fields.flags !== undefined) requirePinnable(thread, fields.flags, command.pinnedPostId ?? null);
    // An archived thread changes only by being unarchived (other fields may change along with it).
    if (thread.archived && fields.archived !== false) throw threadArchived();
    if (thread.locked && !manages) throw threadLocked();
    const next: ThreadFields & { archive_timestamp?: string } = { ...fields };
    const changes = diff({ ...thread, flags: thread.flags ?? 0 }, next);
    if (changes.length === 0) return [];
    const isOwner = thread.owner_id === command.actor.id;
    for (const { key, new_value } of changes) {
      if (manages) break;
      // Unarchiving an open thread takes only what a message would; the owner may rename, archive and re-time it.
      if (key === 'archived' && new_value === false) requirePermission(permissions, Permission.SEND_MESSAGES);
      else if (!(isOwner && ['name', 'archived', 'auto_archive_duration', 'applied_tags'].includes(key))) throw missingPermissions();
    }
    if (changes.some((c) => c.key === 'archived')) changes.push({ key: 'archive_timestamp', old_value: thread.archive_timestamp, new_value: command.at });
    return [{ type: 'ThreadUpdated', data: { guildId: thread.guild_id, threadId: thread.id, parentId: thread.parent_id, changes } }];
  },

  DeleteThread(command: Extract<ThreadCommand, { type: 'DeleteThread' }>, state: ThreadState): ThreadEvent[] {
    const { thread, permissions } = requireVisibleThread(state, command.actor);
    requirePermission(permissions, Permission.MANAGE_THREADS);
    return [{ type: 'ThreadDeleted', data: { guildId: thread.guild_id, thread } }];
  },

  DeleteWithParent(_command: Extract<ThreadCommand, { type: 'DeleteWithParent' }>, state: ThreadState): ThreadEvent[] {
    if (state.status !== 'active' || !state.thread) return [];
    return [{ type: 'ThreadDeleted', data: { guildId: state.thread.guild_id, thread: state.thread, withParent: true } }];
  },

  AddThreadMember(command: Extract<ThreadCommand, { type: 'AddThreadMember' }>, state: ThreadState): ThreadEvent[] {
    const { thread, permissions } = requireVisibleThread(state, command.actor);
    if (thread.archived) throw threadArchived();
    const target = command.target;
    if (!target) throw unknownMember();
    if (state.members.has(target.id)) return [];
    if (target.id !== command.actor.id) {
      // Adding someone else takes being able to talk in the thread, and in a private one that is not invitable, managing threads.
      requirePermission(permissions, Permission.SEND_MESSAGES);
      if (thread.type === ThreadType.PRIVATE_THREAD && thread.invitable === false) requirePermission(permissions, Permission.MANAGE_THREADS);
      if (!hasPermission(target.parentPermissions, Permission.VIEW_CHANNEL)) throw new DomainError('forbidden', 'MISSING_ACCESS', 'Missing Access');
    }
    return [memberAdded(thread, target.id, command.at, state.members.size + 1)];
  },

  RemoveThreadMember(command: Extract<ThreadCommand, { type: 'RemoveThreadMember' }>, state: ThreadState): ThreadEvent[] {
    const { thread, permissions } = requireVisibleThread(state, command.actor);
    if (thread.archived) throw threadArchived();
    if (command.userId !== command.actor.id) {
      const ownsPrivate = thread.type === ThreadType.PRIVATE_THREAD && thread.owner_id === command.actor.id;
      if (!ownsPrivate) requirePermission(permissions, Permission.MANAGE_THREADS);
    }
    if (!state.members.has(command.userId)) return [];
    const data = { guildId: thread.guild_id, threadId: thread.id, parentId: thread.parent_id, userId: command.userId, memberCount: state.members.size - 1 };
    return [{ type: 'ThreadMemberRemoved', data }];
  },

  ThreadMessageSent(command: Extract<ThreadCommand, { type: 'ThreadMessageSent' }>, state: ThreadState): ThreadEvent[] {
    if (state.status !== 'active') throw unknownChannel();
    const thread = command.author ? requireVisibleThread(state, command.author).thread : state.thread!;
    const events: ThreadEvent[] = [];
    if (thread.archived) {
      if (!command.author && thread.locked) throw threadArchived();
      const changes = diff(thread, { archived: false, archive_timestamp: command.at });
      events.push({ type: 'ThreadUpdated', data: { guildId: thread.guild_id, threadId: thread.id, parentId: thread.parent_id, changes, byMessage: true } });
    }
    let count = state.members.size;
    const joining = [...(command.author ? [command.author] : []), ...command.mentioned].filter(
      (who, i, all) =>
        !state.members.has(who.id) && all.findIndex((w) => w.id === who.id) === i && hasPermission(permissionsIn(state, who), Permission.VIEW_CHANNEL),
    );
    for (const who of joining) events.push(memberAdded(thread, who.id, command.at, ++count));
    return events;
  },

  /**
   * Archives a thread idle for its auto_archive_duration, locked or not. A thread archived or deleted meanwhile, or
   * active again (a message, an unarchiving or a longer duration since the check was planned), is left as it is.
   */
  ArchiveIdleThread(command: Extract<ThreadCommand, { type: 'ArchiveIdleThread' }>, state: ThreadState): ThreadEvent[] {
    const thread = state.thread;
    if (state.status !== 'active' || !thread || thread.archived) return [];
    if (Date.parse(command.at) < idleAt(thread, command.lastActivityAt)) return [];
    return [{ type: 'ThreadArchived', data: { guildId: thread.guild_id, threadId: thread.id, parentId: thread.parent_id, archiveTimestamp: command.at } }];
  },
};

/** When a thread falls idle: its auto_archive_duration after its latest activity (a message, its creation or unarchiving). */
function idleAt(thread: ThreadData, lastActivityAt: string): number {
  return Math.max(Date.parse(thread.archive_timestamp), Date.parse(lastActivityAt)) + thread.auto_archive_duration * 60_000;
}

const evolvers = {
  ThreadCreated: (_state: ThreadState, event: ThreadCreated): ThreadState => ({ status: 'active', thread: event.data.thread, members: new Map() }),
  ThreadUpdated: (state: ThreadState, event: ThreadUpdated): ThreadState => ({ ...state, thread: applyChanges(state.thread!, event.data.changes) }),
  ThreadArchived: (state: ThreadState, event: ThreadArchived): ThreadState => ({
    ...state,
    thread: { ...state.thread!, archived: true, archive_timestamp: event.data.archiveTimestamp },
  }),
  ThreadDeleted: (state: ThreadState): ThreadState => ({ ...state, status: 'deleted' }),
  ThreadMemberAdded: (state: ThreadState, event: ThreadMemberAdded): ThreadState => ({
    ...state,
    members: new Map(state.members).set(event.data.userId, event.data.joinTimestamp),
  }),
  ThreadMemberRemoved(state: ThreadState, event: ThreadMemberRemoved): ThreadState {
    const members = new Map(state.members);
    members.delete(event.data.userId);
    return { ...state, members };
  },
};

type Deciders = { [K in ThreadCommand['type']]: (command: Extract<ThreadCommand, { type: K }>, state: ThreadState) => ThreadEvent[] };
type Evolvers = { [K in ThreadEvent['type']]: (state: ThreadState, event: Extract<ThreadEvent, { type: K }>) => ThreadState };

export const threadDecider: Decider<ThreadState, ThreadCommand, ThreadEvent> = {
  initialState: () => ({ status: 'none', thread: null, members: new Map() }),
  decide: (command, state) => ((deciders as Deciders)[command.type] as (c: ThreadCommand, s: ThreadState) => ThreadEvent[])(command, state),
  evolve: (state, event) => ((evolvers as Evolvers)[event.type] as (s: ThreadState, e: ThreadEvent) => ThreadState)(state, event),
};
