// GET /guilds/:guild_id/audit-logs: the guild's audit entries, newest first, with the users and webhooks they name.
import { AuditLog } from '../../contracts/moderation.js';
import type { Context } from 'koa';
import { readAuditLog } from '../../commands/auditLog.js';
import { invalidForm } from '../../domain/errors.js';
import type { Doc } from '../../ports/readStore.js';
import { requireAuth } from '../auth.js';
import { guildParams } from '../params.js';
import { auditEntryObject } from '../../presenters/auditLog.js';
import { partialUser } from '../../presenters/users.js';
import type { LimitSpec } from '../rateLimit.js';
import { route } from '../route.js';
import { MAX_INT32, pageLimit, queryInteger, snowflakeSchema } from '../validation.js';

export const auditQuery = {
  type: 'object',
  properties: {
    limit: pageLimit(100, 50),
    before: snowflakeSchema,
    after: snowflakeSchema,
    user_id: snowflakeSchema,
    action_type: queryInteger(1, MAX_INT32),
  },
} as const;

/** A webhook as the audit log embeds it: never its token. */
const auditWebhook = (doc: Doc) => ({
  id: doc._id,
  type: 1,
  guild_id: doc.guild_id ?? null,
  channel_id: doc.channel_id ?? null,
  name: doc.name ?? null,
  avatar: doc.avatar ?? null,
  application_id: null,
});

/** The spec: 5 per 10 seconds per guild with a burst of 10, enforced per IP and per token. */
const perGuild = (bucket: string, key: (ctx: Context) => string): LimitSpec => ({
  bucket,
  points: 5,
  durationSeconds: 10,
  burst: 5,
  key: (ctx) => `${ctx.params.guildId}:${key(ctx)}`,
});

export const auditLogRoute = route({
  method: 'GET',
  path: '/guilds/:guildId/audit-logs',
  summary: 'Get a guild’s audit log',
  description: 'Needs VIEW_AUDIT_LOG. Newest first; `before` and `after` exclude each other. Limited per guild, per client address and per token.',
  tag: 'Audit log',
  auth: 'any',
  params: guildParams,
  query: auditQuery,
  limits: [perGuild('audit-logs:ip', (ctx) => ctx.ip), perGuild('audit-logs:token', (ctx) => ctx.state.auth?.tokenHash ?? 'anonymous')],
  responses: { 200: { description: 'A page of entries with the users and webhooks they name.', schema: AuditLog } },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params: { guildId }, query }, deps) {
    if (query.before && query.after) throw invalidForm([{ path: 'before', message: 'before and after cannot be used together' }]);
    const { entries, users, webhooks } = await readAuditLog(deps, guildId, requireAuth(ctx).userId, query);
    const objects = entries.map(auditEntryObject);
    // `entries` is the spec's name; clients of the widely used API read `audit_log_entries` and the empty lists.
    return {
      entries: objects,
      audit_log_entries: objects,
      users: users.map(partialUser),
      webhooks: webhooks.map(auditWebhook),
      integrations: [],
      threads: [],
      application_commands: [],
      auto_moderation_rules: [],
      guild_scheduled_events: [],
    };
  },
});

export const auditLogRoutes = [auditLogRoute];
