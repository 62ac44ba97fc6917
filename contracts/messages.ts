// Message objects (presenters/messages.ts): attachments served on the CDN, embeds, reactions with `me` for the caller.
// developers/resources/message.mdx, "Message Structure", "Attachment Structure", "Embed Structure", "Reaction
// Structure" and "Message Reference Structure".
import { answeredTimestamp, anyArray, anyObject, boolean, integer, list, nullable, object, snowflakeSchema, snowflakes, string } from './schema.js';
import { ReactionEmoji } from './expressions.js';
import { User } from './users.js';

export const Attachment = object(
  'A file of the message, on the CDN.',
  { id: snowflakeSchema, filename: string, size: integer, url: string, proxy_url: string },
  {
    title: string,
    description: string,
    content_type: string,
    height: nullable(integer),
    width: nullable(integer),
    ephemeral: boolean,
    flags: integer,
  },
);

export const Embed = object(
  'An embed; attachment://filename URLs are answered as the file’s CDN URL.',
  {},
  {
    title: string,
    type: string,
    description: string,
    url: string,
    timestamp: answeredTimestamp,
    color: integer,
    footer: anyObject,
    image: anyObject,
    thumbnail: anyObject,
    video: anyObject,
    provider: anyObject,
    author: anyObject,
    fields: anyArray,
    flags: integer,
  },
);

export const Reaction = object('A reaction’s count; `me` when the caller is among its users.', {
  count: integer,
  count_details: object('Its counts by kind.', { burst: integer, normal: integer }),
  me: boolean,
  me_burst: boolean,
  emoji: ReactionEmoji,
  burst_colors: anyArray,
});

export const Message = object(
  'A message (presenters/messages.ts); a reply has `referenced_message`, the message replied to (null once deleted).',
  {
    id: snowflakeSchema,
    channel_id: snowflakeSchema,
    author: User,
    content: string,
    timestamp: answeredTimestamp,
    edited_timestamp: nullable(answeredTimestamp),
    tts: boolean,
    mention_everyone: boolean,
    mentions: list(User),
    mention_roles: snowflakes,
    attachments: list(Attachment),
    embeds: list(Embed),
    pinned: boolean,
    type: integer,
  },
  {
    mention_channels: anyArray,
    reactions: list(Reaction),
    nonce: { type: ['integer', 'string'] },
    webhook_id: snowflakeSchema,
    activity: anyObject,
    application: anyObject,
    application_id: snowflakeSchema,
    flags: integer,
    message_reference: object(
      'What the message replies to or forwards.',
      {},
      { type: integer, message_id: snowflakeSchema, channel_id: snowflakeSchema, guild_id: snowflakeSchema },
    ),
    message_snapshots: anyArray,
    interaction_metadata: anyObject,
    thread: anyObject,
    components: anyArray,
    sticker_items: anyArray,
    position: integer,
    poll: anyObject,
    // A Message itself: a schema cannot hold itself, and the conformance test checks it as one.
    referenced_message: nullable(anyObject),
  },
);

export const PinnedMessages = object('A page of pins, most recently pinned first.', {
  items: list(object('A pin.', { pinned_at: answeredTimestamp, message: Message })),
  has_more: boolean,
});
