// Invite objects, for stored invites and vanity codes alike, in the form discord.js can read.
import type { InviteData } from '../domain/invite.js';
import type { ChannelDoc } from '../projections/channels.js';
import type { GuildDoc } from '../projections/guilds.js';
import type { InviteDoc } from '../projections/invites.js';
import type { UserDoc } from '../projections/users.js';
import type { ParleyInvite } from './differences.js';
import { apiTimestamp } from './timestamps.js';
import { partialUser } from './users.js';

/** An invite document, or a vanity code seen as an invite (no inviter, no creation time). */
export type InviteView = Omit<InviteData, 'inviter_id' | 'created_at'> &
  Pick<InviteDoc, 'expires_at'> & { inviter_id: string | null; created_at: string | null };

/**
 * An invite with the spec's fields (code, guild, channel, inviter, uses, max_uses, max_age, temporary, created_at),
 * the flat ids of its created/listed form (channel_id, inviter_id), and the widely used API's type and expires_at.
 * Without an inviter or a creation time (a vanity code) those fields are absent, not null: the widely used API
 * documents them as optional but never null, and discord.js reads `inviter.id` whenever the key is there.
 */
export function inviteObject(doc: InviteView, guild: GuildDoc, channel: ChannelDoc | null, inviter: UserDoc | null): ParleyInvite {
  return {
    code: doc.code,
    type: doc.pack_id ? 2 : 0,
    guild_id: doc.guild_id,
    guild: {
      id: guild._id,
      name: guild.name,
      icon: guild.icon,
      splash: guild.splash ?? null,
      banner: guild.banner ?? null,
      description: guild.description,
      features: [],
      verification_level: guild.verification_level,
      vanity_url_code: guild.vanity_url_code,
      nsfw_level: 0,
      premium_subscription_count: 0,
    },
    channel_id: doc.channel_id,
    channel: channel ? { id: channel._id, name: channel.name, type: channel.type } : null,
    pack_id: doc.pack_id,
    // A pack is the guild's stickers: named after the guild.
    ...(doc.pack_id ? { pack: { id: doc.pack_id, name: `${guild.name} stickers`, guild_id: guild._id } } : {}),
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
