// Given/when/then on the guild aggregate's moderation in bulk: prunes of inactive members and bulk bans.
import { describe, expect, it } from 'vitest';
import type { GuildEvent } from '../../domain/guild.js';
import { guildDecider } from '../../domain/guild.js';
import { PRUNE_CHUNK } from '../../domain/moderation.js';
import { DEFAULT_EVERYONE_PERMISSIONS, Permission } from '../../domain/permissions.js';
import { given } from '../support/given.js';

const EARLY = '2025-01-01T00:00:00.000Z';
const LATE = '2025-05-30T00:00:00.000Z';
/** The prune's cutoff: members inactive since before it are pruned. */
const SINCE = '2025-05-01T00:00:00.000Z';
const NOW = '2025-06-01T00:00:00.000Z';

const role = (id: string, permissions: bigint, position: number) => ({
  id,
  name: id,
  color: 0,
  hoist: false,
  mentionable: false,
  permissions: permissions.toString(),
  position,
});
const created: GuildEvent = {
  type: 'GuildCreated',
  data: {
    guildId: 'g',
    createdAt: EARLY,
    settings: {
      name: 'Guild',
      icon: null,
      description: null,
      owner_id: 'owner',
      verification_level: 0,
      default_message_notifications: 0,
      explicit_content_filter: 0,
      afk_channel_id: null,
      afk_timeout: 300,
      system_channel_id: null,
      system_channel_flags: 0,
      preferred_locale: 'en-US',
    },
    everyoneRole: role('g', DEFAULT_EVERYONE_PERMISSIONS, 0),
    channels: [],
  },
};
const joined = (userId: string, joinedAt = EARLY): GuildEvent => ({
  type: 'MemberJoined',
  data: { guildId: 'g', userId, joinedAt, inviteCode: null, vanity: false, temporary: false },
});
const roleCreated = (id: string, permissions: bigint, position: number): GuildEvent => ({
  type: 'RoleCreated',
  data: { guildId: 'g', role: role(id, permissions, position) },
});
const given_ = (userId: string, roleId: string): GuildEvent => ({
  type: 'MemberUpdated',
  data: { guildId: 'g', userId, changes: [{ key: '$add', new_value: [{ id: roleId, name: roleId }] }] },
});
const left = (userId: string): GuildEvent => ({ type: 'MemberLeft', data: { guildId: 'g', userId } });
const banned = (userId: string): GuildEvent => ({
  type: 'MemberBanned',
  data: { guildId: 'g', userId, deleteMessageSeconds: 0, removedMember: false, bannedAt: EARLY },
});

const MODERATOR = Permission.KICK_MEMBERS | Permission.BAN_MEMBERS | Permission.MANAGE_GUILD;
/** owner; mod (role "mod" at 3); helper (role "helper" at 2: above mod's "member"); alice and bob (no role); carol ("member" at 1). */
const guild: GuildEvent[] = [
  created,
  joined('owner'),
  roleCreated('member', 0n, 1),
  roleCreated('helper', 0n, 2),
  roleCreated('mod', MODERATOR, 3),
  roleCreated('kicker', Permission.KICK_MEMBERS | Permission.BAN_MEMBERS, 4),
  ...['mod', 'alice', 'bob', 'carol', 'kicker'].map((id) => joined(id)),
  given_('mod', 'mod'),
  given_('carol', 'member'),
  given_('kicker', 'kicker'),
];

const prune = (over: Partial<{ actorId: string; inactive: string[]; includeRoles: string[]; days: number }> = {}) => ({
  type: 'PruneMembers' as const,
  actorId: 'mod',
  days: 30,
  inactiveSince: SINCE,
  includeRoles: [],
  inactive: ['alice', 'bob'],
  ...over,
});
const pruned = (userIds: string[], part = 0, total = userIds.length): GuildEvent => ({
  type: 'MembersPruned',
  data: { guildId: 'g', userIds, days: 30, part, total },
});

