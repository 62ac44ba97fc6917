// Who may see a guild channel's dispatches: the guild's members with VIEW_CHANNEL there, by the shared permission
// function over the guild aggregate's state (loaded once per dispatch, from the command side's cache).
import { canViewChannel, loadGuild } from '../commands/access.js';
import type { GatewayDeps } from './deps.js';
import type { ChannelVisibility } from './dispatch.js';

export function channelVisibility(runtime: GatewayDeps): ChannelVisibility {
  return async (guildId, channelId) => {
    const state = await loadGuild(runtime, guildId);
    if (!state.channels.has(channelId)) return () => false;
    return (userId) => canViewChannel(state, userId, channelId);
  };
}
