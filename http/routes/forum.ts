// Posts in forum and media channels: POST /channels/:channelId/threads with a forum's id opens a post (a public thread
// and its first message, which takes the thread's id); other channels' ids are passed on to the thread routes, which
// document the path for both.
import { channelAccess } from '../../commands/access.js';
import { createForumPost } from '../../commands/forum.js';
import { isForum } from '../../domain/forum.js';
import { channelById } from '../../projections/channels.queries.js';
import { actorMeta } from '../actor.js';
import { readMessageBody } from '../multipart.js';
import { channelParams } from '../params.js';
import { passOn, route } from '../route.js';
import { presentMessage, sendSchema, senderOf } from '../shared/messages.js';
import { appliedTagsSchema, presentThread, startThreadOperation, threadFields } from '../shared/threads.js';
import { type FromSchema, parseBody } from '../validation.js';

/**
 * The widely used API's body: the thread's fields, and its first message as a send takes it (JSON or multipart).
 * discord.js sends the forum's default_auto_archive_duration, null when the forum has none: null is "not given".
 */
export const forumPostSchema = {
  type: 'object',
  properties: {
    ...threadFields,
    auto_archive_duration: { ...threadFields.auto_archive_duration, type: ['integer', 'null'], enum: [...threadFields.auto_archive_duration.enum, null] },
    rate_limit_per_user: { ...threadFields.rate_limit_per_user, type: ['integer', 'null'] },
    applied_tags: appliedTagsSchema,
    message: sendSchema,
    // discord.py names the type of a post, the only one there is.
    type: { type: 'integer', enum: [11] },
  },
  required: ['name', 'message'],
  additionalProperties: false,
} as const;

export const startForumPostRoute = route({
  tag: 'Threads',
  auth: 'any',
  ...startThreadOperation,
  documentedBy: startThreadOperation,
  params: channelParams,
  body: forumPostSchema,
  // Read once the channel is known to be a forum: other channels' bodies are the thread route's.
  readsItself: ['body'],
  multipart: true,
  audit: 'THREAD_CREATE',
  async handle(ctx, { params: { channelId } }, deps) {
    const doc = await channelById(deps.readStore, channelId);
    if (!doc || !isForum(doc.type)) return passOn;
    const sender = senderOf(ctx);
    const forum = await channelAccess(deps, channelId, sender.userId);
    const { payload, files } = await readMessageBody(ctx, deps.config.jsonBodyLimit, deps.images);
    const { message, ...post }: FromSchema<typeof forumPostSchema> = parseBody(forumPostSchema, payload);
    const { auto_archive_duration, rate_limit_per_user, type: _post, ...fields } = post;
    const input = {
      ...fields,
      auto_archive_duration: auto_archive_duration ?? undefined,
      rate_limit_per_user: rate_limit_per_user ?? undefined,
      message: { ...message, content: message.content ?? undefined },
    };
    const created = await createForumPost(deps, actorMeta(ctx), forum, input, files, sender);
    return { ...(await presentThread(deps, created.threadId)), message: await presentMessage(deps, created.message, sender.userId) };
  },
});

export const forumRoutes = [startForumPostRoute];
