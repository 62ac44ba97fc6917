// Message routes of the spec: messages (list, fetch, send, edit, delete, bulk delete), typing, pins and reactions.
// Content is stored verbatim (the spec's formatting is the client's to render) and limited, as in the widely used
// API, to 2000 characters (Unicode code points); a message needs content, an embed, an attachment or a component.
// Components count only from bots; a person's session may send them but they are ignored. Sends and edits take JSON
// or multipart/form-data (payload_json and files[n], at most 10 files of 25 MiB).
import { Message, PinnedMessages } from '../../contracts/messages.js';
import { User } from '../../contracts/users.js';
import { list } from '../../contracts/schema.js';
import { bulkDeleteMessages, deleteMessage } from '../../commands/messages/delete.js';
import { editMessage } from '../../commands/messages/edit.js';
import { pinMessage, unpinMessage } from '../../commands/messages/pins.js';
import { addReaction, clearReactions, removeReaction } from '../../commands/messages/reactions.js';
import { readMessage, readMessages, readPins, readReactors } from '../../commands/messages/read.js';
import { sendMessage } from '../../commands/messages/send.js';
import { startTyping } from '../../commands/messages/typing.js';
import { invalidForm } from '../../domain/errors.js';
import { parseEmoji } from '../../domain/reaction.js';
import { actorMeta } from '../actor.js';
import { requireAuth } from '../auth.js';
import { messagePageBytes, viewerFree } from '../../presenters/messages.js';
import { readMessageBody } from '../multipart.js';
import { channelParams } from '../params.js';
import { apiTimestamp } from '../../presenters/timestamps.js';
import { userObject } from '../../presenters/users.js';
import { route } from '../route.js';
import { editSchema, messageViews, parseEdit, presentMessage, presentMessages, sendSchema, senderOf } from '../shared/messages.js';
import { pageLimit, parseBody, snowflakeSchema, timestampSchema } from '../validation.js';

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

export const messageParams = {
  type: 'object',
  properties: { channelId: snowflakeSchema, messageId: snowflakeSchema },
  required: ['channelId', 'messageId'],
} as const;
export const reactionParams = {
  type: 'object',
  properties: { ...messageParams.properties, emoji: { type: 'string', minLength: 1, maxLength: 100 } },
  required: ['channelId', 'messageId', 'emoji'],
} as const;
export const reactorParams = {
  type: 'object',
  properties: { ...reactionParams.properties, userId: snowflakeSchema },
  required: [...reactionParams.required, 'userId'],
} as const;

const message = { description: 'The message as the caller sees it.', schema: Message };
const EMOJI = '`emoji` is a unicode emoji, or name:id for a custom one, URL-encoded.';
const base = { tag: 'Messages', auth: 'any' } as const;

export const listMessagesRoute = route({
  ...base,
  method: 'GET',
  path: '/channels/:channelId/messages',
  summary: 'List a channel’s messages',
  description: 'Newest first; one of `before`, `after` and `around` at most. Empty without READ_MESSAGE_HISTORY.',
  scope: 'messages.read',
  params: channelParams,
  query: listQuery,
  responses: { 200: { description: 'The messages.', schema: list(Message) } },
  errors: ['UNKNOWN_CHANNEL'],
  async handle(ctx, { params: { channelId }, query }, deps) {
    const anchors = (['before', 'after', 'around'] as const).filter((key) => query[key] !== undefined);
    if (anchors.length > 1) throw invalidForm(anchors.map((path) => ({ path, message: 'Use only one of before, after and around' })));
    const userId = requireAuth(ctx).userId;
    const docs = await readMessages(deps, channelId, userId, query);
    // The bytes JSON.stringify would give for the array of the messages' objects; the viewer's look-ups only if some
    // message's object depends on who reads it.
    const views = docs.every(viewerFree) ? undefined : await messageViews(deps, docs, userId);
    // The exact type, set as the header: koa's type setter would look it up and add a charset for the app to take off.
    ctx.set('Content-Type', 'application/json');
    ctx.body = messagePageBytes(docs, deps.config.publicBaseUrl, views);
  },
});

