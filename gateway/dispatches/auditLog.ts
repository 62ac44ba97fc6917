// GUILD_AUDIT_LOG_ENTRY_CREATE: each new audit entry, as GET /guilds/:id/audit-logs presents it, to the guild's members
// who may read the log (VIEW_AUDIT_LOG) with the GUILD_MODERATION intent. The widely used API sends it to bots alone;
// Parley sends it to people's sessions too, so a moderator's console follows the log live.
import { Permission } from '../../domain/permissions.js';
import { auditEntryObject } from '../../presenters/auditLog.js';
import { AUDITED_EVENT_TYPES, auditEntryOf } from '../../projections/auditLog.js';
import { membersWith } from '../guilds.js';
import { Intent } from '../protocol.js';
import { deriver, dispatch } from './deriver.js';

export const auditLogDispatches = deriver({
  handles: AUDITED_EVENT_TYPES,
  async derive(event, runtime) {
    const entry = auditEntryOf(event);
    if (!entry) return [];
    const users = await membersWith(runtime, entry.guild_id, Permission.VIEW_AUDIT_LOG);
    if (users.length === 0) return [];
    return [
      dispatch(
        'GUILD_AUDIT_LOG_ENTRY_CREATE',
        { ...auditEntryObject(entry), guild_id: entry.guild_id },
        { intent: Intent.GUILD_MODERATION, audience: { users } },
      ),
    ];
  },
});
