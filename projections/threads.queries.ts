// Reads of the threads projection's collections: threads and their members.
import { ChannelFlag } from '../domain/forum.js';
import { AUTO_ARCHIVE_DURATIONS } from '../domain/thread.js';
import type { ReadStore } from '../ports/readStore.js';
import { THREADS, THREAD_MEMBERS } from './collections.js';
import { type PageQuery, findPage } from './paging.js';
import { type ThreadDoc, type ThreadMemberDoc, threadMemberKey } from './threads.js';

export const threadById = (read: Pick<ReadStore, 'findOne'>, threadId: string) => read.findOne<ThreadDoc>(THREADS, { _id: threadId });

export const threadsByIds = (read: Pick<ReadStore, 'find'>, threadIds: string[]) => read.find<ThreadDoc>(THREADS, { _id: { $in: threadIds } });

export const threadMemberOf = (read: Pick<ReadStore, 'findOne'>, threadId: string, userId: string) =>
  read.findOne<ThreadMemberDoc>(THREAD_MEMBERS, { _id: threadMemberKey(threadId, userId) });

/** One page of a thread's members in user id order. */
export const threadMembersPage = (read: Pick<ReadStore, 'find'>, threadId: string, page: PageQuery) =>
  findPage<ThreadMemberDoc>(read, THREAD_MEMBERS, { thread_id: threadId }, 'user_id', page);

/** A guild's threads that are not archived. */
export const activeThreadsOfGuild = (read: Pick<ReadStore, 'find'>, guildId: string) => read.find<ThreadDoc>(THREADS, { guild_id: guildId, archived: false });

/** The forum's pinned post (PINNED is the only flag a thread carries), archived or not. */
export const pinnedPostOf = (read: Pick<ReadStore, 'findOne'>, forumId: string) =>
  read.findOne<ThreadDoc>(THREADS, { parent_id: forumId, flags: ChannelFlag.PINNED });

/** Every thread of a channel, archived or not. */
export const threadsOfParent = (read: Pick<ReadStore, 'find'>, parentId: string) => read.find<ThreadDoc>(THREADS, { parent_id: parentId });

/** The threads of a guild a user has joined. */
export const threadMembershipsOf = (read: Pick<ReadStore, 'find'>, guildId: string, userId: string) =>
  read.find<ThreadMemberDoc>(THREAD_MEMBERS, { guild_id: guildId, user_id: userId });

/** A channel's archived threads of these types, most recently archived first, archived before `before` (ISO 8601). */
export const archivedThreadsOf = (read: Pick<ReadStore, 'find'>, parentId: string, types: number[], before: string | undefined, limit: number) =>
  read.find<ThreadDoc>(
    THREADS,
    { parent_id: parentId, archived: true, type: { $in: types }, ...(before ? { archive_timestamp: { $lt: before } } : {}) },
    { sort: { archive_timestamp: -1 }, limit },
  );

/**
 * Up to `limit` threads idle at `now` (ms): unarchived, with no activity for their auto_archive_duration, the longest
 * overdue first. One range of the idle index per duration, so a sweep reads only what is due.
 */
export async function idleThreads(read: Pick<ReadStore, 'find'>, now: number, limit: number): Promise<ThreadDoc[]> {
  const overdue = (doc: ThreadDoc) => now - Date.parse(doc.last_activity_at) - doc.auto_archive_duration * 60_000;
  const due = await Promise.all(
    AUTO_ARCHIVE_DURATIONS.map((minutes) =>
      read.find<ThreadDoc>(
        THREADS,
        { archived: false, auto_archive_duration: minutes, last_activity_at: { $lte: new Date(now - minutes * 60_000).toISOString() } },
        { sort: { last_activity_at: 1 }, limit },
      ),
    ),
  );
  return due
    .flat()
    .sort((a, b) => overdue(b) - overdue(a))
    .slice(0, limit);
}
