// Thread routes: starting a thread from a message or on its own, a thread as a channel (fetch, change, delete: the
// /channels/:channelId entries answer threads and pass other ids on to the guild channel's routes), and its members.
// Messages, reactions, pins and typing in a thread are the message routes', which resolve a thread as a text channel.
import { ThreadList as ThreadListObject, ThreadMember } from '../../contracts/threads.js';
import { list } from '../../contracts/schema.js';
import { loadThread } from '../../commands/access.js';
import {
  type ThreadList,
  type ThreadMemberView,
  addThreadMember,
  createThread,
  deleteThread,
  readActiveThreads,
  readArchivedThreads,
  readJoinedArchivedThreads,
  readThread,
  readThreadMember,
  readThreadMembers,
  removeThreadMember,
  updateThread,
} from '../../commands/threads.js';
import { memberObject } from '../../presenters/members.js';
import { threadDocObject, threadMemberObject } from '../../presenters/threads.js';
import { actorMeta } from '../actor.js';
import { requireAuth } from '../auth.js';
import type { HttpDeps } from '../context.js';
import { channelParams, guildParams } from '../params.js';
import { passOn, route } from '../route.js';
import { deleteChannelOperation, getChannelOperation, updateChannelOperation } from '../shared/channels.js';
import { senderOf } from '../shared/messages.js';
import { appliedTagsSchema, presentThread, startThreadOperation, threadAnswer, threadFields } from '../shared/threads.js';
import { type FromSchema, MAX_INT32, pageLimit, parseBody, snowflakeSchema, timestampSchema } from '../validation.js';

/** discord.js names the type it expects (11, or 10 in an announcement channel); a private thread is refused by the rules. */
export const startFromMessageSchema = {
  type: 'object',
  properties: { ...threadFields, type: { type: 'integer', enum: [10, 11, 12] } },
  required: ['name'],
  additionalProperties: false,
} as const;
export const startThreadSchema = {
  type: 'object',
  properties: { ...threadFields, type: { type: 'integer', enum: [10, 11, 12] }, invitable: { type: 'boolean' } },
  required: ['name'],
  additionalProperties: false,
} as const;
export const updateThreadSchema = {
  type: 'object',
  properties: {
    ...threadFields,
    archived: { type: 'boolean' },
    locked: { type: 'boolean' },
    invitable: { type: 'boolean' },
    applied_tags: appliedTagsSchema,
    // PINNED (2) on a forum's post, by MANAGE_THREADS holders (domain/thread.ts).
    flags: { type: 'integer', minimum: 0, maximum: MAX_INT32 },
  },
  additionalProperties: false,
} as const;

const messageParams = {
  type: 'object',
  properties: { channelId: snowflakeSchema, messageId: snowflakeSchema },
  required: ['channelId', 'messageId'],
} as const;
const memberParams = {
  type: 'object',
  properties: { channelId: snowflakeSchema, userId: snowflakeSchema },
  required: ['channelId', 'userId'],
} as const;
const withMemberQuery = { type: 'object', properties: { with_member: { type: 'boolean', default: false } } } as const;
const membersQuery = {
  type: 'object',
  properties: { with_member: { type: 'boolean', default: false }, after: snowflakeSchema, limit: pageLimit(100, 100) },
} as const;

const presentMember = ({ doc, member }: ThreadMemberView) => threadMemberObject(doc, member && memberObject(member.doc, member.user));

const base = { tag: 'Threads', auth: 'any' } as const;

export const startThreadFromMessageRoute = route({
  ...base,
  method: 'POST',
  path: '/channels/:channelId/messages/:messageId/threads',
  summary: 'Start a thread from a message',
  description:
    'A public thread (an announcement thread in an announcement channel) with the message’s id; needs CREATE_PUBLIC_THREADS and READ_MESSAGE_HISTORY. The creator joins it. In slowmode a member starts one thread per `rate_limit_per_user` seconds in the channel, counted apart from their messages (429 SLOWMODE_RATE_LIMITED with `retry_after`); bots and holders of MANAGE_MESSAGES or MANAGE_CHANNELS are exempt.',
  params: messageParams,
  body: startFromMessageSchema,
  audit: 'THREAD_CREATE',
  responses: { 201: threadAnswer },
  errors: ['UNKNOWN_CHANNEL', 'UNKNOWN_MESSAGE', 'MISSING_PERMISSIONS', 'THREAD_ALREADY_CREATED', 'CANNOT_EXECUTE_ON_CHANNEL_TYPE', 'SLOWMODE_RATE_LIMITED'],
  async handle(ctx, { params: { channelId, messageId }, body }, deps) {
    const threadId = await createThread(deps, actorMeta(ctx), channelId, body, messageId, senderOf(ctx).bot);
    return presentThread(deps, threadId);
  },
});

