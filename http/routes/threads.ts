// Thread routes: starting a thread from a message or on its own, a thread as a channel (fetch, change, delete: the
// /channels/:channelId entries answer threads and pass other ids on to the guild channel's routes), and its members.
// Messages, reactions, pins and typing in a thread are the message routes', which resolve a thread as a text channel.
import { channelAccess, guildAccess, loadThread, messageChannelAccess, threadsVisibleTo } from '../../commands/access.js';
import { addThreadMember, createThread, deleteThread, removeThreadMember, updateThread } from '../../commands/threads.js';
import { type GuildState, unknownChannel, unknownMember } from '../../domain/guildState.js';
import { Permission, requirePermission } from '../../domain/permissions.js';
import { type ThreadData, ThreadType } from '../../domain/thread.js';
import { memberOf } from '../../projections/members.queries.js';
import {
  activeThreadsOfGuild,
  archivedThreadsOf,
  threadMemberOf,
  threadMembersPage,
  threadMembershipsOf,
  threadsByIds,
} from '../../projections/threads.queries.js';
import type { ThreadDoc, ThreadMemberDoc } from '../../projections/threads.js';
import { memberObject } from '../../presenters/members.js';
import { threadDocObject, threadMemberObject } from '../../presenters/threads.js';
import { actorMeta, usersById } from '../actor.js';
import { requireAuth } from '../auth.js';
import type { HttpDeps } from '../context.js';
import { listOf, ref } from '../openapi/components.js';
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

/** Thread members, each with their guild member when asked (those who left the guild are shown without). */
async function presentMembers(deps: HttpDeps, guildId: string, docs: ThreadMemberDoc[], withMember: boolean) {
  if (!withMember) return docs.map((doc) => threadMemberObject(doc));
  const users = await usersById(
    deps.readStore,
    docs.map((doc) => doc.user_id),
  );
  return Promise.all(
    docs.map(async (doc) => {
      const member = await memberOf(deps.readStore, guildId, doc.user_id);
      const user = users.get(doc.user_id);
      return threadMemberObject(doc, member && user ? memberObject(member, user) : undefined);
    }),
  );
}

/** A thread the caller can see, by the thread's own rules; UNKNOWN_CHANNEL for anything else. */
async function visibleThread(deps: HttpDeps, threadId: string, userId: string): Promise<ThreadData> {
  const access = await messageChannelAccess(deps, threadId, userId);
  if (!access.thread) throw unknownChannel();
  return access.thread.thread!;
}

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
    await visibleThread(deps, channelId, requireAuth(ctx).userId);
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
    await visibleThread(deps, channelId, meta.actorId);
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
  responses: { 200: { description: 'The thread members.', schema: listOf('ThreadMember') } },
  errors: ['UNKNOWN_CHANNEL'],
  async handle(ctx, { params: { channelId }, query }, deps) {
    const found = await visibleThread(deps, channelId, requireAuth(ctx).userId);
    const docs = await threadMembersPage(deps.readStore, channelId, { after: query.after, limit: query.limit });
    return presentMembers(deps, found.guild_id, docs, query.with_member);
  },
});

export const getThreadMemberRoute = route({
  ...threadMembers,
  method: 'GET',
  path: '/channels/:channelId/thread-members/:userId',
  summary: 'Get a thread member',
  params: memberParams,
  query: withMemberQuery,
  responses: { 200: { description: 'The thread member.', schema: ref('ThreadMember') } },
  errors: ['UNKNOWN_CHANNEL', 'UNKNOWN_MEMBER'],
  async handle(ctx, { params: { channelId, userId }, query }, deps) {
    const found = await visibleThread(deps, channelId, requireAuth(ctx).userId);
    const doc = await threadMemberOf(deps.readStore, channelId, userId);
    if (!doc) throw unknownMember();
    return (await presentMembers(deps, found.guild_id, [doc], query.with_member))[0];
  },
});

/** Of these threads, those the user sees, with the user's memberships of them, as the lists answer them. */
async function visibleList(deps: HttpDeps, guild: GuildState, userId: string, docs: ThreadDoc[], hasMore?: boolean) {
  const memberships = await threadMembershipsOf(deps.readStore, guild.id, userId);
  const joined = new Map(memberships.map((m) => [m.thread_id, m]));
  const threads = threadsVisibleTo(guild, userId, docs, new Set(joined.keys()));
  return {
    threads: threads.map(threadDocObject),
    members: threads.flatMap((doc) => (joined.has(doc._id) ? [threadMemberObject(joined.get(doc._id)!)] : [])),
    ...(hasMore === undefined ? {} : { has_more: hasMore }),
  };
}

const threadList = { description: 'The threads, and the caller’s memberships of them.', schema: ref('ThreadList') };

export const activeThreadsRoute = route({
  ...base,
  method: 'GET',
  path: '/guilds/:guildId/threads/active',
  summary: 'List a guild’s active threads',
  description: 'The threads not archived that the caller can see.',
  params: guildParams,
  responses: { 200: threadList },
  errors: ['UNKNOWN_GUILD'],
  async handle(ctx, { params: { guildId } }, deps) {
    const userId = requireAuth(ctx).userId;
    const { guild } = await guildAccess(deps, guildId, userId);
    return visibleList(deps, guild, userId, await activeThreadsOfGuild(deps.readStore, guildId));
  },
});

const archivedQuery = { type: 'object', properties: { before: timestampSchema, limit: pageLimit(100, 50) } } as const;

/** A channel's archived threads of these types, newest archived first: READ_MESSAGE_HISTORY, and `needs` besides. */
const archivedRoute = (kind: 'public' | 'private', types: number[], needs: bigint, description: string) =>
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
    async handle(ctx, { params: { channelId }, query }, deps) {
      const userId = requireAuth(ctx).userId;
      const { guild, permissions } = await channelAccess(deps, channelId, userId);
      requirePermission(permissions, Permission.READ_MESSAGE_HISTORY | needs);
      const before = query.before ? new Date(query.before).toISOString() : undefined;
      const docs = await archivedThreadsOf(deps.readStore, channelId, types, before, query.limit + 1);
      return visibleList(deps, guild, userId, docs.slice(0, query.limit), docs.length > query.limit);
    },
  });

export const archivedPublicThreadsRoute = archivedRoute(
  'public',
  [ThreadType.PUBLIC_THREAD, ThreadType.ANNOUNCEMENT_THREAD],
  0n,
  'Archived before `before` (ISO 8601), most recently archived first; needs READ_MESSAGE_HISTORY.',
);
export const archivedPrivateThreadsRoute = archivedRoute(
  'private',
  [ThreadType.PRIVATE_THREAD],
  Permission.MANAGE_THREADS,
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
  async handle(ctx, { params: { channelId }, query }, deps) {
    const userId = requireAuth(ctx).userId;
    const { guild, permissions } = await channelAccess(deps, channelId, userId);
    requirePermission(permissions, Permission.READ_MESSAGE_HISTORY);
    const joined = (await threadMembershipsOf(deps.readStore, guild.id, userId)).filter((m) => m.parent_id === channelId).map((m) => m.thread_id);
    const below = (id: string) => !query.before || BigInt(id) < BigInt(query.before);
    const docs = (await threadsByIds(deps.readStore, joined))
      .filter((doc) => doc.archived && doc.type === ThreadType.PRIVATE_THREAD && below(doc._id))
      .sort((a, b) => (BigInt(b._id) > BigInt(a._id) ? 1 : -1));
    return visibleList(deps, guild, userId, docs.slice(0, query.limit), docs.length > query.limit);
  },
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