export const sendMessageRoute = route({
  ...base,
  method: 'POST',
  path: '/channels/:channelId/messages',
  summary: 'Send a message',
  description:
    'Needs SEND_MESSAGES (ATTACH_FILES for files). Content is at most 2000 characters; a message needs content, an embed, an attachment or a component (components count only from bots). A repeated `nonce` answers the message it first made. A timed-out member is refused (403 MISSING_ACCESS). In slowmode (`rate_limit_per_user` > 0) a member sends once per that many seconds in the channel (429 SLOWMODE_RATE_LIMITED with `retry_after`), unless they hold MANAGE_MESSAGES or MANAGE_CHANNELS; bots are not held to it, as on the widely used API. A DM whose other side deleted their account takes nothing (403 CANNOT_SEND_MESSAGES_TO_USER).',
  params: channelParams,
  body: sendSchema,
  // JSON or multipart, read once the caller is authenticated: a stranger's upload is never parsed.
  readsItself: ['body'],
  multipart: true,
  responses: { 200: message },
  errors: [
    'UNKNOWN_CHANNEL',
    'UNKNOWN_MESSAGE',
    'MISSING_PERMISSIONS',
    'MISSING_ACCESS',
    'SLOWMODE_RATE_LIMITED',
    'CANNOT_SEND_IN_NON_TEXT_CHANNEL',
    'CANNOT_SEND_IN_FORUM_CHANNEL',
    'CANNOT_SEND_EMPTY_MESSAGE',
    'AUTOMOD_BLOCKED',
    'CANNOT_SEND_MESSAGES_TO_USER',
  ],
  async handle(ctx, { params: { channelId } }, deps) {
    const sender = senderOf(ctx);
    const { payload, files } = await readMessageBody(ctx, deps.config.jsonBodyLimit, deps.images);
    const { content, ...body } = parseBody(sendSchema, payload);
    const doc = await sendMessage(deps, actorMeta(ctx), channelId, { ...body, content: content ?? undefined }, files, sender);
    return presentMessage(deps, doc, sender.userId);
  },
});

/** Bulk delete: the spec writes DELETE; clients of the widely used API send POST. Declared before /:messageId. */
const bulkDeleteRoute = (method: 'POST' | 'DELETE', summary: string) =>
  route({
    ...base,
    method,
    path: '/channels/:channelId/messages/bulk-delete',
    summary,
    description: 'Needs MANAGE_MESSAGES; 2 to 100 messages of the last two weeks. Guild channels only.',
    params: channelParams,
    body: bulkDeleteSchema,
    responses: { 204: { description: 'Deleted.' } },
    errors: ['UNKNOWN_CHANNEL', 'MISSING_PERMISSIONS', 'CANNOT_BULK_DELETE_IN_DM'],
    handle: (ctx, { params: { channelId }, body }, deps) => bulkDeleteMessages(deps, actorMeta(ctx), channelId, body.messages),
  });

export const typingRoute = route({
  ...base,
  method: 'POST',
  path: '/channels/:channelId/typing',
  summary: 'Show that the caller is typing',
  description: 'Needs SEND_MESSAGES; relayed as TYPING_START, never stored.',
  params: channelParams,
  responses: { 204: { description: 'Relayed.' } },
  errors: ['UNKNOWN_CHANNEL', 'MISSING_PERMISSIONS'],
  handle: (ctx, { params: { channelId } }, deps) => startTyping(deps, channelId, requireAuth(ctx).userId),
});

export const pinsRoute = route({
  ...base,
  method: 'GET',
  path: '/channels/:channelId/messages/pins',
  summary: 'List pinned messages',
  description: 'Most recently pinned first, pinned before `before`. Empty without READ_MESSAGE_HISTORY.',
  params: channelParams,
  query: pinsQuery,
  responses: { 200: { description: 'A page of pins.', schema: PinnedMessages } },
  errors: ['UNKNOWN_CHANNEL'],
  async handle(ctx, { params: { channelId }, query }, deps) {
    const userId = requireAuth(ctx).userId;
    const docs = await readPins(deps, channelId, userId, { ...query, limit: query.limit + 1 });
    const page = docs.slice(0, query.limit);
    const messages = await presentMessages(deps, page, userId);
    // Pinned messages only: each has the time it was pinned.
    return { items: page.map((doc, i) => ({ pinned_at: apiTimestamp(doc.pinned_at!), message: messages[i] })), has_more: docs.length > query.limit };
  },
});

