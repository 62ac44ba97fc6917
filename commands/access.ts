// Who may see and do what, for any route of any issue: the guild aggregate is the one source of permissions, loaded
// through the command handler's cache. Channel ids resolve to their guild through the channels read model.
import { guildDecider } from '../domain/guild.js';
import {
  type ChannelData,
  type GuildState,
  type MemberData,
  guildPermissions,
  requireMember,
  requireVisibleChannel,
  unknownChannel,
  unknownGuild,
} from '../domain/guildState.js';
import type { ChannelDoc } from '../projections/channels.js';
import type { CommandDeps } from './deps.js';
import { guildStream } from './streams.js';

/** The guild's current state; UNKNOWN_GUILD when it does not exist or was deleted. */
export async function loadGuild(deps: Pick<CommandDeps, 'commands'>, guildId: string): Promise<GuildState> {
  const { state } = await deps.commands.load(guildStream(guildId), guildDecider);
  if (state.status !== 'active') throw unknownGuild();
  return state;
}

export interface GuildAccess {
  guild: GuildState;
  member: MemberData;
  /** Guild-level permissions (no channel overwrites). */
  permissions: bigint;
}

/** The user's membership and guild-level permissions; UNKNOWN_GUILD when the guild is unknown or the user is not in it. */
export async function guildAccess(deps: Pick<CommandDeps, 'commands'>, guildId: string, userId: string): Promise<GuildAccess> {
  const guild = await loadGuild(deps, guildId);
  const member = requireMember(guild, userId);
  return { guild, member, permissions: guildPermissions(guild, userId) };
}

export interface ChannelAccess {
  guildId: string;
  guild: GuildState;
  channel: ChannelData;
  /** The user's permissions in the channel, overwrites applied; always includes VIEW_CHANNEL. */
  permissions: bigint;
}

/**
 * A guild channel the user can see, with their permissions in it. UNKNOWN_CHANNEL when the channel does not exist, is
 * not a guild channel, or the user is not a member of its guild or lacks VIEW_CHANNEL there.
 */
export async function channelAccess(deps: Pick<CommandDeps, 'commands' | 'readStore'>, channelId: string, userId: string): Promise<ChannelAccess> {
  const doc = await deps.readStore.findOne<ChannelDoc>('channels', { _id: channelId });
  if (!doc?.guild_id) throw unknownChannel();
  const { state: guild } = await deps.commands.load(guildStream(doc.guild_id), guildDecider);
  const { channel, permissions } = requireVisibleChannel(guild, userId, channelId);
  return { guildId: guild.id, guild, channel, permissions };
}
