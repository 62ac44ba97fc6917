// The audit log route (http/routes/auditLog.ts).
import { guildParams } from '../params.js';
import { auditQuery } from '../routes/auditLog.js';
import { ref } from './components.js';
import type { RouteDoc } from './entry.js';

export const auditLogDocs: RouteDoc[] = [
  {
    method: 'GET',
    path: '/guilds/:guildId/audit-logs',
    summary: 'Get a guild’s audit log',
    description: 'Needs VIEW_AUDIT_LOG. Newest first; `before` and `after` exclude each other. Limited per guild, per client address and per token.',
    tag: 'Audit log',
    auth: 'any',
    params: guildParams,
    query: auditQuery,
    responses: { 200: { description: 'A page of entries with the users and webhooks they name.', schema: ref('AuditLog') } },
    errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS', 'RATE_LIMITED'],
  },
];
