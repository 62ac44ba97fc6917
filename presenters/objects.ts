// Response shapes of the widely used API, built from read-model documents.
import type { MemberData } from '../domain/guildState.js';
import type { InviteData } from '../domain/invite.js';
import type { AuditEntryDoc } from '../projections/auditLog.js';
import type { ChannelDoc } from '../projections/channels.js';
import type { GuildDoc, RoleDoc } from '../projections/guilds.js';
import type { InteractionDoc } from '../projections/interactions.js';
import type { InviteDoc } from '../projections/invites.js';
import type { BanDoc } from '../projections/members.js';
import type { UserDoc } from '../projections/users.js';

/**
 * A time (stored ISO 8601, or epoch milliseconds) as the widely used API sends it: ISO 8601 with microseconds and
 * `+00:00`. Its clients depend on the form: discord.py reads timestamps with datetime.fromisoformat, which before
 * Python 3.11 refuses the `Z` of toISOString. Every presented timestamp goes through here; stored data keeps its form.
 */
export function apiTimestamp(time: string | number): string;
export function apiTimestamp(time: string | number | null): string | null;
export function apiTimestamp(time: string | number | null): string | null {
  return time === null ? null : new Date(time).toISOString().replace('Z', '000+00:00');
}

/** A user object with every field of the spec's table; `self` adds what only its owner sees. */
export function userObject(doc: UserDoc, self = false) {
  return {
    id: doc._id,
    username: doc.username,
    discriminator: doc.discriminator,
    global_name: null,
    avatar: doc.avatar,
    bot: doc.bot,
    system: doc.system,
    mfa_enabled: doc.mfa_enabled,
    locale: doc.locale,
    flags: doc.flags,
    premium_type: doc.premium_type,
    public_flags: doc.public_flags,
    banner: null,
    accent_color: null,
    ...(self && !doc.bot ? { email: doc.email, verified: doc.verified } : {}),
    ...(self && doc.bot ? { verified: true } : {}),
  };
}

/** The partial user embedded in other objects. */
export function partialUser(doc: UserDoc) {
  return { id: doc._id, username: doc.username, discriminator: doc.discriminator, global_name: null, avatar: doc.avatar, bot: doc.bot, public_flags: doc.public_flags };
}

/** A role object; the service has no managed roles, role icons or role flags. */
export function roleObject(doc: RoleDoc) {
  return {
    id: doc._id,
    name: doc.name,
    color: doc.color,
    colors: { primary_color: doc.color, secondary_color: null, tertiary_color: null },
    hoist: doc.hoist,
    icon: null,
    unicode_emoji: null,
    position: doc.position,
    permissions: doc.permissions,
    managed: false,
    mentionable: doc.mentionable,
    flags: 0,
  };
}

