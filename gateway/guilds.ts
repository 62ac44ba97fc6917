// Guild payloads of the gateway, from the read models and with the REST presenters, in the shapes discord.js reads:
// GUILD_CREATE with `unavailable: false`, channels with guild_id and string bitfields, roles with @everyone
// (id = guild id), and members with their user objects. The gateway projector waits for the read models to include
// an event before building from them.
import { channelObject } from '../presenters/channels.js';
import { guildObject } from '../presenters/guilds.js';
import { memberObject } from '../presenters/members.js';
import { roleObject } from '../presenters/roles.js';
import { apiTimestamp } from '../presenters/timestamps.js';
import { partialUser } from '../presenters/users.js';
import type { GatewayDeps } from './deps.js';
import { channelById, channelsOfGuildUnordered } from '../projections/channels.queries.js';
import { emojisOfGuild, stickersOfGuild } from '../projections/expressions.queries.js';
import type { UserDoc } from '../projections/users.js';
import { guildById, roleById, rolesOfGuildUnordered } from '../projections/guilds.queries.js';
import { memberOf, membersOfGuild, membershipsOf, requestedMembers } from '../projections/members.queries.js';
import { usersByIds } from '../projections/users.queries.js';
import { voiceStatesOfGuild } from '../projections/voiceStates.queries.js';
import { voiceStateObject } from '../presenters/voiceStates.js';
import { ChannelType } from '../domain/channel.js';
import { loadGuild, loadGuildNow, threadsVisibleTo } from '../commands/access.js';
import { DomainError } from '../domain/errors.js';
import { guildPermissions } from '../domain/guildState.js';
import { hasPermission } from '../domain/permissions.js';
import { activeThreadsOfGuild, threadMembershipsOf } from '../projections/threads.queries.js';
import { threadDocObject, threadMemberObject } from '../presenters/threads.js';

/** Guilds with up to this many members are not large: GUILD_CREATE lists all of them to a session that may see them all. */
const FULL_MEMBER_LIST = 250;

export async function usersById(runtime: GatewayDeps, ids: string[]): Promise<Map<string, UserDoc>> {
  const docs = ids.length ? await usersByIds(runtime.readStore, ids) : [];
  return new Map(docs.map((d) => [d._id, d]));
}

/** The members who hold `permission` in the guild as it stands (none once it is gone). */
export async function membersWith(runtime: GatewayDeps, guildId: string, permission: bigint): Promise<string[]> {
  try {
    const guild = await loadGuild(runtime, guildId);
    return [...guild.members.keys()].filter((userId) => hasPermission(guildPermissions(guild, userId), permission));
  } catch (error) {
    if (error instanceof DomainError) return [];
    throw error;
  }
}

export async function userPartial(runtime: GatewayDeps, userId: string) {
  const user = (await usersById(runtime, [userId])).get(userId);
  return user ? partialUser(user) : { id: userId };
}

export async function guildPayload(runtime: GatewayDeps, guildId: string) {
  const guild = await guildById(runtime.readStore, guildId);
  if (!guild) return null;
  const [roles, emojis, stickers] = await Promise.all([
    rolesOfGuildUnordered(runtime.readStore, guildId),
    emojisOfGuild(runtime.readStore, guildId),
    stickersOfGuild(runtime.readStore, guildId),
  ]);
  return guildObject(guild, roles, { emojis, stickers, origin: runtime.config.publicBaseUrl });
}

export async function rolePayload(runtime: GatewayDeps, roleId: string) {
  const role = await roleById(runtime.readStore, roleId);
  return role ? roleObject(role) : null;
}

export async function channelPayload(runtime: GatewayDeps, channelId: string) {
  const channel = await channelById(runtime.readStore, channelId);
  return channel ? channelObject(channel) : null;
}

/** The member object of a user in a guild, with its user; null when they are not a member. */
export async function guildMember(runtime: GatewayDeps, guildId: string, userId: string) {
  const [member, users] = await Promise.all([memberOf(runtime.readStore, guildId, userId), usersById(runtime, [userId])]);
  const user = users.get(userId);
  return member && user ? memberObject(member, user) : null;
}

export async function memberPayload(runtime: GatewayDeps, guildId: string, userId: string) {
  const member = await guildMember(runtime, guildId, userId);
  return member ? { guild_id: guildId, ...member } : null;
}

