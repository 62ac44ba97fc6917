// What moderators read and do: auto-moderation rules (presenters/autoModeration.ts), the audit log
// (presenters/auditLog.ts), prunes and bulk bans.
import { answeredTimestamp, anyObject, boolean, integer, list, nullable, object, snowflakeSchema, snowflakes, string } from './schema.js';
import { User } from './users.js';

export const AutoModerationRule = object('An auto-moderation rule (presenters/autoModeration.ts); trigger_metadata holds its trigger type’s fields.', {
  id: snowflakeSchema,
  guild_id: snowflakeSchema,
  name: string,
  creator_id: snowflakeSchema,
  event_type: integer,
  trigger_type: integer,
  trigger_metadata: anyObject,
  actions: list(object('An action and its metadata.', { type: integer }, { metadata: anyObject })),
  enabled: boolean,
  exempt_roles: snowflakes,
  exempt_channels: snowflakes,
});

export const AuditLogEntry = object(
  'An audit log entry.',
  { id: snowflakeSchema, action_type: integer, target_id: nullable(string), user_id: nullable(snowflakeSchema), timestamp: answeredTimestamp },
  { changes: list(anyObject), options: anyObject, reason: string },
);

export const AuditLog = object('A page of the guild’s audit log, newest first, with the users and webhooks it names.', {
  entries: list(AuditLogEntry),
  audit_log_entries: { ...list(AuditLogEntry), description: 'The same entries, under the widely used API’s name.' },
  users: list(User),
  webhooks: list(anyObject),
});

export const PruneCount = object('How many members a prune removes (null when its count was not asked for).', { pruned: nullable(integer) });

export const BulkBanResult = object('The users a bulk ban banned, and those it could not.', { banned_users: snowflakes, failed_users: snowflakes });
