// Reads of the member activity read model.
import type { ReadStore } from '../ports/readStore.js';
import { MEMBER_ACTIVITY } from './collections.js';
import type { MemberActivityDoc } from './memberActivity.js';

/** The guild's members with no activity since `since` (an ISO time), by user id. */
export async function membersInactiveSince(read: Pick<ReadStore, 'find'>, guildId: string, since: string): Promise<string[]> {
  const docs = await read.find<MemberActivityDoc>(MEMBER_ACTIVITY, { guild_id: guildId, last_active_at: { $lt: since } });
  return docs.map((doc) => doc.user_id);
}
