// Where Parley's objects differ on purpose from the widely used API's, as discord-api-types states that API: each
// difference is the spec's (quoted from its field tables), declared here once. Presenters return these types, so a
// field that is neither the API's nor declared here is a compile error.
import type { APIDMChannel, APIEmoji, APIGroupDMChannel, APIGuild, APIMessage, APISticker } from 'discord-api-types/v10';
import type { Component } from '../domain/components.js';

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

/**
 * A message. Its components are the spec's, not the API's stricter union: a button's "custom_id | string | for styles
 * 1-4" and "url | string | for style 5" are one shape, and "Types 4 (modal submit) and 5-8 (user, role, mentionable,
 * channel selects) are accepted by the schema but not rendered; they are passed through opaquely to the bot."
 */
export type ParleyMessage = Omit<APIMessage, 'components' | 'referenced_message'> & {
  components?: Component[];
  referenced_message?: ParleyMessage | null;
};

/**
 * A DM. The spec names "DM" and "group DM" among the channel kinds and gives no DM fields; a DM is named by its
 * recipient, so it has no `name` (the API sends `name: null`).
 */
export type ParleyDMChannel = Omit<APIDMChannel, 'name'>;

/**
 * A group DM. Its owner is typed as the read model keeps it for every DM channel, nullable (a 1:1 DM has none); a
 * group DM always has its creator there.
 */
export type ParleyGroupDMChannel = Omit<APIGroupDMChannel, 'owner_id'> & { owner_id: string | null };
