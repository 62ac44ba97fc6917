// Projection spec of the threads read model's idle index: a thread's latest activity (its creation, last message or
// unarchiving), and which threads idleThreads finds due at a time, by their auto_archive_duration, most overdue first.
import { describe, expect, it } from 'vitest';
import type { ThreadData, ThreadEvent } from '../../domain/thread.js';
import { THREADS } from '../../projections/collections.js';
import { threadsProjection } from '../../projections/threads.js';
import { idleThreads } from '../../projections/threads.queries.js';
import { type HistoryEvent, project } from './support.js';

const T0 = Date.parse('2025-01-01T00:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

const created = (id: string, auto_archive_duration: number): ThreadEvent => {
  const thread: ThreadData = {
    id,
    type: 11,
    guild_id: 'g',
    parent_id: 'c',
    owner_id: 'u',
    name: id,
    rate_limit_per_user: 0,
    archived: false,
    auto_archive_duration,
    archive_timestamp: at(0),
    locked: false,
    create_timestamp: at(0),
  };
  return { type: 'ThreadCreated', data: { guildId: 'g', thread, fromMessage: false } };
};
const archiving = (id: string, archived: boolean, minutes: number): ThreadEvent => ({
  type: 'ThreadUpdated',
  data: {
    guildId: 'g',
    threadId: id,
    parentId: 'c',
    changes: [
      { key: 'archived', old_value: !archived, new_value: archived },
      { key: 'archive_timestamp', old_value: at(0), new_value: at(minutes) },
    ],
  },
});
const message = (threadId: string, minutes: number) =>
  ({
    type: 'MessageCreated',
    data: { messageId: `m${minutes}`, channelId: threadId, guildId: 'g', authorId: 'u', message: { timestamp: at(minutes) } },
  }) as unknown as HistoryEvent;

const history: HistoryEvent[] = [
  created('quiet', 60),
  created('daily', 1440),
  created('talked', 60),
  message('talked', 30),
  created('reopened', 60),
  archiving('reopened', true, 10),
  archiving('reopened', false, 20),
  created('closed', 60),
  archiving('closed', true, 5),
  created('auto', 60),
  { type: 'ThreadArchived', data: { guildId: 'g', threadId: 'auto', parentId: 'c', archiveTimestamp: at(61) } },
];

describe('threads projection: the idle index', () => {
  it('keeps each thread’s latest activity and finds those idle for their duration, most overdue first', async () => {
    const store = await project([threadsProjection], history);
    try {
      const activity = await store.find(THREADS, {}, { sort: { _id: 1 } });
      expect(Object.fromEntries(activity.map((doc) => [doc._id, doc.last_activity_at]))).toEqual({
        auto: at(61),
        closed: at(5),
        daily: at(0),
        quiet: at(0),
        reopened: at(20),
        talked: at(30),
      });
      const due = async (minutes: number) => (await idleThreads(store, T0 + minutes * 60_000, 10)).map((doc) => doc._id);
      expect(await due(59)).toEqual([]);
      expect(await due(60)).toEqual(['quiet']);
      expect(await due(90)).toEqual(['quiet', 'reopened', 'talked']);
      expect(await due(1440)).toEqual(['quiet', 'reopened', 'talked', 'daily']);
      expect((await idleThreads(store, T0 + 90 * 60_000, 2)).map((doc) => doc._id)).toEqual(['quiet', 'reopened']);
    } finally {
      await store.close();
    }
  });
});
