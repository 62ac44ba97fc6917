// Read model of threads: one document per thread with its counts (messages now and ever sent, members) and the time of
// its latest activity (its last message, creation or unarchiving: what auto-archiving counts from), and one per thread
// member. Counts follow the messages sent in the thread's channel id; an update naming another channel matches no
// thread document and writes nothing.
import type { ThreadData } from '../domain/thread.js';
import type { WriteOp } from '../ports/readStore.js';
import { changeSet } from './changes.js';
import { THREADS, THREAD_MEMBERS } from './collections.js';
import { projection } from './projection.js';

export interface ThreadDoc extends Omit<ThreadData, 'id'> {
  _id: string;
  message_count: number;
  total_message_sent: number;
  member_count: number;
  last_message_id: string | null;
  /** ISO 8601: the latest of its last message's time and its archive_timestamp. */
  last_activity_at: string;
  [key: string]: unknown;
}

export interface ThreadMemberDoc {
  _id: string;
  thread_id: string;
  user_id: string;
  guild_id: string;
  parent_id: string;
  join_timestamp: string;
  [key: string]: unknown;
}

export const threadMemberKey = (threadId: string, userId: string) => `${threadId}:${userId}`;

const counts = (threadId: string, update: { $inc: Record<string, number>; $set?: Record<string, unknown> }): WriteOp => ({
  updateOne: { collection: THREADS, filter: { _id: threadId }, update },
});

/** A forum post's first message has the post's id: the widely used API's message_count leaves it out. */
const isStarter = (message: { messageId: string; channelId: string }) => message.messageId === message.channelId;

export const threadsProjection = projection({
  name: 'threads',
  handles: [
    'ThreadCreated',
    'ThreadUpdated',
    'ThreadArchived',
    'ThreadDeleted',
    'ThreadMemberAdded',
    'ThreadMemberRemoved',
    'MessageCreated',
    'MessageDeleted',
    'MessagesBulkDeleted',
    'ChannelDeleted',
    'GuildDeleted',
  ],
  collections: [THREADS, THREAD_MEMBERS],
  indexes: [
    { collection: THREADS, keys: { guild_id: 1 } },
    { collection: THREADS, keys: { parent_id: 1, archived: 1, archive_timestamp: -1 } },
    { collection: THREADS, keys: { archived: 1, auto_archive_duration: 1, last_activity_at: 1 } },
    { collection: THREAD_MEMBERS, keys: { thread_id: 1, user_id: 1 } },
    { collection: THREAD_MEMBERS, keys: { guild_id: 1, user_id: 1 } },
    { collection: THREAD_MEMBERS, keys: { parent_id: 1 } },
  ],
  project(e) {
    switch (e.type) {
      case 'ThreadCreated': {
        const { id, ...thread } = e.data.thread;
        const counts = { message_count: 0, total_message_sent: 0, member_count: 0, last_message_id: null };
        const doc: ThreadDoc = { _id: id, ...thread, ...counts, last_activity_at: thread.create_timestamp };
        return [{ replaceOne: { collection: THREADS, filter: { _id: id }, replacement: doc, upsert: true } }];
      }
      case 'ThreadUpdated': {
        const set = changeSet(e.data.changes);
        // A new archive_timestamp is an archiving (the thread leaves the idle index) or an unarchiving (it is active now).
        if (typeof set.archive_timestamp === 'string') set.last_activity_at = set.archive_timestamp;
        return [{ updateOne: { collection: THREADS, filter: { _id: e.data.threadId }, update: { $set: set } } }];
      }
      case 'ThreadArchived': {
        const { threadId, archiveTimestamp } = e.data;
        const set = { archived: true, archive_timestamp: archiveTimestamp, last_activity_at: archiveTimestamp };
        return [{ updateOne: { collection: THREADS, filter: { _id: threadId }, update: { $set: set } } }];
      }
      case 'ThreadDeleted':
        return [
          { deleteOne: { collection: THREADS, filter: { _id: e.data.thread.id } } },
          { deleteMany: { collection: THREAD_MEMBERS, filter: { thread_id: e.data.thread.id } } },
        ];
      case 'ThreadMemberAdded': {
        const { threadId, userId, guildId, parentId, joinTimestamp, memberCount } = e.data;
        const doc: ThreadMemberDoc = {
          _id: threadMemberKey(threadId, userId),
          thread_id: threadId,
          user_id: userId,
          guild_id: guildId,
          parent_id: parentId,
          join_timestamp: joinTimestamp,
        };
        return [
          { replaceOne: { collection: THREAD_MEMBERS, filter: { _id: doc._id }, replacement: doc, upsert: true } },
          { updateOne: { collection: THREADS, filter: { _id: threadId }, update: { $set: { member_count: memberCount } } } },
        ];
      }
      case 'ThreadMemberRemoved': {
        const { threadId, userId, memberCount } = e.data;
        return [
          { deleteOne: { collection: THREAD_MEMBERS, filter: { _id: threadMemberKey(threadId, userId) } } },
          { updateOne: { collection: THREADS, filter: { _id: threadId }, update: { $set: { member_count: memberCount } } } },
        ];
      }
      case 'MessageCreated':
        // Threads are guild channels: a DM's message has no thread to count it.
        return e.data.guildId
          ? [
              counts(e.data.channelId, {
                $inc: { message_count: isStarter(e.data) ? 0 : 1, total_message_sent: 1 },
                $set: { last_message_id: e.data.messageId, last_activity_at: e.data.message.timestamp },
              }),
            ]
          : [];
      case 'MessageDeleted':
        return e.data.guildId && !isStarter(e.data) ? [counts(e.data.channelId, { $inc: { message_count: -1 } })] : [];
      case 'MessagesBulkDeleted': {
        const counted = e.data.messageIds.filter((messageId) => !isStarter({ messageId, channelId: e.data.channelId }));
        return e.data.guildId ? [counts(e.data.channelId, { $inc: { message_count: -counted.length } })] : [];
      }
      case 'ChannelDeleted': {
        const parent = { parent_id: e.data.channel.id };
        return [{ deleteMany: { collection: THREADS, filter: parent } }, { deleteMany: { collection: THREAD_MEMBERS, filter: parent } }];
      }
      case 'GuildDeleted': {
        const guild = { guild_id: e.data.guildId };
        return [{ deleteMany: { collection: THREADS, filter: guild } }, { deleteMany: { collection: THREAD_MEMBERS, filter: guild } }];
      }
    }
  },
});
