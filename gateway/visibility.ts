// Who may see a guild channel's dispatches: the guild's members with VIEW_CHANNEL there, by the shared permission
// function over the guild aggregate's state (from the command side's cache; an event's dispatches share one load of it,
// gateway/eventLoads.ts). A thread's are seen by whom the thread's own rules let see it (a deleted thread's, by whom
// could see it before).
import { canViewChannel, loadGuild, loadThread } from '../commands/access.js';
import { threadPermissionsOf } from '../domain/thread.js';
import { Permission, hasPermission } from '../domain/permissions.js';
import type { GatewayDeps } from './deps.js';
import type { ChannelVisibility } from './dispatch.js';

export function channelVisibility(runtime: GatewayDeps): ChannelVisibility {
  return async (guildId, channelId) => {
    const state = await loadGuild(runtime, guildId);
    if (!state.channels.has(channelId)) {
      const thread = await loadThread(runtime, channelId);
      if (thread.thread?.guild_id !== guildId) return () => false;
      return (userId) => hasPermission(threadPermissionsOf(state, thread, userId), Permission.VIEW_CHANNEL);
    }
    return (userId) => canViewChannel(state, userId, channelId);
  };
}
