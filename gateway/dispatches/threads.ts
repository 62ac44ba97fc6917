// Dispatches of thread events. A thread's dispatches go to the guild's sessions that can see the thread (its parent's
// VIEW_CHANNEL; for a private thread, its members and MANAGE_THREADS holders), with GUILDS; member changes go with
// GUILD_MEMBERS, and to the member concerned with GUILDS alone, who in a private thread is also shown the thread.
import { loadThread } from '../../commands/access.js';
import { ThreadType } from '../../domain/thread.js';
import { threadById } from '../../projections/threads.queries.js';
import { NEW_THREAD_COUNTS, threadDocObject, threadMemberObject, threadObject } from '../../presenters/threads.js';
import type { GatewayDeps } from '../deps.js';
import type { Dispatch } from '../dispatch.js';
import { Intent } from '../protocol.js';
import { deriver, dispatch } from './deriver.js';

/** The thread now: the read model shows at least the event being dispatched, with its counts. */
async function currentThread(runtime: GatewayDeps, threadId: string) {
  const doc = await threadById(runtime.readStore, threadId);
  if (doc) return threadDocObject(doc);
  const state = await loadThread(runtime, threadId);
  return state.thread ? threadObject(state.thread, NEW_THREAD_COUNTS) : null;
}

const seers = (guildId: string, threadId: string, users: string[] = []) => ({ guildId, channelId: threadId, users });

export const threadDispatches = deriver({
  handles: ['ThreadCreated', 'ThreadUpdated', 'ThreadArchived', 'ThreadDeleted', 'ThreadMemberAdded', 'ThreadMemberRemoved'],
  async derive(event, runtime): Promise<Dispatch[]> {
    switch (event.type) {
      case 'ThreadCreated': {
        const { thread, guildId } = event.data;
        // Its creator joins in the same append: one member (none for a webhook's post).
        const members = event.data.byWebhook ? 0 : 1;
        const d = { ...threadObject(thread, { ...NEW_THREAD_COUNTS, member_count: members }), newly_created: true as const };
        return [dispatch('THREAD_CREATE', d, { intent: Intent.GUILDS, audience: seers(guildId, thread.id) })];
      }
      // An archiving by the service is a THREAD_UPDATE like anyone's.
      case 'ThreadUpdated':
      case 'ThreadArchived': {
        const d = await currentThread(runtime, event.data.threadId);
        return d ? [dispatch('THREAD_UPDATE', d, { intent: Intent.GUILDS, audience: seers(event.data.guildId, event.data.threadId) })] : [];
      }
      case 'ThreadDeleted': {
        const { id, guild_id, parent_id, type } = event.data.thread;
        return [dispatch('THREAD_DELETE', { id, guild_id, parent_id, type }, { intent: Intent.GUILDS, audience: seers(guild_id, id) })];
      }
      case 'ThreadMemberAdded': {
        const { guildId, threadId, userId, joinTimestamp, memberCount } = event.data;
        const member = threadMemberObject({ thread_id: threadId, user_id: userId, join_timestamp: joinTimestamp });
        const own = { users: [userId] };
        const dispatches: Dispatch[] = [];
        const state = await loadThread(runtime, threadId);
        // Someone added to a private thread could not see it before: they are shown it first.
        if (state.thread?.type === ThreadType.PRIVATE_THREAD && state.thread.owner_id !== userId) {
          const thread = await currentThread(runtime, threadId);
          if (thread) dispatches.push(dispatch('THREAD_CREATE', { ...thread, member }, { intent: Intent.GUILDS, audience: own }));
        }
        dispatches.push(
          dispatch('THREAD_MEMBER_UPDATE', { ...member, guild_id: guildId }, { intent: Intent.GUILDS, audience: own }),
          dispatch(
            'THREAD_MEMBERS_UPDATE',
            { id: threadId, guild_id: guildId, member_count: memberCount, added_members: [member] },
            { intent: Intent.GUILD_MEMBERS, audience: seers(guildId, threadId, [userId]), intentOf: { users: [userId], intent: Intent.GUILDS } },
          ),
        );
        return dispatches;
      }
      case 'ThreadMemberRemoved': {
        const { guildId, threadId, userId, memberCount } = event.data;
        return [
          dispatch(
            'THREAD_MEMBERS_UPDATE',
            { id: threadId, guild_id: guildId, member_count: memberCount, removed_member_ids: [userId] },
            { intent: Intent.GUILD_MEMBERS, audience: seers(guildId, threadId, [userId]), intentOf: { users: [userId], intent: Intent.GUILDS } },
          ),
        ];
      }
    }
  },
});
