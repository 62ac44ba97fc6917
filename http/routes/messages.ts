// Message routes of the spec: messages (list, fetch, send, edit, delete, bulk delete), typing, pins and reactions.
// Content is stored verbatim (the spec's formatting is the client's to render) and limited, as in the widely used
// API, to 2000 characters (Unicode code points); a message needs content, an embed, an attachment or a component.
// Components count only from bots; a person's session may send them but they are ignored. Sends and edits take JSON
// or multipart/form-data (payload_json and files[n], at most 10 files of 25 MiB).
import Router from '@koa/router';
import type { Context } from 'koa';
import { bulkDeleteMessages, deleteMessage } from '../../commands/messages/delete.js';
import { editMessage } from '../../commands/messages/edit.js';
import type { MessageInput, Sender } from '../../commands/messages/input.js';
import { pinMessage, unpinMessage } from '../../commands/messages/pins.js';
import { addReaction, clearReactions, removeReaction } from '../../commands/messages/reactions.js';
import { sendMessage } from '../../commands/messages/send.js';
import { messageChannelAccess } from '../../commands/access.js';
import { MAX_EMBEDS } from '../../domain/embeds.js';
import { invalidForm } from '../../domain/errors.js';
import { unknownMessage } from '../../domain/message.js';
import { Permission, hasPermission, requirePermission } from '../../domain/permissions.js';
import { parseEmoji } from '../../domain/reaction.js';
import { type MessageDoc, isVisibleTo } from '../../projections/messages.js';
import { messageInChannel, messagePage, reactionsByUserOn, messagesByIds, pinnedMessages as pinnedMessageDocs, reactorsOf } from '../../projections/messages.queries.js';
import { actorMeta, usersById } from '../actor.js';
import { type ScopedRoute, requireAuth } from '../auth.js';
import { type HttpDeps, noContent } from '../context.js';
import { type MessageView, messageJson, messageObject } from '../../presenters/messages.js';
import { readMessageBody } from '../multipart.js';
import { channelParams } from '../params.js';
import { apiTimestamp } from '../../presenters/timestamps.js';
import { userObject } from '../../presenters/users.js';
import { pageLimit, parseBody, parseQuery, snowflakeSchema, timestampSchema, uint64Schema } from '../validation.js';

/** Embed URLs: web links, or attachment://filename for a file of the same message. */
const urlSchema = { type: 'string', maxLength: 2048, pattern: '^(https?|attachment)://' } as const;
const mediaSchema = { type: 'object', properties: { url: urlSchema }, required: ['url'] } as const;

/**
 * The widely used API's embed fields and bounds; the 6000-character total and attachment:// checks are the domain's.
 * Other fields are let through, as that API does: clients resend received embeds with fields they were given.
 */
/** What an OAuth2 access token may read here (until these routes are entries of http/route.ts, which derives it). */
export const MESSAGE_SCOPES: ScopedRoute[] = [{ path: /^\/channels\/\d+\/messages(?:\/\d+)?\/?$/i, scope: 'messages.read' }];

export const embedSchema = {
  type: 'object',
  properties: {
    title: { type: 'string', maxLength: 256 },
    type: { type: 'string', enum: ['rich', 'image', 'video', 'gifv', 'article', 'link'] },
    description: { type: 'string', maxLength: 4096 },
    url: urlSchema,
    timestamp: timestampSchema,
    color: { type: ['integer', 'null'], minimum: 0, maximum: 0xffffff },
    footer: { type: 'object', properties: { text: { type: 'string', minLength: 1, maxLength: 2048 }, icon_url: urlSchema }, required: ['text'] },
    image: mediaSchema,
    thumbnail: mediaSchema,
    video: mediaSchema,
    provider: { type: 'object', properties: { name: { type: 'string', maxLength: 256 }, url: urlSchema } },
    author: { type: 'object', properties: { name: { type: 'string', minLength: 1, maxLength: 256 }, url: urlSchema, icon_url: urlSchema }, required: ['name'] },
    fields: {
      type: 'array',
      maxItems: 25,
      items: {
        type: 'object',
        properties: { name: { type: 'string', minLength: 1, maxLength: 256 }, value: { type: 'string', minLength: 1, maxLength: 1024 }, inline: { type: 'boolean' } },
        required: ['name', 'value'],
        additionalProperties: false,
      },
    },
  },
} as const;

export const allowedMentionsSchema = {
  type: 'object',
  properties: {
    parse: { type: 'array', items: { type: 'string', enum: ['users', 'roles', 'everyone'] }, uniqueItems: true },
    users: { type: 'array', items: snowflakeSchema, maxItems: 100 },
    roles: { type: 'array', items: snowflakeSchema, maxItems: 100 },
    replied_user: { type: 'boolean' },
  },
  additionalProperties: false,
} as const;

