// Reads of the audit log.
import type { Filter, ReadStore } from '../ports/readStore.js';
import type { AuditEntryDoc } from './auditLog.js';
import { AUDIT_LOG_ENTRIES } from './collections.js';
import { type PageQuery, findPage } from './paging.js';

/** One page of a guild's entries, newest first, optionally of one actor and one action type. */
export async function auditLogPage(
  read: Pick<ReadStore, 'find'>,
  guildId: string,
  only: { user_id?: string; action_type?: number },
  page: PageQuery,
): Promise<AuditEntryDoc[]> {
  const filter: Filter = { guild_id: guildId };
  if (only.user_id) filter.user_id = only.user_id;
  if (only.action_type) filter.action_type = only.action_type;
  return (await findPage<AuditEntryDoc>(read, AUDIT_LOG_ENTRIES, filter, '_id', page, true)).reverse();
}