describe('prune', () => {
  it('removes the inactive members without roles in one event carrying the days and the count', () =>
    given(guildDecider, guild)
      .when(prune())
      .then([pruned(['alice', 'bob'])]));

  it('keeps members with a role unless include_roles lists every role they have', () => {
    given(guildDecider, guild)
      .when(prune({ inactive: ['alice', 'carol'] }))
      .then([pruned(['alice'])]);
    given(guildDecider, guild)
      .when(prune({ inactive: ['alice', 'carol'], includeRoles: ['member'] }))
      .then([pruned(['alice', 'carol'])]);
  });

  it('never prunes the owner nor the actor, nor anyone who is no longer a member', () =>
    given(guildDecider, [...guild, left('bob')])
      .when(prune({ inactive: ['owner', 'mod', 'bob', 'alice', 'stranger'] }))
      .then([pruned(['alice'])]));

  it('keeps a member who joined (or came back) after the cutoff: joining counts as activity', () =>
    given(guildDecider, [...guild, left('bob'), joined('bob', LATE)])
      .when(prune())
      .then([pruned(['alice'])]));

  it('keeps included members whose role is not below the actor’s highest', () =>
    given(guildDecider, [...guild, given_('alice', 'helper'), roleCreated('top', 0n, 5), given_('bob', 'top')])
      .when(prune({ includeRoles: ['helper', 'top'] }))
      .then([pruned(['alice'])]));

  it('appends nothing when nobody is prunable', () =>
    given(guildDecider, guild)
      .when(prune({ inactive: [] }))
      .then([]));

  it('splits a large prune into events of at most PRUNE_CHUNK members, each with the whole count', () => {
    const many = Array.from({ length: PRUNE_CHUNK + 2 }, (_, i) => `u${i}`);
    const events = guildDecider.decide(
      prune({ inactive: many }),
      [...guild, ...many.map((id) => joined(id))].reduce(guildDecider.evolve, guildDecider.initialState()),
    );
    expect(events).toEqual([pruned(many.slice(0, PRUNE_CHUNK), 0, many.length), pruned(many.slice(PRUNE_CHUNK), 1, many.length)]);
  });

  it('needs KICK_MEMBERS and MANAGE_GUILD', () => {
    given(guildDecider, guild)
      .when(prune({ actorId: 'kicker' }))
      .thenRefuses('MISSING_PERMISSIONS');
    given(guildDecider, guild)
      .when(prune({ actorId: 'alice' }))
      .thenRefuses('MISSING_PERMISSIONS');
  });

  it('refuses include_roles naming an unknown role or @everyone, by index', () => {
    const error = given(guildDecider, guild)
      .when(prune({ includeRoles: ['member', 'nope', 'g'] }))
      .thenRefuses('INVALID_FORM_BODY');
    expect(error.errors?.map((e) => e.path)).toEqual(['include_roles.1', 'include_roles.2']);
  });
});

describe('bulk ban', () => {
  const ban = (userIds: string[], actorId = 'mod') => ({ type: 'BanMembers' as const, actorId, userIds, deleteMessageSeconds: 60, bannedAt: NOW });
  const bannedNow = (userId: string, removedMember: boolean): GuildEvent => ({
    type: 'MemberBanned',
    data: { guildId: 'g', userId, deleteMessageSeconds: 60, removedMember, bannedAt: NOW },
  });

  it('bans each user it can, members and not, once each', () =>
    given(guildDecider, guild)
      .when(ban(['alice', 'stranger', 'alice']))
      .then([bannedNow('alice', true), bannedNow('stranger', false)]));

  it('skips users already banned, the owner, the actor and members not below the actor', () =>
    given(guildDecider, [...guild, banned('stranger'), given_('bob', 'mod')])
      .when(ban(['stranger', 'owner', 'mod', 'bob', 'carol']))
      .then([bannedNow('carol', true)]));

  it('refuses as FAILED_TO_BAN_USERS when it can ban nobody', () =>
    given(guildDecider, [...guild, banned('stranger')])
      .when(ban(['stranger', 'owner']))
      .thenRefuses('FAILED_TO_BAN_USERS'));

  it('needs BAN_MEMBERS and MANAGE_GUILD', () => {
    given(guildDecider, guild)
      .when(ban(['alice'], 'kicker'))
      .thenRefuses('MISSING_PERMISSIONS');
    given(guildDecider, guild)
      .when(ban(['bob'], 'alice'))
      .thenRefuses('MISSING_PERMISSIONS');
  });
});
