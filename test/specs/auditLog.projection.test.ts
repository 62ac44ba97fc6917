// Projection specs of the audit log: which events become entries, and each entry's action_type, target_id, changes,
// options, user_id and reason (the last two from the metadata of the request that caused the event).
import { describe, it } from 'vitest';
import { auditLogProjection } from '../../projections/auditLog.js';
import { EARLIER, by, givenProjections } from './support.js';
import { G, GENERAL, MOD_PERMISSIONS, MOD_ROLE, ada, bob, cy, guildCreated, joined, mod, roleCreated, rolesAdded, sent } from './events.js';

const audit = givenProjections(auditLogProjection);
const ENTRIES = 'audit_log_entries';
const kicked = (userId: string) => ({ type: 'MemberKicked', data: { guildId: G, userId } }) as const;

describe('audit log projection: member moderation', () => {
  it("records a kick with the kicked user as target, the moderator as user and the request's reason", () =>
    audit()
      .when(by(cy.id, kicked(bob.id), { reason: 'being rude' }))
      .thenFind(ENTRIES, { guild_id: G }, [
        { guild_id: G, action_type: 20, target_id: bob.id, user_id: cy.id, changes: [], options: null, reason: 'being rude', timestamp: EARLIER },
      ]));

  it('records a ban (22) with how many days and seconds of messages it deleted as options', () =>
    audit()
      .when(
        by(
          cy.id,
          { type: 'MemberBanned', data: { guildId: G, userId: bob.id, deleteMessageSeconds: 90000, removedMember: true, bannedAt: EARLIER } },
          { reason: 'spam' },
        ),
      )
      .thenFind(ENTRIES, { guild_id: G }, [
        { action_type: 22, target_id: bob.id, user_id: cy.id, reason: 'spam', options: { delete_message_days: '1', delete_message_seconds: '90000' } },
      ]));

  it('records an unban (23) with reason null when the request gave none', () =>
    audit()
      .when(by(cy.id, { type: 'MemberUnbanned', data: { guildId: G, userId: bob.id } }))
      .thenFind(ENTRIES, { guild_id: G }, [{ action_type: 23, target_id: bob.id, user_id: cy.id, reason: null }]));

  it('records a role grant as a member update (24) whose change names the roles added', () =>
    audit()
      .when(by(ada.id, rolesAdded(cy, mod)))
      .thenFind(ENTRIES, { guild_id: G }, [
        { action_type: 24, target_id: cy.id, user_id: ada.id, changes: [{ key: '$add', new_value: [{ id: MOD_ROLE, name: 'mod' }] }] },
      ]));
});

describe('audit log projection: guild, roles and channels', () => {
  it('records a created role (30) with its fields as new values, but not its id or position', () =>
    audit()
      .when(by(ada.id, roleCreated(MOD_ROLE, 'mod', MOD_PERMISSIONS, 1)))
      .thenFind(ENTRIES, { guild_id: G }, [
        {
          action_type: 30,
          target_id: MOD_ROLE,
          changes: [
            { key: 'name', new_value: 'mod' },
            { key: 'color', new_value: 0 },
            { key: 'hoist', new_value: false },
            { key: 'mentionable', new_value: false },
            { key: 'permissions', new_value: MOD_PERMISSIONS.toString() },
          ],
        },
      ]));

  it('records a guild update (1) and names an icon change icon_hash, as the audit log does', () =>
    audit()
      .when(
        by(ada.id, {
          type: 'GuildUpdated',
          data: {
            guildId: G,
            changes: [
              { key: 'icon', old_value: null, new_value: 'abc123' },
              { key: 'name', old_value: 'Spec Guild', new_value: 'Renamed' },
            ],
          },
        }),
      )
      .thenFind(ENTRIES, { guild_id: G }, [
        {
          action_type: 1,
          target_id: G,
          changes: [
            { key: 'icon_hash', old_value: null, new_value: 'abc123' },
            { key: 'name', old_value: 'Spec Guild', new_value: 'Renamed' },
          ],
        },
      ]));

  it('records a new overwrite on a channel as a channel update (11): the overwrite as options, its bits as new values', () =>
    audit()
      .when(
        by(ada.id, {
          type: 'ChannelOverwriteSet',
          data: { guildId: G, channelId: GENERAL, overwrite: { id: MOD_ROLE, type: 0, allow: '8192', deny: '0' }, previous: null },
        }),
      )
      .thenFind(ENTRIES, { guild_id: G }, [
        {
          action_type: 11,
          target_id: GENERAL,
          changes: [
            { key: 'allow', new_value: '8192' },
            { key: 'deny', new_value: '0' },
          ],
          options: { id: MOD_ROLE, type: '0' },
        },
      ]));
});

describe('audit log projection: what it keeps', () => {
  it('makes no entry for events that are not audited: guild creation, joins, messages', () =>
    audit()
      .when(by(ada.id, guildCreated), by(bob.id, joined(bob)), by(ada.id, sent()))
      .thenFind(ENTRIES, {}, []));

  it("keys each entry by a snowflake of the event's time whose low bits are its log position, so a rebuild writes the same ids", () =>
    // EARLIER is 315619200000 ms after the service epoch; the kick is the third event of the log.
    audit(by(ada.id, guildCreated), by(bob.id, joined(bob)))
      .when(by(cy.id, kicked(bob.id), { createdAt: EARLIER }))
      .then(ENTRIES, '1323802873036800003', { action_type: 20, target_id: bob.id }));

  it("removes a deleted guild's entries", () =>
    audit(by(cy.id, kicked(bob.id)), by(ada.id, rolesAdded(cy, mod)))
      .when(by(ada.id, { type: 'GuildDeleted', data: { guildId: G, vanityCode: null } }))
      .thenFind(ENTRIES, { guild_id: G }, []));
});
