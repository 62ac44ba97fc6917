// What the routes that take or answer messages share (sends, edits, forum posts, webhook executions, interaction
// responses and follow-ups): a message's body schemas, an edit's parsing, the sender, and messages presented as their
// viewer sees them.
import type { Context } from 'koa';
import type { MessageInput, Sender } from '../../commands/messages/input.js';
import { MAX_EMBEDS } from '../../domain/embeds.js';
import type { MessageDoc } from '../../projections/messages.js';
import { messagesByIds, reactionsByUserOn } from '../../projections/messages.queries.js';
import { threadsByIds } from '../../projections/threads.queries.js';
import { type MessageView, messageObject } from '../../presenters/messages.js';
import { threadDocObject } from '../../presenters/threads.js';
import { requireAuth } from '../auth.js';
import type { HttpDeps } from '../context.js';
import { parseBody, snowflakeSchema, timestampSchema, uint64Schema } from '../validation.js';

/** Embed URLs: web links, or attachment://filename for a file of the same message. */
const urlSchema = { type: 'string', maxLength: 2048, pattern: '^(https?|attachment)://' } as const;
const mediaSchema = { type: 'object', properties: { url: urlSchema }, required: ['url'] } as const;

/**
 * The widely used API's embed fields and bounds; the 6000-character total and attachment:// checks are the domain's.
 * Other fields are let through, as that API does: clients resend received embeds with fields they were given.
 */
const embedSchema = {
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
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 256 },
          value: { type: 'string', minLength: 1, maxLength: 1024 },
          inline: { type: 'boolean' },
        },
        required: ['name', 'value'],
        additionalProperties: false,
      },
    },
  },
} as const;

const allowedMentionsSchema = {
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
      properties: {
        message_id: snowflakeSchema,
        channel_id: snowflakeSchema,
        guild_id: snowflakeSchema,
        fail_if_not_exists: { type: 'boolean' },
        type: { type: 'integer', enum: [0] },
      },
      required: ['message_id'],
    },
  },
} as const;

const { nonce: _nonce, message_reference: _reference, ...fields } = sendSchema.properties;
/** A send's fields without a nonce or a reply: the message a webhook or an interaction posts takes neither. */
export const postedMessageFields = fields;

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

/** The authenticated caller as a message's sender: a person's session or a bot. */
export const senderOf = (ctx: Context): Sender => {
  const auth = requireAuth(ctx);
  return { userId: auth.userId, bot: auth.kind === 'bot' };
};

/** How the viewer sees each message: `me` on their reactions, and the message a reply refers to. */
export async function messageViews(deps: HttpDeps, docs: MessageDoc[], viewerId: string): Promise<MessageView[]> {
  // `me` only marks reactions a message has: messages without any need no look-up.
  const reacted = docs.flatMap((d) => (Object.keys(d.reactions).length ? [d._id] : []));
  const own = reacted.length ? await reactionsByUserOn(deps.readStore, reacted, viewerId) : [];
  const ownReactions = new Set(own.map((r) => `${r.message_id}:${r.emoji_field}`));
  const referencedIds = docs.flatMap((d) => (d.message_reference ? [d.message_reference.message_id] : []));
  const referenced = referencedIds.length ? await messagesByIds(deps.readStore, referencedIds) : [];
  const threadIds = docs.flatMap((d) => (d.thread_id ? [d.thread_id] : []));
  const threads = new Map((threadIds.length ? await threadsByIds(deps.readStore, threadIds) : []).map((t) => [t._id, threadDocObject(t)]));
  return docs.map((doc) => ({
    origin: deps.config.publicBaseUrl,
    ownReactions,
    referenced: doc.message_reference ? (referenced.find((r) => r._id === doc.message_reference!.message_id) ?? null) : undefined,
    thread: doc.thread_id ? threads.get(doc.thread_id) : undefined,
  }));
}

/** Message objects as the viewer sees them. */
export async function presentMessages(deps: HttpDeps, docs: MessageDoc[], viewerId: string) {
  const views = await messageViews(deps, docs, viewerId);
  return docs.map((doc, i) => messageObject(doc, views[i]));
}

export const presentMessage = async (deps: HttpDeps, doc: MessageDoc, viewerId: string) => (await presentMessages(deps, [doc], viewerId))[0];
