// What the thread, forum and webhook routes share: a thread's fields as a body gives them, a post's tags, a thread
// presented, and POST /channels/:channelId/threads, answered for forums by http/routes/forum.ts and for other channels
// by http/routes/threads.ts, which documents it for both.
import { loadThread } from '../../commands/access.js';
import { MAX_APPLIED_TAGS } from '../../domain/forum.js';
import { unknownChannel } from '../../domain/guildState.js';
import { AUTO_ARCHIVE_DURATIONS } from '../../domain/thread.js';
import { threadById } from '../../projections/threads.queries.js';
import { NEW_THREAD_COUNTS, threadDocObject, threadObject } from '../../presenters/threads.js';
import type { HttpDeps } from '../context.js';
import { Thread } from '../../contracts/threads.js';
import type { Operation } from '../route.js';
import { nameSchema, snowflakeSchema } from '../validation.js';

export const threadFields = {
  name: nameSchema(1, 100),
  auto_archive_duration: { type: 'integer', enum: AUTO_ARCHIVE_DURATIONS },
  // The widely used API takes null for no slowmode (discord.py's create_thread sends it when none is given).
  rate_limit_per_user: { type: ['integer', 'null'], minimum: 0, maximum: 21600 },
} as const;

/** The ids of the forum's tags a post carries (domain/forum.ts). */
export const appliedTagsSchema = { type: 'array', items: snowflakeSchema, maxItems: MAX_APPLIED_TAGS } as const;

/** The thread as the read model shows it once settled; the aggregate's own fields while the projection catches up. */
export async function presentThread(deps: HttpDeps, threadId: string) {
  const doc = await threadById(deps.readStore, threadId);
  if (doc) return threadDocObject(doc);
  const thread = await loadThread(deps, threadId);
  if (!thread.thread) throw unknownChannel();
  return threadObject(thread.thread, NEW_THREAD_COUNTS);
}

/** A route's answer of a thread. */
export const threadAnswer = { description: 'The thread.', schema: Thread };

export const startThreadOperation = {
  method: 'POST',
  path: '/channels/:channelId/threads',
  summary: 'Start a thread without a message',
  responses: { 201: threadAnswer },
  errors: ['UNKNOWN_CHANNEL', 'MISSING_PERMISSIONS', 'CANNOT_EXECUTE_ON_CHANNEL_TYPE', 'CANNOT_SEND_EMPTY_MESSAGE', 'TAG_REQUIRED', 'SLOWMODE_RATE_LIMITED'],
} as const satisfies Operation;
