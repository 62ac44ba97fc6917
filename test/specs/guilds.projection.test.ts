// Projection specs of the guild read models: given events → the guilds, roles, members and bans documents.
import { describe, it } from 'vitest';
import { guildsProjection } from '../../projections/guilds.js';
import { membersProjection } from '../../projections/members.js';
import { EARLIER, by, givenProjections } from './support.js';
import {
  EVERYONE_PERMISSIONS,
  G,
  GENERAL,
  MEMBER_ROLE,
  MOD_PERMISSIONS,
  MOD_ROLE,
  ada,
  bob,
  cy,
  finn,
  guildCreated,
  joined,
  memberRole,
  mod,
  roleCreated,
  rolesAdded,
} from './events.js';

const guilds = givenProjections(guildsProjection);
const members = givenProjections(membersProjection);
const both = givenProjections(guildsProjection, membersProjection);
const BANNED_AT = '2025-02-01T00:00:00.000Z';
const banned = (userId: string, removedMember: boolean) =>
  ({ type: 'MemberBanned', data: { guildId: G, userId, deleteMessageSeconds: 0, removedMember, bannedAt: BANNED_AT } }) as const;
const ownerJoined = joined(ada, { inviteCode: null });

describe('guilds projection', () => {
  it('makes a created guild a document of its settings, with no vanity code and no members yet', () =>
    guilds().when(guildCreated).then('guilds', G, {
      _id: G,
      name: 'Spec Guild',
      owner_id: ada.id,
      system_channel_id: GENERAL,
      afk_timeout: 300,
      vanity_url_code: null,
      vanity_url_uses: 0,
      member_count: 0,
      created_at: EARLIER,
    }));

  it("makes the guild's @everyone role a role document with the guild's id", () =>
    guilds().when(guildCreated).then('roles', G, { _id: G, guild_id: G, name: '@everyone', position: 0, permissions: EVERYONE_PERMISSIONS.toString() }));

  it('counts a member in on joining and out on leaving or being kicked', async () => {
    await guilds(guildCreated).when(ownerJoined, joined(bob), joined(cy)).then('guilds', G, { member_count: 3 });
    await guilds(guildCreated, ownerJoined, joined(bob), joined(cy))
      .when({ type: 'MemberLeft', data: { guildId: G, userId: bob.id } }, { type: 'MemberKicked', data: { guildId: G, userId: cy.id } })
      .then('guilds', G, { member_count: 1 });
  });

  it('counts a banned member out, but not a banned user who never joined', () =>
    guilds(guildCreated, ownerJoined, joined(bob)).when(banned(bob.id, true), banned(finn.id, false)).then('guilds', G, { member_count: 1 }));

  it('counts a use of the vanity code only for joins through it', () =>
    guilds(guildCreated, { type: 'VanityCodeSet', data: { guildId: G, code: 'spec', previousCode: null } })
      .when(joined(bob, { inviteCode: 'spec', vanity: true }), joined(cy, { inviteCode: 'other', vanity: false }))
      .then('guilds', G, { vanity_url_code: 'spec', vanity_url_uses: 1, member_count: 2 }));

  it('shifts the roles at and above a new role up by one', async () => {
    const given = guilds(guildCreated, roleCreated(MEMBER_ROLE, 'member', 0n, 1)).when(roleCreated(MOD_ROLE, 'mod', MOD_PERMISSIONS, 1));
    await given.then('roles', MOD_ROLE, { guild_id: G, name: 'mod', position: 1, permissions: MOD_PERMISSIONS.toString() });
    await given.then('roles', MEMBER_ROLE, { position: 2 });
  });

  it('removes the guild and its roles when the guild is deleted', async () => {
    const given = guilds(guildCreated, roleCreated(MOD_ROLE, 'mod', MOD_PERMISSIONS, 1)).when({ type: 'GuildDeleted', data: { guildId: G, vanityCode: null } });
    await given.then('guilds', G, null);
    await given.thenFind('roles', { guild_id: G }, []);
  });
});

describe('members projection', () => {
  it('makes a joined member a document keyed guild:user, with no nick and no roles', () =>
    members(guildCreated)
      .when(joined(bob, { temporary: true }))
      .then('members', `${G}:${bob.id}`, {
        _id: `${G}:${bob.id}`,
        guild_id: G,
        user_id: bob.id,
        nick: null,
        roles: [],
        joined_at: EARLIER,
        deaf: false,
        mute: false,
        temporary: true,
      }));

  it('removes the member document when the member leaves', () =>
    members(joined(bob))
      .when({ type: 'MemberLeft', data: { guildId: G, userId: bob.id } })
      .then('members', `${G}:${bob.id}`, null));

  it("adds granted roles to the member's roles once, and removes taken ones", () =>
    members(joined(cy), rolesAdded(cy, mod))
      .when(rolesAdded(cy, mod, memberRole), { type: 'MemberUpdated', data: { guildId: G, userId: cy.id, changes: [{ key: '$remove', new_value: [mod] }] } })
      .then('members', `${G}:${cy.id}`, { roles: [MEMBER_ROLE] }));

  it("sets the member's nick", () =>
    members(joined(bob))
      .when({ type: 'MemberUpdated', data: { guildId: G, userId: bob.id, changes: [{ key: 'nick', old_value: null, new_value: 'bobby' }] } })
      .then('members', `${G}:${bob.id}`, { nick: 'bobby', roles: [] }));

  it("takes a deleted role out of every member's roles", () =>
    members(joined(bob), joined(cy), rolesAdded(bob, memberRole), rolesAdded(cy, mod, memberRole))
      .when({
        type: 'RoleDeleted',
        data: { guildId: G, role: { id: MEMBER_ROLE, name: 'member', color: 0, hoist: false, mentionable: false, permissions: '0', position: 1 } },
      })
      .thenFind('members', { guild_id: G }, [
        { user_id: bob.id, roles: [] },
        { user_id: cy.id, roles: [MOD_ROLE] },
      ]));

  it('removes a banned member and records the ban with the reason of the request that banned', async () => {
    const given = members(joined(bob)).when(by(cy.id, banned(bob.id, true), { reason: 'spam' }));
    await given.then('members', `${G}:${bob.id}`, null);
    await given.then('bans', `${G}:${bob.id}`, { guild_id: G, user_id: bob.id, reason: 'spam', created_at: BANNED_AT });
  });

  it('records a ban without a reason as reason null', () =>
    members()
      .when(by(cy.id, banned(finn.id, false)))
      .then('bans', `${G}:${finn.id}`, { user_id: finn.id, reason: null }));

  it('removes the ban when the user is unbanned', () =>
    members(banned(bob.id, true))
      .when({ type: 'MemberUnbanned', data: { guildId: G, userId: bob.id } })
      .then('bans', `${G}:${bob.id}`, null));

  it("removes the guild's members and bans when the guild is deleted", async () => {
    const given = both(guildCreated, joined(bob), banned(finn.id, false)).when({ type: 'GuildDeleted', data: { guildId: G, vanityCode: null } });
    await given.thenFind('members', { guild_id: G }, []);
    await given.thenFind('bans', { guild_id: G }, []);
  });
});
