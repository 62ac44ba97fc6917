// Thread channel and thread member objects, for REST answers and THREAD_* dispatches alike.
import type { APIThreadChannel, APIThreadMember, ThreadChannelType, ThreadMemberFlags } from 'discord-api-types/v10';
import type { ThreadData } from '../domain/thread.js';
import type { ThreadDoc, ThreadMemberDoc } from '../projections/threads.js';
import { NO_FLAGS } from './flags.js';
import type { MemberObject } from './members.js';
import { apiTimestamp } from './timestamps.js';

/** A thread's counts, as the read model keeps them; a thread just created has none yet. */
export type ThreadCounts = Pick<ThreadDoc, 'message_count' | 'total_message_sent' | 'member_count' | 'last_message_id'>;
export const NEW_THREAD_COUNTS: ThreadCounts = { message_count: 0, total_message_sent: 0, member_count: 0, last_message_id: null };

/**
 * A thread channel object: what every thread has is always given, where the API's type leaves most of it optional. The
 * session's own membership (`member`) is THREAD_CREATE's to add, as a ThreadMemberObject.
 */
export type ThreadObject = Omit<APIThreadChannel, 'member'> &
  Required<
    Pick<
      APIThreadChannel,
      'guild_id' | 'last_message_id' | 'rate_limit_per_user' | 'message_count' | 'member_count' | 'total_message_sent' | 'thread_metadata' | 'flags'
    >
  > & {
    parent_id: string;
    owner_id: string;
  };

/** A thread channel object: thread_metadata gathered from the thread's flat fields. */
export function threadObject(thread: ThreadData, counts: ThreadCounts): ThreadObject {
  return {
    id: thread.id,
    type: thread.type as ThreadChannelType,
    guild_id: thread.guild_id,
    parent_id: thread.parent_id,
    owner_id: thread.owner_id,
    name: thread.name,
    last_message_id: counts.last_message_id,
    rate_limit_per_user: thread.rate_limit_per_user,
    message_count: counts.message_count,
    member_count: counts.member_count,
    total_message_sent: counts.total_message_sent,
    thread_metadata: {
      archived: thread.archived,
      auto_archive_duration: thread.auto_archive_duration as 60 | 1440 | 4320 | 10080,
      archive_timestamp: apiTimestamp(thread.archive_timestamp),
      locked: thread.locked,
      ...(thread.invitable !== undefined ? { invitable: thread.invitable } : {}),
      create_timestamp: apiTimestamp(thread.create_timestamp),
    },
    ...(thread.applied_tags ? { applied_tags: thread.applied_tags } : {}),
    flags: thread.flags ?? NO_FLAGS,
  };
}

/** The read model's thread document as the thread object. */
export function threadDocObject(doc: ThreadDoc): ThreadObject {
  const { _id, ...fields } = doc;
  return threadObject({ id: _id, ...fields }, doc);
}

/** A thread member object: its thread and user always named, and its guild member as memberObject gives it. */
export type ThreadMemberObject = APIThreadMember & Required<Pick<APIThreadMember, 'id' | 'user_id'>> & { member?: MemberObject };

/** A thread member object; `member` (the guild member) only where the caller asked for it. */
export function threadMemberObject(doc: Pick<ThreadMemberDoc, 'thread_id' | 'user_id' | 'join_timestamp'>, member?: MemberObject): ThreadMemberObject {
  return {
    id: doc.thread_id,
    user_id: doc.user_id,
    join_timestamp: apiTimestamp(doc.join_timestamp),
    flags: NO_FLAGS as ThreadMemberFlags,
    ...(member ? { member } : {}),
  };
}