const attachmentsSchema = {
  type: 'array',
  maxItems: 10,
  items: {
    type: 'object',
    properties: {
      // A file's index for a new upload, or an existing attachment's id.
      id: uint64Schema,
      filename: { type: ['string', 'null'], minLength: 1, maxLength: 1024 },
      description: { type: ['string', 'null'], maxLength: 1024 },
    },
    required: ['id'],
  },
} as const;

/** Fields of the widely used API this service does not use (enforce_nonce, sticker_ids, poll…) are ignored. */
export const sendSchema = {
  type: 'object',
  properties: {
    // discord.py sends null for a message without content (an embed, a file).
    content: { type: ['string', 'null'] },
    tts: { type: 'boolean' },
    embeds: { type: 'array', maxItems: MAX_EMBEDS, items: embedSchema },
    nonce: { type: ['string', 'integer'], maxLength: 25 },
    flags: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    components: { type: 'array' },
    allowed_mentions: allowedMentionsSchema,
    attachments: attachmentsSchema,
    message_reference: {
      type: 'object',
      properties: { message_id: snowflakeSchema, channel_id: snowflakeSchema, guild_id: snowflakeSchema, fail_if_not_exists: { type: 'boolean' }, type: { type: 'integer', enum: [0] } },
      required: ['message_id'],
    },
  },
} as const;

