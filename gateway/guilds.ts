// Guild payloads of the gateway, built from the guild aggregate's state (the command side keeps it cached), in the
// shapes discord.js reads: GUILD_CREATE with `unavailable: false`, channels with guild_id and string bitfields,
// roles with @everyone (id = guild id), and members with their user objects.
import { guildDecider } from '../domain/guild.js';
import type { ChannelData, GuildState, MemberData, RoleData } from '../domain/guildState.js';
import type { Runtime } from '../infra/runtime.js';
import { partialUser } from '../http/presenters.js';
import type { UserDoc } from '../projections/users.js';

/** Guilds with up to this many members send all of them in GUILD_CREATE; bigger ones send the session's own. */
const FULL_MEMBER_LIST = 250;

export async function loadGuild(runtime: Runtime, guildId: string): Promise<GuildState> {
  return (await runtime.commands.load(`guild-${guildId}`, guildDecider)).state;
}

export function roleObject(role: RoleData) {
  return { ...role, icon: null, unicode_emoji: null, managed: false, flags: 0 };
}

export function channelObject(guildId: string, channel: ChannelData) {
  return { ...channel, guild_id: guildId, last_message_id: null };
}

export function memberObject(member: MemberData, user: UserDoc | undefined) {
  return {
    user: user ? partialUser(user) : { id: member.user_id },
    nick: member.nick,
    avatar: null,
    roles: member.roles,
    joined_at: member.joined_at,
    premium_since: null,
    deaf: member.deaf,
    mute: member.mute,
    flags: 0,
    pending: false,
    communication_disabled_until: null,
  };
}

export async function usersById(runtime: Runtime, ids: string[]): Promise<Map<string, UserDoc>> {
  const docs = ids.length ? await runtime.readStore.find<UserDoc>('users', { _id: { $in: ids } }) : [];
  return new Map(docs.map((d) => [d._id, d]));
}

export function guildObject(state: GuildState) {
  const s = state.settings;
  return {
    id: state.id,
    name: s.name,
    icon: s.icon,
    description: s.description,
    splash: null,
    discovery_splash: null,
    banner: null,
    owner_id: s.owner_id,
    afk_channel_id: s.afk_channel_id,
    afk_timeout: s.afk_timeout,
    verification_level: s.verification_level,
    default_message_notifications: s.default_message_notifications,
    explicit_content_filter: s.explicit_content_filter,
    roles: [...state.roles.values()].map(roleObject),
    emojis: [],
    stickers: [],
    features: [],
    mfa_level: 0,
    application_id: null,
    system_channel_id: s.system_channel_id,
    system_channel_flags: s.system_channel_flags,
    rules_channel_id: null,
    public_updates_channel_id: null,
    vanity_url_code: state.vanityCode,
    premium_tier: 0,
    premium_subscription_count: 0,
    preferred_locale: s.preferred_locale,
    nsfw_level: 0,
    premium_progress_bar_enabled: false,
    member_count: state.members.size,
  };
}

export async function guildCreatePayload(runtime: Runtime, guildId: string, userId: string) {
  const state = await loadGuild(runtime, guildId);
  const own = state.members.get(userId);
  if (state.status !== 'active' || !own) return null;
  const members = state.members.size <= FULL_MEMBER_LIST ? [...state.members.values()] : [own];
  const users = await usersById(runtime, members.map((m) => m.user_id));
  return {
    ...guildObject(state),
    joined_at: own.joined_at,
    large: state.members.size > FULL_MEMBER_LIST,
    unavailable: false,
    members: members.map((m) => memberObject(m, users.get(m.user_id))),
    channels: [...state.channels.values()].map((c) => channelObject(guildId, c)),
    threads: [],
    presences: [],
    voice_states: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}

/** The guilds a user is a member of, from the members read model. */
export async function guildIdsOf(runtime: Runtime, userId: string): Promise<string[]> {
  const docs = await runtime.readStore.find<{ _id: string; guild_id: string }>('members', { user_id: userId });
  return docs.map((d) => d.guild_id);
}
