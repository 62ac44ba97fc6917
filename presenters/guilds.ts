// Guild objects: the full one of guild endpoints and GUILD_CREATE, and the partial one listing a user's guilds.
import type { APIGuild, RESTAPIPartialCurrentUserGuild } from 'discord-api-types/v10';
import type { EmojiDoc, StickerDoc } from '../projections/expressions.js';
import type { GuildDoc, RoleDoc } from '../projections/guilds.js';
import type { ParleyGuild } from './differences.js';
import { emojiObject } from './emojis.js';
import { roleObject } from './roles.js';
import { stickerObject } from './stickers.js';

/** The guild's emojis and stickers, and the origin their image URLs are on. */
export interface GuildExpressions {
  emojis: EmojiDoc[];
  stickers: StickerDoc[];
  origin: string;
}

/** A full guild object, with the fields clients of the widely used API read (features they lack are off or empty). */
export function guildObject(doc: GuildDoc, roles: RoleDoc[], expressions: GuildExpressions): ParleyGuild {
  return {
    id: doc._id,
    name: doc.name,
    icon: doc.icon,
    icon_hash: doc.icon,
    splash: doc.splash ?? null,
    discovery_splash: doc.discovery_splash ?? null,
    banner: doc.banner ?? null,
    description: doc.description,
    owner_id: doc.owner_id,
    afk_channel_id: doc.afk_channel_id,
    // The only values the guild route's schema lets in (http/routes/guilds.ts); the read model types it as a number.
    afk_timeout: doc.afk_timeout as APIGuild['afk_timeout'],
    widget_enabled: false,
    widget_channel_id: null,
    verification_level: doc.verification_level,
    default_message_notifications: doc.default_message_notifications,
    explicit_content_filter: doc.explicit_content_filter,
    roles: [...roles].sort((a, b) => a.position - b.position).map(roleObject),
    emojis: expressions.emojis.map((emoji) => emojiObject(emoji, expressions.origin)),
    stickers: expressions.stickers.map((sticker) => stickerObject(sticker, expressions.origin)),
    features: [],
    mfa_level: 0,
    nsfw_level: 0,
    application_id: null,
    system_channel_id: doc.system_channel_id,
    system_channel_flags: doc.system_channel_flags,
    rules_channel_id: null,
    public_updates_channel_id: null,
    safety_alerts_channel_id: null,
    vanity_url_code: doc.vanity_url_code,
    premium_tier: 0,
    premium_subscription_count: 0,
    premium_progress_bar_enabled: false,
    preferred_locale: doc.preferred_locale,
    max_presences: null,
    max_members: 500000,
    max_video_channel_users: 25,
    max_stage_video_channel_users: 50,
    member_count: doc.member_count,
    approximate_member_count: doc.member_count,
    incidents_data: null,
  };
}

/** The partial guild of GET /users/@me/guilds, with the caller's permissions in it. */
export function partialGuild(doc: GuildDoc, userId: string, permissions: bigint): RESTAPIPartialCurrentUserGuild {
  return {
    id: doc._id,
    name: doc.name,
    icon: doc.icon,
    banner: doc.banner ?? null,
    owner: doc.owner_id === userId,
    permissions: permissions.toString(),
    features: [],
  };
}