export const olderPinsRoute = route({
  ...base,
  method: 'GET',
  path: '/channels/:channelId/pins',
  summary: 'List pinned messages (older form)',
  description: 'The 50 most recently pinned messages. Empty without READ_MESSAGE_HISTORY.',
  params: channelParams,
  responses: { 200: { description: 'The pinned messages.', schema: list(Message) } },
  errors: ['UNKNOWN_CHANNEL'],
  deprecated: true,
  async handle(ctx, { params: { channelId } }, deps) {
    const userId = requireAuth(ctx).userId;
    return presentMessages(deps, await readPins(deps, channelId, userId, { limit: 50 }), userId);
  },
});

const pinErrors = ['UNKNOWN_CHANNEL', 'UNKNOWN_MESSAGE', 'MISSING_PERMISSIONS'] as const;
/** Pinning and unpinning, at the spec's path and at the older one. */
const pinRoutes = (path: string, older: boolean) => {
  const pin = { ...base, path, params: messageParams, description: 'Needs MANAGE_MESSAGES in a guild channel.', deprecated: older || undefined } as const;
  const form = older ? ' (older form)' : '';
  return [
    route({
      ...pin,
      method: 'PUT',
      summary: `Pin a message${form}`,
      responses: { 204: { description: 'Pinned.' } },
      errors: [...pinErrors, 'MAX_PINS'],
      handle: (ctx, { params: { channelId, messageId } }, deps) => pinMessage(deps, actorMeta(ctx), channelId, messageId),
    }),
    route({
      ...pin,
      method: 'DELETE',
      summary: `Unpin a message${form}`,
      responses: { 204: { description: 'Unpinned.' } },
      errors: pinErrors,
      handle: (ctx, { params: { channelId, messageId } }, deps) => unpinMessage(deps, actorMeta(ctx), channelId, messageId),
    }),
  ];
};

export const getMessageRoute = route({
  ...base,
  method: 'GET',
  path: '/channels/:channelId/messages/:messageId',
  summary: 'Get a message',
  description: 'Needs READ_MESSAGE_HISTORY.',
  scope: 'messages.read',
  params: messageParams,
  responses: { 200: message },
  errors: ['UNKNOWN_CHANNEL', 'UNKNOWN_MESSAGE', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params: { channelId, messageId } }, deps) {
    const userId = requireAuth(ctx).userId;
    return presentMessage(deps, await readMessage(deps, channelId, messageId, userId), userId);
  },
});

export const editMessageRoute = route({
  ...base,
  method: 'PATCH',
  path: '/channels/:channelId/messages/:messageId',
  summary: 'Edit a message',
  description:
    'Only its author may (MANAGE_MESSAGES may change its flags); null clears a field. `attachments` lists the files to keep, new ones by their index.',
  params: messageParams,
  body: editSchema,
  // JSON or multipart, read once the caller is authenticated.
  readsItself: ['body'],
  multipart: true,
  responses: { 200: message },
  errors: ['UNKNOWN_CHANNEL', 'UNKNOWN_MESSAGE', 'CANNOT_EDIT_MESSAGE_BY_OTHER', 'MISSING_PERMISSIONS', 'CANNOT_SEND_EMPTY_MESSAGE', 'AUTOMOD_BLOCKED'],
  async handle(ctx, { params: { channelId, messageId } }, deps) {
    const sender = senderOf(ctx);
    const { payload, files } = await readMessageBody(ctx, deps.config.jsonBodyLimit, deps.images);
    const doc = await editMessage(deps, actorMeta(ctx), channelId, messageId, parseEdit(payload), files, sender);
    return presentMessage(deps, doc, sender.userId);
  },
});

export const deleteMessageRoute = route({
  ...base,
  method: 'DELETE',
  path: '/channels/:channelId/messages/:messageId',
  summary: 'Delete a message',
  description: 'Its author may, or MANAGE_MESSAGES in a guild channel.',
  params: messageParams,
  responses: { 204: { description: 'Deleted.' } },
  errors: ['UNKNOWN_CHANNEL', 'UNKNOWN_MESSAGE', 'MISSING_PERMISSIONS'],
  handle: (ctx, { params: { channelId, messageId } }, deps) => deleteMessage(deps, actorMeta(ctx), channelId, messageId),
});