/** An edit: null clears a field, as in the widely used API. */
export const editSchema = {
  type: 'object',
  properties: {
    content: { type: ['string', 'null'] },
    embeds: { type: ['array', 'null'], maxItems: MAX_EMBEDS, items: embedSchema },
    flags: { type: ['integer', 'null'], minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    components: { type: ['array', 'null'] },
    allowed_mentions: allowedMentionsSchema,
    attachments: { ...attachmentsSchema, type: ['array', 'null'] },
  },
} as const;

/** An edit's body, checked, as the message use cases take it (a null field cleared). */
export function parseEdit(payload: unknown): MessageInput {
  const body = parseBody(editSchema, payload);
  return {
    content: body.content === null ? '' : body.content,
    embeds: body.embeds === null ? [] : body.embeds,
    flags: body.flags ?? undefined,
    components: body.components === null ? [] : body.components,
    allowed_mentions: body.allowed_mentions,
    attachments: body.attachments === null ? [] : body.attachments,
  };
}

export const listQuery = {
  type: 'object',
  properties: { limit: pageLimit(100, 50), before: snowflakeSchema, after: snowflakeSchema, around: snowflakeSchema },
} as const;
export const reactorsQuery = {
  type: 'object',
  properties: { limit: pageLimit(100, 25), after: snowflakeSchema, type: { type: 'integer', enum: [0, 1], default: 0 } },
} as const;
export const pinsQuery = { type: 'object', properties: { limit: pageLimit(50, 50), before: timestampSchema } } as const;
export const bulkDeleteSchema = { type: 'object', properties: { messages: { type: 'array', items: snowflakeSchema } }, required: ['messages'] } as const;

export const messageParams = { type: 'object', properties: { channelId: snowflakeSchema, messageId: snowflakeSchema }, required: ['channelId', 'messageId'] } as const;
export const reactionParams = {
  type: 'object',
  properties: { ...messageParams.properties, emoji: { type: 'string', minLength: 1, maxLength: 100 } },
  required: ['channelId', 'messageId', 'emoji'],
} as const;
export const reactorParams = { type: 'object', properties: { ...reactionParams.properties, userId: snowflakeSchema }, required: [...reactionParams.required, 'userId'] } as const;

const senderOf = (ctx: Context): Sender => {
  const auth = requireAuth(ctx);
  return { userId: auth.userId, bot: auth.kind === 'bot' };
};

export function messageRoutes(deps: HttpDeps): Router {
  const router = new Router();
  const origin = () => deps.config.publicBaseUrl;

  /** How the viewer sees each message: `me` on their reactions, and the message a reply refers to. */
  async function viewsOf(docs: MessageDoc[], viewerId: string): Promise<MessageView[]> {
    // `me` only marks reactions a message has: messages without any need no look-up.
    const reacted = docs.flatMap((d) => (Object.keys(d.reactions).length ? [d._id] : []));
    const own = reacted.length ? await reactionsByUserOn(deps.readStore, reacted, viewerId) : [];
    const ownReactions = new Set(own.map((r) => `${r.message_id}:${r.emoji_field}`));
    const referencedIds = docs.flatMap((d) => (d.message_reference ? [d.message_reference.message_id] : []));
    const referenced = referencedIds.length ? await messagesByIds(deps.readStore, referencedIds) : [];
    return docs.map((doc) => ({
      origin: origin(),
      ownReactions,
      referenced: doc.message_reference ? (referenced.find((r) => r._id === doc.message_reference!.message_id) ?? null) : undefined,
    }));
  }

  /** Message objects as the viewer sees them. */
  async function present(docs: MessageDoc[], viewerId: string) {
    const views = await viewsOf(docs, viewerId);
    return docs.map((doc, i) => messageObject(doc, views[i]));
  }

  const presentOne = async (doc: MessageDoc, viewerId: string) => (await present([doc], viewerId))[0];

  /** Reading a channel's messages needs READ_MESSAGE_HISTORY; a message of another channel is unknown. */
  async function readableMessage(channelId: string, messageId: string, userId: string): Promise<MessageDoc> {
    const access = await messageChannelAccess(deps, channelId, userId);
    requirePermission(access.permissions, Permission.READ_MESSAGE_HISTORY);
    const doc = await messageInChannel(deps.readStore, channelId, messageId);
    if (!doc || !isVisibleTo(doc, userId)) throw unknownMessage();
    return doc;
  }

  router.get('/channels/:channelId/messages', async (ctx) => {
    const { channelId } = parseBody(channelParams, ctx.params);
    const query = parseQuery(listQuery, ctx.query);
    const anchors = (['before', 'after', 'around'] as const).filter((key) => query[key] !== undefined);
    if (anchors.length > 1) throw invalidForm(anchors.map((path) => ({ path, message: 'Use only one of before, after and around' })));
    const userId = requireAuth(ctx).userId;
    const access = await messageChannelAccess(deps, channelId, userId);
    // Without READ_MESSAGE_HISTORY the history is empty, as in the widely used API.
    const docs = hasPermission(access.permissions, Permission.READ_MESSAGE_HISTORY) ? await messagePage(deps.readStore, channelId, userId, query) : [];
    const views = await viewsOf(docs, userId);
    // The page's JSON from each message's, the bytes JSON.stringify would give for the array of their objects.
    ctx.type = 'application/json';
    ctx.body = `[${docs.map((doc, i) => messageJson(doc, views[i])).join(',')}]`;
  });

  router.post('/channels/:channelId/messages', async (ctx) => {
    const { channelId } = parseBody(channelParams, ctx.params);
    // Authenticated before the body is read: a stranger's upload is never parsed.
    const sender = senderOf(ctx);
    const { payload, files } = await readMessageBody(ctx, deps.config.jsonBodyLimit, deps.images);
    const { content, ...body } = parseBody(sendSchema, payload);
    const doc = await sendMessage(deps, actorMeta(ctx), channelId, { ...body, content: content ?? undefined }, files, sender);
    ctx.body = await presentOne(doc, sender.userId);
  });

  // Bulk delete: the spec writes DELETE; clients of the widely used API send POST. Registered before /:messageId.
  const bulkDelete = async (ctx: Context) => {
    const { channelId } = parseBody(channelParams, ctx.params);
    const { messages } = parseBody(bulkDeleteSchema, ctx.request.body);
    await bulkDeleteMessages(deps, actorMeta(ctx), channelId, messages);
    noContent(ctx);
  };
  router.post('/channels/:channelId/messages/bulk-delete', bulkDelete);
  router.delete('/channels/:channelId/messages/bulk-delete', bulkDelete);

  router.post('/channels/:channelId/typing', async (ctx) => {
    const { channelId } = parseBody(channelParams, ctx.params);
    const userId = requireAuth(ctx).userId;
    const access = await messageChannelAccess(deps, channelId, userId);
    requirePermission(access.permissions, Permission.SEND_MESSAGES);
    // A hint: relayed to the gateway as TYPING_START, never written to the log.
    deps.hints.publish({
      type: 'TYPING_START',
      channelId,
      guildId: access.guildId,
      userId,
      timestamp: Date.now(),
      ...(access.dm ? { recipientIds: access.dm.recipient_ids } : {}),
    });
    noContent(ctx);
  });

  /** Pinned messages, most recently pinned first; without READ_MESSAGE_HISTORY there are none to see. */
  async function pinnedMessages(ctx: Context, query: { limit: number; before?: string }) {
    const { channelId } = parseBody(channelParams, ctx.params);
    const userId = requireAuth(ctx).userId;
    const access = await messageChannelAccess(deps, channelId, userId);
    if (!hasPermission(access.permissions, Permission.READ_MESSAGE_HISTORY)) return { docs: [], userId };
    const before = query.before ? new Date(query.before).toISOString() : undefined;
    return { docs: await pinnedMessageDocs(deps.readStore, channelId, before, query.limit), userId };
  }

  router.get('/channels/:channelId/messages/pins', async (ctx) => {
    const query = parseQuery(pinsQuery, ctx.query);
    const { docs, userId } = await pinnedMessages(ctx, { ...query, limit: query.limit + 1 });
    const page = docs.slice(0, query.limit);
    const messages = await present(page, userId);
    ctx.body = { items: page.map((doc, i) => ({ pinned_at: apiTimestamp(doc.pinned_at), message: messages[i] })), has_more: docs.length > query.limit };
  });

  router.get('/channels/:channelId/pins', async (ctx) => {
    const { docs, userId } = await pinnedMessages(ctx, { limit: 50 });
    ctx.body = await present(docs, userId);
  });

  for (const path of ['/channels/:channelId/pins/:messageId', '/channels/:channelId/messages/pins/:messageId']) {
    router.put(path, async (ctx) => {
      const { channelId, messageId } = parseBody(messageParams, ctx.params);
      await pinMessage(deps, actorMeta(ctx), channelId, messageId);
      noContent(ctx);
    });
    router.delete(path, async (ctx) => {
      const { channelId, messageId } = parseBody(messageParams, ctx.params);
      await unpinMessage(deps, actorMeta(ctx), channelId, messageId);
      noContent(ctx);
    });
  }

  router.get('/channels/:channelId/messages/:messageId', async (ctx) => {
    const { channelId, messageId } = parseBody(messageParams, ctx.params);
    const userId = requireAuth(ctx).userId;
    ctx.body = await presentOne(await readableMessage(channelId, messageId, userId), userId);
  });

  router.patch('/channels/:channelId/messages/:messageId', async (ctx) => {
    const { channelId, messageId } = parseBody(messageParams, ctx.params);
    const sender = senderOf(ctx);
    const { payload, files } = await readMessageBody(ctx, deps.config.jsonBodyLimit, deps.images);
    const doc = await editMessage(deps, actorMeta(ctx), channelId, messageId, parseEdit(payload), files, sender);
    ctx.body = await presentOne(doc, sender.userId);
  });

  router.delete('/channels/:channelId/messages/:messageId', async (ctx) => {
    const { channelId, messageId } = parseBody(messageParams, ctx.params);
    await deleteMessage(deps, actorMeta(ctx), channelId, messageId);
    noContent(ctx);
  });

  // Reactions. :emoji arrives URL-decoded: a unicode emoji, or name:id for a custom one.
  const reaction = (ctx: Context) => {
    const params = parseBody(reactionParams, ctx.params);
    return { ...params, emoji: parseEmoji(params.emoji) };
  };

  router.get('/channels/:channelId/messages/:messageId/reactions/:emoji', async (ctx) => {
    const { channelId, messageId, emoji } = reaction(ctx);
    const query = parseQuery(reactorsQuery, ctx.query);
    await readableMessage(channelId, messageId, requireAuth(ctx).userId);
    // Every reaction here is a normal one; super (burst) reactions do not exist in this service.
    const reactors = query.type === 1 ? [] : await reactorsOf(deps.readStore, messageId, emoji, query.after, query.limit);
    const users = await usersById(deps.readStore, reactors.map((r) => r.user_id));
    ctx.body = reactors.flatMap((r) => (users.has(r.user_id) ? [userObject(users.get(r.user_id)!)] : []));
  });

  router.put('/channels/:channelId/messages/:messageId/reactions/:emoji/@me', async (ctx) => {
    const { channelId, messageId, emoji } = reaction(ctx);
    await addReaction(deps, actorMeta(ctx), channelId, messageId, emoji);
    noContent(ctx);
  });

  router.delete('/channels/:channelId/messages/:messageId/reactions/:emoji/@me', async (ctx) => {
    const { channelId, messageId, emoji } = reaction(ctx);
    const meta = actorMeta(ctx);
    await removeReaction(deps, meta, channelId, messageId, emoji, meta.actorId);
    noContent(ctx);
  });

  router.delete('/channels/:channelId/messages/:messageId/reactions/:emoji/:userId', async (ctx) => {
    const { channelId, messageId, emoji } = reaction(ctx);
    const { userId } = parseBody(reactorParams, ctx.params);
    await removeReaction(deps, actorMeta(ctx), channelId, messageId, emoji, userId);
    noContent(ctx);
  });

  router.delete('/channels/:channelId/messages/:messageId/reactions/:emoji', async (ctx) => {
    const { channelId, messageId, emoji } = reaction(ctx);
    await clearReactions(deps, actorMeta(ctx), channelId, messageId, emoji);
    noContent(ctx);
  });

  router.delete('/channels/:channelId/messages/:messageId/reactions', async (ctx) => {
    const { channelId, messageId } = parseBody(messageParams, ctx.params);
    await clearReactions(deps, actorMeta(ctx), channelId, messageId, null);
    noContent(ctx);
  });

  return router;
}
