// Guild payloads of the gateway, from the read models and with the REST presenters, in the shapes discord.js reads:
// GUILD_CREATE with `unavailable: false`, channels with guild_id and string bitfields, roles with @everyone
// (id = guild id), and members with their user objects. The gateway projector waits for the read models to include
// an event before building from them.
import { apiTimestamp, channelObject, guildObject, memberObject, partialUser, roleObject } from '../presenters/objects.js';
import type { GatewayDeps } from './deps.js';
import type { ChannelDoc } from '../projections/channels.js';
import type { GuildDoc, RoleDoc } from '../projections/guilds.js';
import { type MemberDoc, memberKey } from '../projections/members.js';
import type { UserDoc } from '../projections/users.js';

/** Guilds with up to this many members send all of them in GUILD_CREATE; bigger ones send the session's own. */
const FULL_MEMBER_LIST = 250;

export async function usersById(runtime: GatewayDeps, ids: string[]): Promise<Map<string, UserDoc>> {
  const docs = ids.length ? await runtime.readStore.find<UserDoc>('users', { _id: { $in: ids } }) : [];
  return new Map(docs.map((d) => [d._id, d]));
}

export async function userPartial(runtime: GatewayDeps, userId: string) {
  const user = (await usersById(runtime, [userId])).get(userId);
  return user ? partialUser(user) : { id: userId };
}

export async function guildPayload(runtime: GatewayDeps, guildId: string) {
  const guild = await runtime.readStore.findOne<GuildDoc>('guilds', { _id: guildId });
  if (!guild) return null;
  return guildObject(guild, await runtime.readStore.find<RoleDoc>('roles', { guild_id: guildId }));
}

export async function rolePayload(runtime: GatewayDeps, roleId: string) {
  const role = await runtime.readStore.findOne<RoleDoc>('roles', { _id: roleId });
  return role ? roleObject(role) : null;
}

export async function channelPayload(runtime: GatewayDeps, channelId: string) {
  const channel = await runtime.readStore.findOne<ChannelDoc>('channels', { _id: channelId });
  return channel ? channelObject(channel) : null;
}

export async function memberPayload(runtime: GatewayDeps, guildId: string, userId: string) {
  const member = await runtime.readStore.findOne<MemberDoc>('members', { _id: memberKey(guildId, userId) });
  const user = (await usersById(runtime, [userId])).get(userId);
  return member && user ? { guild_id: guildId, ...memberObject(member, user) } : null;
}

export async function guildCreatePayload(runtime: GatewayDeps, guildId: string, userId: string) {
  const [guild, own] = await Promise.all([guildPayload(runtime, guildId), runtime.readStore.findOne<MemberDoc>('members', { _id: memberKey(guildId, userId) })]);
  if (!guild || !own) return null;
  const large = guild.member_count > FULL_MEMBER_LIST;
  const members = large ? [own] : await runtime.readStore.find<MemberDoc>('members', { guild_id: guildId });
  const users = await usersById(runtime, members.map((m) => m.user_id));
  const channels = await runtime.readStore.find<ChannelDoc>('channels', { guild_id: guildId });
  return {
    ...guild,
    joined_at: apiTimestamp(own.joined_at),
    large,
    unavailable: false,
    members: members.filter((m) => users.has(m.user_id)).map((m) => memberObject(m, users.get(m.user_id)!)),
    channels: channels.map(channelObject),
    threads: [],
    presences: [],
    voice_states: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}

/** The guilds a user is a member of. */
export async function guildIdsOf(runtime: GatewayDeps, userId: string): Promise<string[]> {
  const docs = await runtime.readStore.find<MemberDoc>('members', { user_id: userId });
  return docs.map((d) => d.guild_id);
}