// Reactions. :emoji arrives URL-decoded: a unicode emoji, or name:id for a custom one.
export const reactorsRoute = route({
  ...base,
  method: 'GET',
  path: '/channels/:channelId/messages/:messageId/reactions/:emoji',
  summary: 'List the users who reacted',
  description: `${EMOJI} By user id after \`after\`; super reactions (type 1) do not exist here, so that list is empty.`,
  params: reactionParams,
  query: reactorsQuery,
  responses: { 200: { description: 'The users.', schema: list(User) } },
  errors: ['UNKNOWN_CHANNEL', 'UNKNOWN_MESSAGE', 'UNKNOWN_EMOJI', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params: { channelId, messageId, emoji }, query }, deps) {
    const users = await readReactors(deps, channelId, messageId, requireAuth(ctx).userId, parseEmoji(emoji), query);
    return users.map((user) => userObject(user));
  },
});

export const reactRoute = route({
  ...base,
  method: 'PUT',
  path: '/channels/:channelId/messages/:messageId/reactions/:emoji/@me',
  summary: 'React to a message',
  description: `${EMOJI} Needs READ_MESSAGE_HISTORY, and ADD_REACTIONS for an emoji nobody has reacted with yet.`,
  params: reactionParams,
  responses: { 204: { description: 'Reacted.' } },
  errors: ['UNKNOWN_CHANNEL', 'UNKNOWN_MESSAGE', 'UNKNOWN_EMOJI', 'MISSING_PERMISSIONS', 'MISSING_ACCESS', 'MAX_REACTIONS'],
  handle: (ctx, { params: { channelId, messageId, emoji } }, deps) => addReaction(deps, actorMeta(ctx), channelId, messageId, parseEmoji(emoji)),
});

const removal = {
  ...base,
  method: 'DELETE',
  responses: { 204: { description: 'Removed.' } },
  errors: ['UNKNOWN_CHANNEL', 'UNKNOWN_MESSAGE', 'UNKNOWN_EMOJI', 'MISSING_PERMISSIONS'],
} as const;

export const unreactRoute = route({
  ...removal,
  path: '/channels/:channelId/messages/:messageId/reactions/:emoji/@me',
  summary: 'Remove your reaction',
  description: EMOJI,
  params: reactionParams,
  async handle(ctx, { params: { channelId, messageId, emoji } }, deps) {
    const parsed = parseEmoji(emoji);
    const meta = actorMeta(ctx);
    await removeReaction(deps, meta, channelId, messageId, parsed, meta.actorId);
  },
});

export const removeReactionRoute = route({
  ...removal,
  path: '/channels/:channelId/messages/:messageId/reactions/:emoji/:userId',
  summary: 'Remove a user’s reaction',
  description: `${EMOJI} Needs MANAGE_MESSAGES for another user’s.`,
  params: reactorParams,
  handle: (ctx, { params: { channelId, messageId, emoji, userId } }, deps) =>
    removeReaction(deps, actorMeta(ctx), channelId, messageId, parseEmoji(emoji), userId),
});

export const clearEmojiReactionsRoute = route({
  ...removal,
  path: '/channels/:channelId/messages/:messageId/reactions/:emoji',
  summary: 'Remove every reaction with an emoji',
  description: `${EMOJI} Needs MANAGE_MESSAGES.`,
  params: reactionParams,
  handle: (ctx, { params: { channelId, messageId, emoji } }, deps) => clearReactions(deps, actorMeta(ctx), channelId, messageId, parseEmoji(emoji)),
});

export const clearReactionsRoute = route({
  ...base,
  method: 'DELETE',
  path: '/channels/:channelId/messages/:messageId/reactions',
  summary: 'Remove every reaction',
  description: 'Needs MANAGE_MESSAGES.',
  params: messageParams,
  responses: { 204: { description: 'Removed.' } },
  errors: ['UNKNOWN_CHANNEL', 'UNKNOWN_MESSAGE', 'MISSING_PERMISSIONS'],
  handle: (ctx, { params: { channelId, messageId } }, deps) => clearReactions(deps, actorMeta(ctx), channelId, messageId, null),
});

export const messageRoutes = [
  listMessagesRoute,
  sendMessageRoute,
  bulkDeleteRoute('POST', 'Delete messages in bulk'),
  bulkDeleteRoute('DELETE', 'Delete messages in bulk (the spec’s form)'),
  typingRoute,
  pinsRoute,
  olderPinsRoute,
  ...pinRoutes('/channels/:channelId/messages/pins/:messageId', false),
  ...pinRoutes('/channels/:channelId/pins/:messageId', true),
  getMessageRoute,
  editMessageRoute,
  deleteMessageRoute,
  reactorsRoute,
  reactRoute,
  unreactRoute,
  removeReactionRoute,
  clearEmojiReactionsRoute,
  clearReactionsRoute,
];
