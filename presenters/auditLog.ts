// Audit log entries, with the optional fields left out when empty, as the widely used API sends them.
import type { AuditEntryDoc } from '../projections/auditLog.js';
import type { ParleyAuditLogEntry } from './differences.js';
import { apiTimestamp } from './timestamps.js';

export function auditEntryObject(doc: AuditEntryDoc): ParleyAuditLogEntry {
  return {
    id: doc._id,
    action_type: doc.action_type,
    target_id: doc.target_id,
    user_id: doc.user_id,
    ...(doc.changes.length ? { changes: doc.changes } : {}),
    ...(doc.options ? { options: doc.options } : {}),
    ...(doc.reason ? { reason: doc.reason } : {}),
    timestamp: apiTimestamp(doc.timestamp),
  };
}