/** The members GUILD_CREATE lists to a session without GUILD_PRESENCES (or of a large guild): the user's own and those in voice channels. */
function listedWithoutPresences(userId: string, voiceStates: readonly { user_id: string }[]): Set<string> {
  return new Set([userId, ...voiceStates.map((state) => state.user_id)]);
}

/**
 * GUILD_CREATE for a user. Its members, as the widely used API sends them: every member when `everyMember` (a session
 * with GUILD_PRESENCES) and the guild is not large; otherwise only the user's own and those in voice channels. No
 * default: a caller that forgot the session's intents would show every member to a session that may not see them.
 */
export async function guildCreatePayload(runtime: GatewayDeps, guildId: string, userId: string, { everyMember }: { everyMember: boolean }) {
  const [guild, own, channels, voiceStates] = await Promise.all([
    guildPayload(runtime, guildId),
    memberOf(runtime.readStore, guildId, userId),
    channelsOfGuildUnordered(runtime.readStore, guildId),
    voiceStatesOfGuild(runtime.readStore, guildId),
  ]);
  if (!guild || !own) return null;
  const large = guild.member_count > FULL_MEMBER_LIST;
  const members =
    everyMember && !large
      ? await membersOfGuild(runtime.readStore, guildId)
      : await requestedMembers(runtime.readStore, guildId, [...listedWithoutPresences(userId, voiceStates)]);
  const users = await usersById(
    runtime,
    members.map((m) => m.user_id),
  );
  const byUser = new Map(members.map((m) => [m.user_id, m]));
  const stages = new Set(channels.filter((c) => c.type === ChannelType.GUILD_STAGE_VOICE).map((c) => c._id));
  return {
    ...guild,
    joined_at: apiTimestamp(own.joined_at),
    large,
    unavailable: false,
    members: members.filter((m) => users.has(m.user_id)).map((m) => memberObject(m, users.get(m.user_id)!)),
    channels: channels.map(channelObject),
    threads: await guildCreateThreads(runtime, guildId, userId),
    presences: [],
    voice_states: voiceStates.map((state) => voiceStateObject(state, byUser.get(state.user_id) ?? null, stages.has(state.channel_id))),
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}

type GuildCreate = NonNullable<Awaited<ReturnType<typeof guildCreatePayload>>>;

/**
 * The user's GUILD_CREATE built with `everyMember`, as a session without GUILD_PRESENCES receives it instead: its
 * members only the user's own and those in voice channels. Derived in memory, so one join reads the guild once for
 * both kinds of session.
 */
export function guildCreateWithoutPresences(guildCreate: GuildCreate, userId: string): GuildCreate {
  const listed = listedWithoutPresences(userId, guildCreate.voice_states);
  return { ...guildCreate, members: guildCreate.members.filter((member) => listed.has(member.user.id)), presences: [] };
}

/** The guild's active threads the user sees (only those of `parentIds` when given), and the user's own memberships of them. */
export async function visibleActiveThreads(runtime: GatewayDeps, guildId: string, userId: string, parentIds?: ReadonlySet<string>) {
  const [guild, active, memberships] = await Promise.all([
    loadGuildNow(runtime, guildId),
    activeThreadsOfGuild(runtime.readStore, guildId),
    threadMembershipsOf(runtime.readStore, guildId, userId),
  ]);
  const joined = new Map(memberships.map((m) => [m.thread_id, m]));
  const listed = parentIds ? active.filter((doc) => parentIds.has(doc.parent_id)) : active;
  const threads = threadsVisibleTo(guild, userId, listed, new Set(joined.keys()));
  return { threads, own: (threadId: string) => joined.get(threadId) };
}

/** GUILD_CREATE's threads: each joined one with the user's own thread member as `member`, as the widely used API sends them. */
async function guildCreateThreads(runtime: GatewayDeps, guildId: string, userId: string) {
  const { threads, own } = await visibleActiveThreads(runtime, guildId, userId);
  return threads.map((doc) => {
    const member = own(doc._id);
    return { ...threadDocObject(doc), ...(member ? { member: threadMemberObject(member) } : {}) };
  });
}

/** The guilds a user is a member of. */
export async function guildIdsOf(runtime: GatewayDeps, userId: string): Promise<string[]> {
  const docs = await membershipsOf(runtime.readStore, userId);
  return docs.map((d) => d.guild_id);
}
