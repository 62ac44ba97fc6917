// A route's `audit` field (the reference's x-audit-log-action) is held to the audit projection's own declaration of
// which event records which action (projections/auditLog.ts): every action a route names is one an audited event
// records, every action a request can cause is named by a route (or said here to come from elsewhere), and every route
// that changes something either names its action or is listed below as recording none. A new writing route must
// choose, so the field cannot drift from the projection again.
import { describe, expect, it } from 'vitest';
import { API_ROUTES } from '../../http/app.js';
import { AUDIT_ACTIONS_BY_EVENT, type AuditActionName } from '../../projections/auditLog.js';

const declared = (audit: AuditActionName | readonly AuditActionName[] | undefined): readonly AuditActionName[] =>
  audit === undefined ? [] : typeof audit === 'string' ? [audit] : audit;

const recordable = new Set([...AUDIT_ACTIONS_BY_EVENT.values()].flat());

/** Actions no route causes, and what does. */
const NOT_BY_A_ROUTE: Partial<Record<AuditActionName, string>> = {
  AUTO_MODERATION_BLOCK_MESSAGE: 'an AutoMod rule acting on a message (its execution), whichever route sent it',
  AUTO_MODERATION_FLAG_TO_CHANNEL: 'an AutoMod rule acting on a message (its execution), whichever route sent it',
  AUTO_MODERATION_USER_COMMUNICATION_DISABLED: 'an AutoMod rule acting on a message (its execution), whichever route sent it',
};

/** Routes that change state and record no audit entry (what they change is no guild's moderation record). */
const RECORD_NONE = new Set([
  'POST /auth/register',
  'POST /auth/login',
  'POST /applications',
  'POST /applications/:id/bot',
  'POST /applications/:id/bot/reset',
  'POST /applications/:id/reset',
  'PATCH /applications/@me',
  'PATCH /applications/:id',
  'PATCH /channels/:channelId/call',
  'POST /channels/:channelId/call/ring',
  'POST /channels/:channelId/call/stop-ringing',
  'POST /users/@me/channels',
  'PUT /channels/:channelId/recipients/:userId',
  'DELETE /channels/:channelId/recipients/:userId',
  // A rollback records the compensations it appends, each as the owner's action of its own kind.
  'POST /guilds/:guildId/rollbacks',
  'POST /guilds',
  'DELETE /users/@me/guilds/:guildId',
  'POST /interactions/click',
  'POST /interactions',
  'POST /interactions/:interactionId/:token/callback',
  // Joining by invite is no moderator's doing (a bot added through OAuth2 is: BOT_ADD).
  'POST /invites/:code',
  'PUT /guilds/:guildId/members/:userId',
  'POST /channels/:channelId/messages',
  'POST /channels/:channelId/typing',
  'PATCH /channels/:channelId/messages/:messageId',
  'DELETE /channels/:channelId/messages/:messageId',
  'PUT /channels/:channelId/messages/:messageId/reactions/:emoji/@me',
  'DELETE /channels/:channelId/messages/:messageId/reactions',
  'POST /oauth2/token',
  'POST /oauth2/token/revoke',
  'PUT /channels/:channelId/thread-members/@me',
  'DELETE /channels/:channelId/thread-members/@me',
  'PUT /channels/:channelId/thread-members/:userId',
  'DELETE /channels/:channelId/thread-members/:userId',
  'PATCH /users/@me',
  'POST /users/@me/delete',
  // A webhook's messages make no entry, as its posts through the code-host and Slack adapters.
  'POST /webhooks/:webhookId/:token',
  'POST /webhooks/:webhookId/:token/github',
  'POST /webhooks/:webhookId/:token/slack',
  'PATCH /webhooks/:applicationId/:token/messages/:message',
  'DELETE /webhooks/:applicationId/:token/messages/:message',
  // Application commands are the application's, not a guild's record.
  'POST /applications/:id/commands',
  'PUT /applications/:id/commands',
  'PATCH /applications/:id/commands/:commandId',
  'DELETE /applications/:id/commands/:commandId',
  'POST /applications/:id/guilds/:guildId/commands',
  'PUT /applications/:id/guilds/:guildId/commands',
  'PATCH /applications/:id/guilds/:guildId/commands/:commandId',
  'DELETE /applications/:id/guilds/:guildId/commands/:commandId',
  // A deleted guild's audit log goes with it.
  'DELETE /guilds/:guildId',
  'POST /guilds/:guildId/delete',
  // Message deletes, pins and reactions have no audit action here.
  'POST /channels/:channelId/messages/bulk-delete',
  'DELETE /channels/:channelId/messages/bulk-delete',
  'PUT /channels/:channelId/messages/pins/:messageId',
  'DELETE /channels/:channelId/messages/pins/:messageId',
  'PUT /channels/:channelId/pins/:messageId',
  'DELETE /channels/:channelId/pins/:messageId',
  'DELETE /channels/:channelId/messages/:messageId/reactions/:emoji/@me',
  'DELETE /channels/:channelId/messages/:messageId/reactions/:emoji/:userId',
  'DELETE /channels/:channelId/messages/:messageId/reactions/:emoji',
]);

const writing = API_ROUTES.filter((entry) => entry.method !== 'GET' && !entry.documentedBy);
const name = (entry: { method: string; path: string }) => `${entry.method} ${entry.path}`;

describe('audit actions, declared by the audit projection', () => {
  it('are the only actions a route names', () => {
    const unknown = API_ROUTES.flatMap((entry) =>
      declared(entry.audit)
        .filter((action) => !recordable.has(action))
        .map((action) => `${name(entry)}: ${action}`),
    );
    expect(unknown).toEqual([]);
  });

  it('are each named by a route that causes them, or caused by no route', () => {
    const named = new Set(API_ROUTES.flatMap((entry) => declared(entry.audit)));
    const unnamed = [...recordable].filter((action) => !named.has(action) && !NOT_BY_A_ROUTE[action]);
    expect(unnamed).toEqual([]);
    expect(Object.keys(NOT_BY_A_ROUTE).filter((action) => named.has(action as AuditActionName))).toEqual([]);
  });

  it('are named by every route that changes state, unless it records none', () => {
    expect(writing.length).toBeGreaterThan(50);
    expect(writing.filter((entry) => declared(entry.audit).length === 0 && !RECORD_NONE.has(name(entry))).map(name)).toEqual([]);
    expect(writing.filter((entry) => declared(entry.audit).length > 0 && RECORD_NONE.has(name(entry))).map(name)).toEqual([]);
    // A route listed here that no longer exists would hide a new one of the same name.
    expect([...RECORD_NONE].filter((listed) => !writing.some((entry) => name(entry) === listed))).toEqual([]);
  });
});
