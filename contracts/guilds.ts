// Guild objects (presenters/guilds.ts): the full one of guild endpoints and GUILD_CREATE, and the partial one listing a
// user's guilds. developers/resources/guild.mdx, "Guild Structure".
import { anyArray, anyObject, boolean, integer, list, nullable, object, snowflakeSchema, string, nullableId, nullableString } from './schema.js';
import { Emoji, Sticker } from './expressions.js';
import { Role } from './roles.js';

export const Guild = object(
  'A guild (presenters/guilds.ts), with its roles, custom emojis and stickers.',
  {
    id: snowflakeSchema,
    name: string,
    icon: nullableString,
    splash: nullableString,
    discovery_splash: nullableString,
    owner_id: snowflakeSchema,
    afk_channel_id: nullableId,
    afk_timeout: integer,
    verification_level: integer,
    default_message_notifications: integer,
    explicit_content_filter: integer,
    roles: list(Role),
    emojis: list(Emoji),
    stickers: list(Sticker),
    features: { ...anyArray, items: string },
    mfa_level: integer,
    application_id: nullableId,
    system_channel_id: nullableId,
    system_channel_flags: integer,
    rules_channel_id: nullableId,
    vanity_url_code: nullableString,
    description: nullableString,
    banner: nullableString,
    premium_tier: integer,
    preferred_locale: string,
    public_updates_channel_id: nullableId,
    nsfw_level: integer,
    premium_progress_bar_enabled: boolean,
    safety_alerts_channel_id: nullableId,
    incidents_data: nullable(anyObject),
    member_count: integer,
  },
  {
    icon_hash: nullableString,
    owner: boolean,
    permissions: string,
    region: nullableString,
    widget_enabled: boolean,
    widget_channel_id: nullableId,
    max_presences: nullable(integer),
    max_members: integer,
    premium_subscription_count: integer,
    max_video_channel_users: integer,
    max_stage_video_channel_users: integer,
    approximate_member_count: integer,
    approximate_presence_count: integer,
    welcome_screen: anyObject,
  },
);

export const PartialGuild = object(
  'A guild in the caller’s list, with the caller’s permissions in it.',
  {
    id: snowflakeSchema,
    name: string,
    icon: nullableString,
    banner: nullableString,
    owner: boolean,
    permissions: string,
    features: { ...anyArray, items: string },
  },
  { approximate_member_count: integer, approximate_presence_count: integer },
);
