// Thread channels and thread members (presenters/threads.ts), for REST answers and THREAD_* dispatches alike.
// developers/resources/channel.mdx, "Thread Metadata Structure" and "Thread Member Structure".
import { Member } from './members.js';
import { answeredTimestamp, boolean, integer, list, nullableId, object, snowflakeSchema, snowflakes, string } from './schema.js';

export const Thread = object(
  'A thread channel (presenters/threads.ts): public (11), private (12) or announcement (10), under its parent.',
  {
    id: snowflakeSchema,
    type: integer,
    guild_id: snowflakeSchema,
    parent_id: snowflakeSchema,
    owner_id: snowflakeSchema,
    name: string,
    // The thread's newest message, null until one is sent: the widely used API sends it on every thread.
    last_message_id: nullableId,
    rate_limit_per_user: integer,
    message_count: integer,
    member_count: integer,
    total_message_sent: integer,
    thread_metadata: object(
      'A thread’s state.',
      { archived: boolean, auto_archive_duration: integer, archive_timestamp: answeredTimestamp, locked: boolean },
      { invitable: boolean, create_timestamp: answeredTimestamp },
    ),
    flags: integer,
  },
  { applied_tags: snowflakes },
);

export const ThreadMember = object(
  'A member of a thread; `member`, its guild member, where asked for.',
  { id: snowflakeSchema, user_id: snowflakeSchema, join_timestamp: answeredTimestamp, flags: integer },
  { member: Member },
);

export const ThreadList = object(
  'Threads, with the caller’s memberships of them; `has_more` in the archived lists.',
  { threads: list(Thread), members: list(ThreadMember) },
  { has_more: boolean },
);