export const startThreadRoute = route({
  ...base,
  ...startThreadOperation,
  description:
    'Private (12) unless `type` says otherwise, as the widely used API’s v9; public threads need CREATE_PUBLIC_THREADS, private ones CREATE_PRIVATE_THREADS. The creator joins it. In slowmode a member starts one thread per `rate_limit_per_user` seconds in the channel, counted apart from their messages (429 SLOWMODE_RATE_LIMITED with `retry_after`); bots and holders of MANAGE_MESSAGES or MANAGE_CHANNELS are exempt. In a forum or media channel, a post (http/routes/forum.ts): a public thread with its first `message` (as a send takes it, JSON or multipart; it takes the thread’s id and is answered as the thread’s `message`) and up to 5 of the channel’s tags in `applied_tags` (moderated ones need MANAGE_THREADS); it needs SEND_MESSAGES there, and takes the channel’s `default_thread_rate_limit_per_user` unless it names its own.',
  params: channelParams,
  body: startThreadSchema,
  audit: 'THREAD_CREATE',
  async handle(ctx, { params: { channelId }, body }, deps) {
    const threadId = await createThread(deps, actorMeta(ctx), channelId, body, null, senderOf(ctx).bot);
    return presentThread(deps, threadId);
  },
});

// A thread's /channels/:channelId: answered here, other ids passed on to the guild channel's routes, which document both.
const asChannel = { ...base, tag: 'Channels', params: channelParams } as const;
/** Whether the id names a thread (standing or deleted): other ids are another route's. */
const isThread = async (deps: HttpDeps, channelId: string) => (await loadThread(deps, channelId)).status !== 'none';

export const getThreadRoute = route({
  ...asChannel,
  ...getChannelOperation,
  documentedBy: getChannelOperation,
  async handle(ctx, { params: { channelId } }, deps) {
    if (!(await isThread(deps, channelId))) return passOn;
    await readThread(deps, channelId, requireAuth(ctx).userId);
    return presentThread(deps, channelId);
  },
});

export const updateThreadRoute = route({
  ...asChannel,
  ...updateChannelOperation,
  documentedBy: updateChannelOperation,
  body: updateThreadSchema,
  // Read with the thread's schema once the id is known to be a thread's.
  readsItself: ['body'],
  audit: 'THREAD_UPDATE',
  errors: [...updateChannelOperation.errors, 'THREAD_ARCHIVED', 'THREAD_LOCKED', 'MAX_PINNED_THREADS'],
  async handle(ctx, { params: { channelId } }, deps) {
    if (!(await isThread(deps, channelId))) return passOn;
    const fields: FromSchema<typeof updateThreadSchema> = parseBody(updateThreadSchema, ctx.request.body);
    await updateThread(deps, actorMeta(ctx), channelId, fields);
    return presentThread(deps, channelId);
  },
});

export const deleteThreadRoute = route({
  ...asChannel,
  ...deleteChannelOperation,
  documentedBy: deleteChannelOperation,
  audit: 'THREAD_DELETE',
  async handle(ctx, { params: { channelId } }, deps) {
    if (!(await isThread(deps, channelId))) return passOn;
    const meta = actorMeta(ctx);
    await readThread(deps, channelId, meta.actorId);
    const deleted = await presentThread(deps, channelId);
    await deleteThread(deps, meta, channelId);
    return deleted;
  },
});

const threadMembers = { ...base, params: channelParams } as const;
const added = { 204: { description: 'The user is a member of the thread.' } } as const;
const removed = { 204: { description: 'The user is no longer a member of the thread.' } } as const;
const memberErrors = ['UNKNOWN_CHANNEL', 'UNKNOWN_MEMBER', 'MISSING_PERMISSIONS', 'MISSING_ACCESS', 'THREAD_ARCHIVED'] as const;

export const joinThreadRoute = route({
  ...threadMembers,
  method: 'PUT',
  path: '/channels/:channelId/thread-members/@me',
  summary: 'Join a thread',
  description: 'A thread the caller can see, not archived.',
  responses: added,
  errors: [...memberErrors],
  async handle(ctx, { params: { channelId } }, deps) {
    const meta = actorMeta(ctx);
    await addThreadMember(deps, meta, channelId, meta.actorId);
  },
});

export const leaveThreadRoute = route({
  ...threadMembers,
  method: 'DELETE',
  path: '/channels/:channelId/thread-members/@me',
  summary: 'Leave a thread',
  responses: removed,
  errors: [...memberErrors],
  async handle(ctx, { params: { channelId } }, deps) {
    const meta = actorMeta(ctx);
    await removeThreadMember(deps, meta, channelId, meta.actorId);
  },
});

export const addThreadMemberRoute = route({
  ...threadMembers,
  method: 'PUT',
  path: '/channels/:channelId/thread-members/:userId',
  summary: 'Add a member to a thread',
  description:
    'Needs to be able to send messages in the thread (and MANAGE_THREADS in a private thread that is not invitable); the user must be a guild member who sees the parent channel.',
  params: memberParams,
  responses: added,
  errors: [...memberErrors],
  async handle(ctx, { params: { channelId, userId } }, deps) {
    await addThreadMember(deps, actorMeta(ctx), channelId, userId);
  },
});

