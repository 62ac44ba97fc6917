// Who may see a guild channel's dispatches: the guild's members with VIEW_CHANNEL there, by the shared permission
// function over the guild aggregate's state (loaded once per dispatch, from the command side's cache).
import { loadGuild } from '../commands/access.js';
import { channelPermissions } from '../domain/guildState.js';
import { Permission } from '../domain/permissions.js';
import type { GatewayDeps } from './deps.js';
import type { ChannelVisibility } from './dispatch.js';

export function channelVisibility(runtime: GatewayDeps): ChannelVisibility {
  return async (guildId, channelId) => {
    const state = await loadGuild(runtime, guildId);
    const channel = state.channels.get(channelId);
    if (!channel) return () => false;
    return (userId) => (channelPermissions(state, userId, channel) & Permission.VIEW_CHANNEL) !== 0n;
  };
}
