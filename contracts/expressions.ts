// Emoji and sticker objects: the emoji reactions and messages name, a guild's custom emoji (presenters/emojis.ts) and
// its stickers (presenters/stickers.ts). developers/resources/emoji.mdx, "Emoji Structure", and
// developers/resources/sticker.mdx, "Sticker Structure".
import { answeredTimestamp, anyArray, boolean, extend, integer, list, nullable, object, snowflakeSchema, snowflakes, string } from './schema.js';
import { User } from './users.js';

/** An emoji as a reaction names it: a unicode one has no id, and name is null only in reaction emoji objects. */
export const ReactionEmoji = object(
  'An emoji: a unicode one (no id) or a custom one.',
  { id: nullable(snowflakeSchema), name: nullable(string) },
  { roles: snowflakes, user: User, require_colons: boolean, managed: boolean, animated: boolean, available: boolean },
);

/** The spec adds what the widely used API leaves to its CDN and to audit logs: the image, the guild, the creation time. */
export const Emoji = extend(ReactionEmoji, 'A custom emoji (presenters/emojis.ts); `user` is its uploader.', {
  guild_id: snowflakeSchema,
  image: string,
  created_at: answeredTimestamp,
});

/** Tags are answered as a list, though sent as one comma-separated string. */
export const Sticker = object(
  'A guild sticker (presenters/stickers.ts); `user` is its uploader.',
  {
    id: snowflakeSchema,
    name: string,
    description: nullable(string),
    tags: { ...anyArray, items: string },
    type: integer,
    format_type: integer,
    image_url: string,
    created_at: answeredTimestamp,
  },
  { pack_id: snowflakeSchema, available: boolean, guild_id: snowflakeSchema, user: User, sort_value: integer, updated_at: answeredTimestamp },
);

export const StickerPage = object('A page of a guild’s stickers, with their total.', {
  stickers: list(Sticker),
  total: integer,
  limit: integer,
  offset: integer,
});
