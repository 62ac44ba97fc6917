// THREAD_LIST_SYNC: a member who gains VIEW_CHANNEL on a channel with active threads (an overwrite set or removed, a
// channel's overwrites replaced, a role's permissions or a member's roles changed) is sent the threads there they may
// now see and their own memberships of them, as the widely used API does. Who gained access is judged by the guild's
// state with the event and without it (the event undone from the state loaded now), and only where it can have
// changed: for the members with a session in the guild on this node (no one else could be sent it) whom the change
// concerns, in the channels with active threads whose permissions it changes. A large guild's role edit thus costs
// what its connected holders of the role do, not what all of its members do.
import { loadGuildNow } from '../../commands/access.js';
import { type Change, type GuildState, channelPermissions } from '../../domain/guildState.js';
import { type GuildEvent, guildDecider } from '../../domain/guild.js';
import { OverwriteType, Permission, hasPermission } from '../../domain/permissions.js';
import { threadDocObject, threadMemberObject } from '../../presenters/threads.js';
import { activeThreadsOfGuild } from '../../projections/threads.queries.js';
import type { Recorded } from '../../projections/projection.js';
import type { GatewayDeps } from '../deps.js';
import type { Dispatch } from '../dispatch.js';
import { visibleActiveThreads } from '../guilds.js';
import { Intent } from '../protocol.js';
import { deriver, dispatch } from './deriver.js';

const ACCESS_EVENTS = ['ChannelOverwriteSet', 'ChannelOverwriteDeleted', 'ChannelUpdated', 'RoleUpdated', 'MemberUpdated'] as const;
type AccessEvent = Recorded<(typeof ACCESS_EVENTS)[number]>;

/** Changes undone: values swapped, and roles given ($add) taken back ($remove) and the other way round. */
const ROLE_UNDO: Record<string, string> = { $add: '$remove', $remove: '$add' };
const reversed = (changes: Change[]): Change[] =>
  changes.map(({ key, old_value, new_value }) => (ROLE_UNDO[key] ? { key: ROLE_UNDO[key], new_value } : { key, old_value: new_value, new_value: old_value }));

/** The event that takes the guild's state back to before `event`. */
function undo(event: AccessEvent): GuildEvent {
  switch (event.type) {
    case 'ChannelOverwriteSet': {
      const { guildId, channelId, overwrite, previous } = event.data;
      return previous
        ? { type: 'ChannelOverwriteSet', data: { guildId, channelId, overwrite: previous, previous: overwrite } }
        : { type: 'ChannelOverwriteDeleted', data: { guildId, channelId, overwrite } };
    }
    case 'ChannelOverwriteDeleted':
      return { type: 'ChannelOverwriteSet', data: { ...event.data, previous: null } };
    case 'ChannelUpdated':
    case 'RoleUpdated':
    case 'MemberUpdated':
      return { type: event.type, data: { ...event.data, changes: reversed(event.data.changes) } } as GuildEvent;
  }
}

/** The channels whose permissions the event changes: the one whose overwrites it changes; null: every channel (a role's or a member's). */
const channelsChanged = (event: AccessEvent): string[] | null =>
  event.type === 'RoleUpdated' || event.type === 'MemberUpdated' ? null : [event.data.channelId];

/** Whether the event can change the member's permissions: their own update, a role or a role's overwrite they hold (@everyone's: anyone), their own overwrite, a channel's overwrites replaced. */
function concerns(event: AccessEvent, guild: GuildState, userId: string): boolean {
  const holds = (roleId: string) => roleId === guild.id || (guild.members.get(userId)?.roles.includes(roleId) ?? false);
  switch (event.type) {
    case 'MemberUpdated':
      return event.data.userId === userId;
    case 'RoleUpdated':
      return holds(event.data.roleId);
    case 'ChannelOverwriteSet':
    case 'ChannelOverwriteDeleted': {
      const { overwrite } = event.data;
      return overwrite.type === OverwriteType.MEMBER ? overwrite.id === userId : holds(overwrite.id);
    }
    case 'ChannelUpdated':
      return true;
  }
}

/** Of these channels, those the user sees in `after` and did not in `before`. */
function gained(before: GuildState, after: GuildState, userId: string, channelIds: Iterable<string>): string[] {
  const sees = (state: GuildState, channelId: string) => {
    const channel = state.channels.get(channelId);
    return channel !== undefined && hasPermission(channelPermissions(state, userId, channel), Permission.VIEW_CHANNEL);
  };
  return [...channelIds].filter((channelId) => !sees(before, channelId) && sees(after, channelId));
}

async function threadListSync(runtime: GatewayDeps, guildId: string, userId: string, channelIds: string[]): Promise<Dispatch> {
  const { threads, own } = await visibleActiveThreads(runtime, guildId, userId, new Set(channelIds));
  const members = threads.flatMap((doc) => {
    const member = own(doc._id);
    return member ? [threadMemberObject(member)] : [];
  });
  const d = { guild_id: guildId, channel_ids: channelIds, threads: threads.map(threadDocObject), members };
  return dispatch('THREAD_LIST_SYNC', d, { intent: Intent.GUILDS, audience: { users: [userId] } });
}

export const threadListSyncDispatches = deriver({
  handles: ACCESS_EVENTS,
  async derive(event, runtime, listeners) {
    const guildId = event.data.guildId;
    const listening = listeners.usersIn(guildId);
    if (listening.size === 0) return [];
    const parents = new Set((await activeThreadsOfGuild(runtime.readStore, guildId)).map((doc) => doc.parent_id));
    const changed = channelsChanged(event);
    const channels = changed ? changed.filter((channelId) => parents.has(channelId)) : [...parents];
    if (channels.length === 0) return [];
    const after = await loadGuildNow(runtime, guildId);
    if (after.status !== 'active') return [];
    const before = guildDecider.evolve(after, undo(event));
    const dispatches: Dispatch[] = [];
    for (const userId of listening) {
      if (!after.members.has(userId) || !concerns(event, after, userId)) continue;
      const channelIds = gained(before, after, userId, channels);
      if (channelIds.length) dispatches.push(await threadListSync(runtime, guildId, userId, channelIds));
    }
    return dispatches;
  },
});