/** A full guild object, with the fields clients of the widely used API read (features they lack are off or empty). */
export function guildObject(doc: GuildDoc, roles: RoleDoc[]) {
  return {
    id: doc._id,
    name: doc.name,
    icon: doc.icon,
    icon_hash: doc.icon,
    splash: null,
    discovery_splash: null,
    banner: null,
    description: doc.description,
    owner_id: doc.owner_id,
    afk_channel_id: doc.afk_channel_id,
    afk_timeout: doc.afk_timeout,
    widget_enabled: false,
    widget_channel_id: null,
    verification_level: doc.verification_level,
    default_message_notifications: doc.default_message_notifications,
    explicit_content_filter: doc.explicit_content_filter,
    roles: [...roles].sort((a, b) => a.position - b.position).map(roleObject),
    emojis: [],
    stickers: [],
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
export function partialGuild(doc: GuildDoc, userId: string, permissions: bigint) {
  return {
    id: doc._id,
    name: doc.name,
    icon: doc.icon,
    banner: null,
    owner: doc.owner_id === userId,
    permissions: permissions.toString(),
    features: [],
  };
}

/** A channel's last_pin_timestamp, once a pin has set it (null again after the last unpin). */
export const lastPinTimestamp = (doc: Record<string, unknown>) =>
  doc.last_pin_timestamp === undefined ? {} : { last_pin_timestamp: apiTimestamp(doc.last_pin_timestamp as string | null) };

/** A guild channel object: the fields of its type (the read model keeps only those) and its guild. */
export function channelObject(doc: ChannelDoc) {
  const { _id, ...fields } = doc;
  return { id: _id, ...fields, ...lastPinTimestamp(doc), flags: 0 };
}

/** A member object, from the read model's document or the guild aggregate's member. */
export function memberObject(doc: MemberData, user: UserDoc) {
  return {
    user: partialUser(user),
    nick: doc.nick,
    avatar: null,
    banner: null,
    roles: doc.roles,
    joined_at: apiTimestamp(doc.joined_at),
    premium_since: null,
    deaf: doc.deaf,
    mute: doc.mute,
    flags: 0,
    pending: false,
    communication_disabled_until: null,
  };
}

export function banObject(doc: BanDoc, user: UserDoc) {
  return { reason: doc.reason, user: partialUser(user) };
}

/** An invite document, or a vanity code seen as an invite (no inviter, no creation time). */
export type InviteView = Omit<InviteData, 'inviter_id' | 'created_at'> & Pick<InviteDoc, 'expires_at'> & { inviter_id: string | null; created_at: string | null };

/**
 * An invite with the spec's fields (code, guild, channel, inviter, uses, max_uses, max_age, temporary, created_at),
 * the flat ids of its created/listed form (channel_id, inviter_id), and the widely used API's type and expires_at.
 * Without an inviter or a creation time (a vanity code) those fields are absent, not null: the widely used API
 * documents them as optional but never null, and discord.js reads `inviter.id` whenever the key is there.
 */
export function inviteObject(doc: InviteView, guild: GuildDoc, channel: ChannelDoc | null, inviter: UserDoc | null) {
  return {
    code: doc.code,
    type: doc.pack_id ? 2 : 0,
    guild_id: doc.guild_id,
    guild: { id: guild._id, name: guild.name, icon: guild.icon, splash: null, banner: null, description: guild.description, features: [], verification_level: guild.verification_level, vanity_url_code: guild.vanity_url_code, nsfw_level: 0, premium_subscription_count: 0 },
    channel_id: doc.channel_id,
    channel: channel ? { id: channel._id, name: channel.name, type: channel.type } : null,
    pack_id: doc.pack_id,
    inviter_id: doc.inviter_id,
    ...(inviter ? { inviter: partialUser(inviter) } : {}),
    uses: doc.uses,
    max_uses: doc.max_uses,
    max_age: doc.max_age,
    temporary: doc.temporary,
    ...(doc.created_at !== null ? { created_at: apiTimestamp(doc.created_at) } : {}),
    expires_at: apiTimestamp(doc.expires_at),
    approximate_member_count: guild.member_count,
  };
}

export function auditEntryObject(doc: AuditEntryDoc) {
  return {
    id: doc._id,
    action_type: doc.action_type,
    target_id: doc.target_id,
    user_id: doc.user_id,
    ...(doc.changes.length ? { changes: doc.changes } : {}),
    ...(doc.options ? { options: doc.options } : {}),
    ...(doc.reason ? { reason: doc.reason } : {}),
    timestamp: apiTimestamp(doc.timestamp),
  };
}

/** A click with its delivery attempts, as the webhook's managers read them. */
export function interactionObject({ _id, clicked_at, next_attempt_at, attempts, ...fields }: InteractionDoc) {
  return {
    id: _id,
    ...fields,
    clicked_at: apiTimestamp(clicked_at),
    next_attempt_at: apiTimestamp(next_attempt_at),
    attempts: attempts.map((attempt) => ({ ...attempt, started_at: apiTimestamp(attempt.started_at), finished_at: apiTimestamp(attempt.finished_at) })),
  };
}
