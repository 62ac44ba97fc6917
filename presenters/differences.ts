// Where Parley's objects differ on purpose from the widely used API's, as discord-api-types states that API: each
// difference is the spec's (quoted from its field tables), declared here once. Presenters return these types, so a
// field that is neither the API's nor declared here is a compile error.
import type { APIEmoji, APIGuild, APISticker } from 'discord-api-types/v10';

/**
 * A custom emoji. The spec's Emoji table adds what the API leaves to the CDN and to audit logs:
 * "image | string | URL of the image", "guild_id | string | owning guild", "created_at | string (ISO 8601) | creation time".
 */
export type ParleyEmoji = APIEmoji & { image: string; guild_id: string; created_at: string };

/**
 * A guild sticker. The spec's Sticker table answers its tags as a list where the API has one string:
 * "tags | array of strings in responses | sent as one comma-separated string"; and adds "image_url | string | address
 * of the stored image", "created_at | string (ISO 8601) | present on create and list", "updated_at | string (ISO 8601)
 * | present on update".
 */
export type ParleySticker = Omit<APISticker, 'tags'> & { tags: string[]; image_url: string; created_at: string; updated_at?: string };

/**
 * A guild, with its custom emojis and stickers in Parley's form (above). The spec's Guild lists "`member_count`
 * (integer)" among the "Fields given", so every guild object carries it, not only GUILD_CREATE. Its locale is the
 * spec's free "locale | string | preferred language locale" (any 2 to 10 characters, http/routes/guilds.ts), not one of
 * the API's named locales. It has no hub_type: Student Hubs are the API's, and of the guild the spec says "Other guild
 * fields: not shown".
 */
export type ParleyGuild = Omit<APIGuild, 'emojis' | 'stickers' | 'preferred_locale' | 'hub_type'> & {
  emojis: ParleyEmoji[];
  stickers: ParleySticker[];
  preferred_locale: string;
  member_count: number;
};