export const removeThreadMemberRoute = route({
  ...threadMembers,
  method: 'DELETE',
  path: '/channels/:channelId/thread-members/:userId',
  summary: 'Remove a member from a thread',
  description: 'Needs MANAGE_THREADS, or to be the creator of a private thread.',
  params: memberParams,
  responses: removed,
  errors: [...memberErrors],
  async handle(ctx, { params: { channelId, userId } }, deps) {
    await removeThreadMember(deps, actorMeta(ctx), channelId, userId);
  },
});

export const listThreadMembersRoute = route({
  ...threadMembers,
  method: 'GET',
  path: '/channels/:channelId/thread-members',
  summary: 'List a thread’s members',
  description: 'In user id order after `after`; `with_member` adds each one’s guild member.',
  query: membersQuery,
  responses: { 200: { description: 'The thread members.', schema: list(ThreadMember) } },
  errors: ['UNKNOWN_CHANNEL'],
  async handle(ctx, { params: { channelId }, query }, deps) {
    const page = { after: query.after, limit: query.limit, withMember: query.with_member };
    return (await readThreadMembers(deps, channelId, requireAuth(ctx).userId, page)).map(presentMember);
  },
});

export const getThreadMemberRoute = route({
  ...threadMembers,
  method: 'GET',
  path: '/channels/:channelId/thread-members/:userId',
  summary: 'Get a thread member',
  params: memberParams,
  query: withMemberQuery,
  responses: { 200: { description: 'The thread member.', schema: ThreadMember } },
  errors: ['UNKNOWN_CHANNEL', 'UNKNOWN_MEMBER'],
  async handle(ctx, { params: { channelId, userId }, query }, deps) {
    return presentMember(await readThreadMember(deps, channelId, userId, requireAuth(ctx).userId, query.with_member));
  },
});

const presentList = ({ threads, members, hasMore }: ThreadList) => ({
  threads: threads.map(threadDocObject),
  members: members.map((doc) => threadMemberObject(doc)),
  ...(hasMore === undefined ? {} : { has_more: hasMore }),
});

const threadList = { description: 'The threads, and the caller’s memberships of them.', schema: ThreadListObject };

export const activeThreadsRoute = route({
  ...base,
  method: 'GET',
  path: '/guilds/:guildId/threads/active',
  summary: 'List a guild’s active threads',
  description: 'The threads not archived that the caller can see.',
  params: guildParams,
  responses: { 200: threadList },
  errors: ['UNKNOWN_GUILD'],
  handle: async (ctx, { params: { guildId } }, deps) => presentList(await readActiveThreads(deps, guildId, requireAuth(ctx).userId)),
});

const archivedQuery = { type: 'object', properties: { before: timestampSchema, limit: pageLimit(100, 50) } } as const;

/** A channel's archived public or private threads, newest archived first (commands/threads.ts says what each needs). */
const archivedRoute = (kind: 'public' | 'private', description: string) =>
  route({
    ...base,
    method: 'GET',
    path: `/channels/:channelId/threads/archived/${kind}`,
    summary: `List a channel’s archived ${kind} threads`,
    description,
    params: channelParams,
    query: archivedQuery,
    responses: { 200: threadList },
    errors: ['UNKNOWN_CHANNEL', 'MISSING_PERMISSIONS'],
    handle: async (ctx, { params: { channelId }, query }, deps) =>
      presentList(await readArchivedThreads(deps, channelId, requireAuth(ctx).userId, kind, query)),
  });

export const archivedPublicThreadsRoute = archivedRoute(
  'public',
  'Archived before `before` (ISO 8601), most recently archived first; needs READ_MESSAGE_HISTORY.',
);
export const archivedPrivateThreadsRoute = archivedRoute(
  'private',
  'Archived before `before` (ISO 8601), most recently archived first; needs READ_MESSAGE_HISTORY and MANAGE_THREADS.',
);

const joinedQuery = { type: 'object', properties: { before: snowflakeSchema, limit: pageLimit(100, 50) } } as const;

export const joinedArchivedPrivateThreadsRoute = route({
  ...base,
  method: 'GET',
  path: '/channels/:channelId/users/@me/threads/archived/private',
  summary: 'List the archived private threads the caller has joined',
  description: 'In a channel, by thread id descending, before `before` (a thread id); needs READ_MESSAGE_HISTORY.',
  params: channelParams,
  query: joinedQuery,
  responses: { 200: threadList },
  errors: ['UNKNOWN_CHANNEL', 'MISSING_PERMISSIONS'],
  handle: async (ctx, { params: { channelId }, query }, deps) => presentList(await readJoinedArchivedThreads(deps, channelId, requireAuth(ctx).userId, query)),
});

export const threadRoutes = [
  activeThreadsRoute,
  archivedPublicThreadsRoute,
  archivedPrivateThreadsRoute,
  joinedArchivedPrivateThreadsRoute,
  startThreadFromMessageRoute,
  startThreadRoute,
  getThreadRoute,
  updateThreadRoute,
  deleteThreadRoute,
  joinThreadRoute,
  leaveThreadRoute,
  addThreadMemberRoute,
  removeThreadMemberRoute,
  listThreadMembersRoute,
  getThreadMemberRoute,
];
