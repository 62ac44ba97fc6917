// A guild's audit log, read by holders of VIEW_AUDIT_LOG (403 for other members, 404 for outsiders): a page of its
// entries, newest first, with the users and webhooks they name.
import { Permission, requirePermission } from '../domain/permissions.js';
import { type AuditEntryDoc, USER_TARGETED_ACTIONS, WEBHOOK_ACTIONS } from '../projections/auditLog.js';
import { auditLogPage } from '../projections/auditLog.queries.js';
import type { PageQuery } from '../projections/paging.js';
import type { UserDoc } from '../projections/users.js';
import { usersByIds } from '../projections/users.queries.js';
import type { WebhookDoc } from '../projections/webhooks.js';
import { webhooksByIds } from '../projections/webhooks.queries.js';
import { guildAccess } from './access.js';
import type { Uses } from './deps.js';

export interface AuditLogPage {
  entries: AuditEntryDoc[];
  /** The actors, and the users the entries are about. */
  users: UserDoc[];
  /** The webhooks the entries are about. */
  webhooks: WebhookDoc[];
}

/** A page of the entries, of one actor and one action type if given. */
export async function readAuditLog(
  deps: Uses<'commands' | 'readStore' | 'clock'>,
  guildId: string,
  readerId: string,
  query: PageQuery & { user_id?: string; action_type?: number },
): Promise<AuditLogPage> {
  const { permissions } = await guildAccess(deps, guildId, readerId);
  requirePermission(permissions, Permission.VIEW_AUDIT_LOG);
  const entries = await auditLogPage(deps.readStore, guildId, { user_id: query.user_id, action_type: query.action_type }, query);
  const userIds = new Set(entries.flatMap((e) => [e.user_id, USER_TARGETED_ACTIONS.includes(e.action_type) ? e.target_id : null]).filter((id) => id !== null));
  const webhookIds = entries.flatMap((e) => (WEBHOOK_ACTIONS.includes(e.action_type) && e.target_id ? [e.target_id] : []));
  const [users, webhooks] = await Promise.all([
    userIds.size ? usersByIds(deps.readStore, [...userIds]) : [],
    webhookIds.length ? webhooksByIds(deps.readStore, webhookIds) : [],
  ]);
  return { entries, users, webhooks };
}
