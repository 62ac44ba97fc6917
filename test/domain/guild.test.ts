// Given/when/then on the guild aggregate: settings, roles, members and bans, channels and overwrites.
import { describe, expect, it } from 'vitest';
import { fold } from '../../domain/decider.js';
import { type GuildEvent, guildDecider } from '../../domain/guild.js';
import { MAX_TIMEOUT_MS } from '../../domain/member.js';
import { initialGuildState } from '../../domain/guildState.js';
import { DEFAULT_EVERYONE_PERMISSIONS, Permission } from '../../domain/permissions.js';
import { given } from '../support/given.js';

const T = '2025-01-01T00:00:00.000Z';
const MOD_PERMISSIONS = (
  Permission.KICK_MEMBERS |
  Permission.BAN_MEMBERS |
  Permission.MANAGE_ROLES |
  Permission.MANAGE_NICKNAMES |
  Permission.MANAGE_CHANNELS |
  Permission.MANAGE_GUILD |
  Permission.MODERATE_MEMBERS
).toString();

const created = guildDecider.decide(
  { type: 'CreateGuild', guildId: 'g', ownerId: 'owner', name: 'Guild', icon: null, channelId: 'general', createdAt: T },
  initialGuildState(),
);
const joined = (userId: string): GuildEvent => ({
  type: 'MemberJoined',
  data: { guildId: 'g', userId, joinedAt: T, inviteCode: 'abc', vanity: false, temporary: false },
});
/** New roles enter at position 1 and push the others up: create them from the top down. */
const roleCreated = (id: string, permissions: string): GuildEvent => ({
  type: 'RoleCreated',
  data: { guildId: 'g', role: { id, name: id, color: 0, hoist: false, mentionable: false, permissions, position: 1 } },
});
const assigned = (userId: string, roleId: string): GuildEvent => ({
  type: 'MemberUpdated',
  data: { guildId: 'g', userId, changes: [{ key: '$add', new_value: [{ id: roleId, name: roleId }] }] },
});
const voice: GuildEvent = {
  type: 'ChannelCreated',
  data: {
    guildId: 'g',
    channel: { id: 'voice', type: 2, name: 'Voice', position: 1, parent_id: null, permission_overwrites: [], bitrate: 64000, user_limit: 0 },
  },
};
/** owner; mod (role "mod", position 2); alice (role "member", position 1); bob (no role). */
const guild: GuildEvent[] = [
  ...created,
  roleCreated('mod', MOD_PERMISSIONS),
  roleCreated('member', '0'),
  joined('mod'),
  joined('alice'),
  joined('bob'),
  assigned('mod', 'mod'),
  assigned('alice', 'member'),
];

describe('guild settings', () => {
  it('creates a guild with @everyone, #general and its owner as first member', () => {
    expect(created.map((e) => e.type)).toEqual(['GuildCreated', 'MemberJoined']);
    const state = fold(guildDecider, created);
    expect(state.roles.get('g')).toMatchObject({ name: '@everyone', position: 0, permissions: DEFAULT_EVERYONE_PERMISSIONS.toString() });
    expect(state.channels.get('general')).toMatchObject({ type: 0, name: 'general' });
    expect(state.settings.system_channel_id).toBe('general');
    expect([...state.members.keys()]).toEqual(['owner']);
    given(guildDecider, created)
      .when({ type: 'CreateGuild', guildId: 'g', ownerId: 'x', name: 'Again', icon: null, channelId: 'c', createdAt: T })
      .thenRefuses('GUILD_EXISTS');
  });

  it('records only what changes, and needs MANAGE_GUILD', () => {
    given(guildDecider, guild)
      .when({ type: 'UpdateGuild', actorId: 'mod', settings: { name: 'Renamed', afk_timeout: 300 } })
      .then([{ type: 'GuildUpdated', data: { guildId: 'g', changes: [{ key: 'name', old_value: 'Guild', new_value: 'Renamed' }] } }]);
    given(guildDecider, guild)
      .when({ type: 'UpdateGuild', actorId: 'alice', settings: { name: 'Mine' } })
      .thenRefuses('MISSING_PERMISSIONS');
    given(guildDecider, guild)
      .when({ type: 'UpdateGuild', actorId: 'stranger', settings: { name: 'Mine' } })
      .thenRefuses('UNKNOWN_GUILD');
  });

  it('lets only the owner transfer ownership, to a member', () => {
    given(guildDecider, guild)
      .when({ type: 'UpdateGuild', actorId: 'mod', settings: { owner_id: 'mod' } })
      .thenRefuses('MISSING_PERMISSIONS');
    given(guildDecider, guild)
      .when({ type: 'UpdateGuild', actorId: 'owner', settings: { owner_id: 'stranger' } })
      .thenRefuses('INVALID_FORM_BODY');
    given(guildDecider, guild)
      .when({ type: 'UpdateGuild', actorId: 'owner', settings: { owner_id: 'alice' } })
      .then([{ type: 'GuildUpdated', data: { guildId: 'g', changes: [{ key: 'owner_id', old_value: 'owner', new_value: 'alice' }] } }]);
  });

  it('accepts only a voice channel of the guild as AFK channel', () => {
    given(guildDecider, guild)
      .when({ type: 'UpdateGuild', actorId: 'owner', settings: { afk_channel_id: 'general' } })
      .thenRefuses('INVALID_FORM_BODY');
    given(guildDecider, [...guild, voice])
      .when({ type: 'UpdateGuild', actorId: 'owner', settings: { afk_channel_id: 'voice' } })
      .then([{ type: 'GuildUpdated', data: { guildId: 'g', changes: [{ key: 'afk_channel_id', old_value: null, new_value: 'voice' }] } }]);
  });

  it('lets only the owner delete, and a deleted guild is unknown', () => {
    given(guildDecider, guild).when({ type: 'DeleteGuild', actorId: 'mod' }).thenRefuses('MISSING_PERMISSIONS');
    given(guildDecider, guild)
      .when({ type: 'DeleteGuild', actorId: 'owner' })
      .then([{ type: 'GuildDeleted', data: { guildId: 'g', vanityCode: null } }]);
    const deleted: GuildEvent = { type: 'GuildDeleted', data: { guildId: 'g', vanityCode: null } };
    given(guildDecider, [...guild, deleted])
      .when({ type: 'UpdateGuild', actorId: 'owner', settings: { name: 'x' } })
      .thenRefuses('UNKNOWN_GUILD');
    given(guildDecider, [...guild, deleted])
      .when({ type: 'JoinGuild', userId: 'x', joinedAt: T, inviteCode: 'a', vanity: false, temporary: false })
      .thenRefuses('UNKNOWN_GUILD');
  });

  it('sets and removes the vanity code with MANAGE_GUILD', () => {
    given(guildDecider, guild)
      .when({ type: 'SetVanityCode', actorId: 'mod', code: 'cool' })
      .then([{ type: 'VanityCodeSet', data: { guildId: 'g', code: 'cool', previousCode: null } }]);
    const set: GuildEvent = { type: 'VanityCodeSet', data: { guildId: 'g', code: 'cool', previousCode: null } };
    given(guildDecider, [...guild, set])
      .when({ type: 'SetVanityCode', actorId: 'mod', code: 'cool' })
      .then([]);
    given(guildDecider, [...guild, set])
      .when({ type: 'SetVanityCode', actorId: 'owner', code: null })
      .then([{ type: 'VanityCodeSet', data: { guildId: 'g', code: null, previousCode: 'cool' } }]);
    given(guildDecider, guild).when({ type: 'SetVanityCode', actorId: 'alice', code: 'mine' }).thenRefuses('MISSING_PERMISSIONS');
  });
});

describe('roles', () => {
  it('creates roles at position 1, above @everyone, moving the others up', () => {
    const state = fold(guildDecider, guild);
    expect(state.roles.get('mod')!.position).toBe(2);
    expect(state.roles.get('member')!.position).toBe(1);
    given(guildDecider, guild)
      .when({ type: 'CreateRole', actorId: 'mod', roleId: 'new', fields: { name: 'Helpers' } })
      .then([
        {
          type: 'RoleCreated',
          data: {
            guildId: 'g',
            role: { id: 'new', name: 'Helpers', color: 0, hoist: false, mentionable: false, permissions: DEFAULT_EVERYONE_PERMISSIONS.toString(), position: 1 },
          },
        },
      ]);
  });

  it('refuses to grant permissions the actor lacks', () => {
    given(guildDecider, guild)
      .when({ type: 'CreateRole', actorId: 'mod', roleId: 'new', fields: { permissions: Permission.ADMINISTRATOR.toString() } })
      .thenRefuses('MISSING_PERMISSIONS');
    given(guildDecider, guild)
      .when({ type: 'CreateRole', actorId: 'owner', roleId: 'new', fields: { permissions: Permission.ADMINISTRATOR.toString() } })
      .then([expect.objectContaining({ type: 'RoleCreated' }) as never]);
  });

  it('enforces the hierarchy: only roles below your highest', () => {
    given(guildDecider, guild)
      .when({ type: 'UpdateRole', actorId: 'mod', roleId: 'mod', fields: { name: 'boss' } })
      .thenRefuses('MISSING_PERMISSIONS');
    given(guildDecider, guild)
      .when({ type: 'UpdateRole', actorId: 'mod', roleId: 'member', fields: { name: 'members', color: 0 } })
      .then([{ type: 'RoleUpdated', data: { guildId: 'g', roleId: 'member', changes: [{ key: 'name', old_value: 'member', new_value: 'members' }] } }]);
    given(guildDecider, guild).when({ type: 'DeleteRole', actorId: 'mod', roleId: 'mod' }).thenRefuses('MISSING_PERMISSIONS');
    given(guildDecider, guild).when({ type: 'DeleteRole', actorId: 'owner', roleId: 'g' }).thenRefuses('INVALID_ROLE');
    given(guildDecider, guild).when({ type: 'UpdateRole', actorId: 'owner', roleId: 'nope', fields: {} }).thenRefuses('UNKNOWN_ROLE');
  });

  it('reorders roles densely and refuses moves to or from above the actor', () => {
    given(guildDecider, guild)
      .when({ type: 'MoveRoles', actorId: 'owner', positions: [{ id: 'member', position: 2 }] })
      .then([
        { type: 'RoleUpdated', data: { guildId: 'g', roleId: 'mod', changes: [{ key: 'position', old_value: 2, new_value: 1 }] } },
        { type: 'RoleUpdated', data: { guildId: 'g', roleId: 'member', changes: [{ key: 'position', old_value: 1, new_value: 2 }] } },
      ]);
    given(guildDecider, guild)
      .when({ type: 'MoveRoles', actorId: 'mod', positions: [{ id: 'member', position: 2 }] })
      .thenRefuses('MISSING_PERMISSIONS');
    given(guildDecider, guild)
      .when({ type: 'MoveRoles', actorId: 'owner', positions: [{ id: 'g', position: 2 }] })
      .thenRefuses('INVALID_FORM_BODY');
  });

  it('takes a deleted role off members and overwrites, and closes up positions', () => {
    const overwrite: GuildEvent = {
      type: 'ChannelOverwriteSet',
      data: { guildId: 'g', channelId: 'general', overwrite: { id: 'member', type: 0, allow: '0', deny: '1024' }, previous: null },
    };
    const deleted: GuildEvent = { type: 'RoleDeleted', data: { guildId: 'g', role: fold(guildDecider, guild).roles.get('member')! } };
    const state = fold(guildDecider, [...guild, overwrite, deleted]);
    expect(state.members.get('alice')!.roles).toEqual([]);
    expect(state.channels.get('general')!.permission_overwrites).toEqual([]);
    expect(state.roles.get('mod')!.position).toBe(1);
  });
});

describe('members and bans', () => {
  it('joins once, and never when banned', () => {
    const join = { type: 'JoinGuild', userId: 'carol', joinedAt: T, inviteCode: 'abc', vanity: false, temporary: true } as const;
    given(guildDecider, guild)
      .when(join)
      .then([{ type: 'MemberJoined', data: { guildId: 'g', userId: 'carol', joinedAt: T, inviteCode: 'abc', vanity: false, temporary: true } }]);
    given(guildDecider, guild)
      .when({ ...join, userId: 'alice' })
      .then([]);
    const banned: GuildEvent = { type: 'MemberBanned', data: { guildId: 'g', userId: 'carol', deleteMessageSeconds: 0, removedMember: false, bannedAt: T } };
    given(guildDecider, [...guild, banned])
      .when(join)
      .thenRefuses('USER_BANNED');
  });

  it("counts an invite's use with the join it makes, up to max_uses, including the uses its own stream counted before", () => {
    const join = {
      type: 'JoinGuild',
      userId: 'carol',
      joinedAt: T,
      inviteCode: 'lim',
      vanity: false,
      temporary: false,
      invite: { maxUses: 3, usedBefore: 1 },
    } as const;
    const counted = (userId: string, inviteUses: number): GuildEvent => ({
      type: 'MemberJoined',
      data: { guildId: 'g', userId, joinedAt: T, inviteCode: 'lim', vanity: false, temporary: false, inviteUses },
    });
    given(guildDecider, guild)
      .when(join)
      .then([counted('carol', 2)]);
    given(guildDecider, [...guild, counted('dave', 2)])
      .when(join)
      .then([counted('carol', 3)]);
    given(guildDecider, [...guild, counted('dave', 2), counted('erin', 3)])
      .when(join)
      .thenRefuses('UNKNOWN_INVITE');
    // A member already in uses nothing, even at the limit; an unlimited invite counts on.
    given(guildDecider, [...guild, counted('carol', 2), counted('erin', 3)])
      .when(join)
      .then([]);
    given(guildDecider, [...guild, counted('dave', 2), counted('erin', 3)])
      .when({ ...join, invite: { maxUses: 0, usedBefore: 1 } })
      .then([counted('carol', 4)]);
  });

  it('records role changes as $add and $remove, within the hierarchy', () => {
    given(guildDecider, guild)
      .when({ type: 'UpdateMember', actorId: 'mod', userId: 'bob', roles: ['member'] })
      .then([{ type: 'MemberUpdated', data: { guildId: 'g', userId: 'bob', changes: [{ key: '$add', new_value: [{ id: 'member', name: 'member' }] }] } }]);
    given(guildDecider, guild)
      .when({ type: 'RemoveMemberRole', actorId: 'owner', userId: 'alice', roleId: 'member' })
      .then([{ type: 'MemberUpdated', data: { guildId: 'g', userId: 'alice', changes: [{ key: '$remove', new_value: [{ id: 'member', name: 'member' }] }] } }]);
    given(guildDecider, guild).when({ type: 'AddMemberRole', actorId: 'mod', userId: 'bob', roleId: 'mod' }).thenRefuses('MISSING_PERMISSIONS');
    given(guildDecider, guild).when({ type: 'AddMemberRole', actorId: 'alice', userId: 'bob', roleId: 'member' }).thenRefuses('MISSING_PERMISSIONS');
    given(guildDecider, guild).when({ type: 'AddMemberRole', actorId: 'mod', userId: 'bob', roleId: 'g' }).thenRefuses('UNKNOWN_ROLE');
    given(guildDecider, guild)
      .when({ type: 'UpdateMember', actorId: 'mod', userId: 'bob', roles: ['nope'] })
      .thenRefuses('INVALID_FORM_BODY');
    given(guildDecider, guild).when({ type: 'AddMemberRole', actorId: 'mod', userId: 'nobody', roleId: 'member' }).thenRefuses('UNKNOWN_MEMBER');
  });

  it('lets members change their own nickname, and moderators those below them', () => {
    given(guildDecider, guild)
      .when({ type: 'UpdateMember', actorId: 'bob', userId: 'bob', nick: 'Bobby' })
      .then([{ type: 'MemberUpdated', data: { guildId: 'g', userId: 'bob', changes: [{ key: 'nick', old_value: null, new_value: 'Bobby' }] } }]);
    given(guildDecider, guild).when({ type: 'UpdateMember', actorId: 'bob', userId: 'alice', nick: 'Al' }).thenRefuses('MISSING_PERMISSIONS');
    given(guildDecider, guild)
      .when({ type: 'UpdateMember', actorId: 'mod', userId: 'alice', nick: 'Al' })
      .then([expect.objectContaining({ type: 'MemberUpdated' }) as never]);
    given(guildDecider, guild).when({ type: 'UpdateMember', actorId: 'mod', userId: 'owner', nick: 'Boss' }).thenRefuses('MISSING_PERMISSIONS');
    const renamed: GuildEvent = {
      type: 'MemberUpdated',
      data: { guildId: 'g', userId: 'alice', changes: [{ key: 'nick', old_value: null, new_value: 'Al' }] },
    };
    expect(fold(guildDecider, [...guild, renamed]).members.get('alice')).toMatchObject({ nick: 'Al', roles: ['member'] });
  });

  it('lets only the member set their guild avatar and banner, even a moderator above them may not', () => {
    const hash = 'a'.repeat(32);
    given(guildDecider, guild)
      .when({ type: 'UpdateMember', actorId: 'bob', userId: 'bob', avatar: hash, banner: null })
      .then([{ type: 'MemberUpdated', data: { guildId: 'g', userId: 'bob', changes: [{ key: 'avatar', old_value: null, new_value: hash }] } }]);
    given(guildDecider, guild).when({ type: 'UpdateMember', actorId: 'mod', userId: 'bob', avatar: null }).thenRefuses('MISSING_PERMISSIONS');
    const pictured: GuildEvent = {
      type: 'MemberUpdated',
      data: { guildId: 'g', userId: 'bob', changes: [{ key: 'banner', old_value: null, new_value: hash }] },
    };
    expect(fold(guildDecider, [...guild, pictured]).members.get('bob')).toMatchObject({ banner: hash });
  });

  describe('timeouts', () => {
    const at = Date.parse(T);
    const hour = 60 * 60 * 1000;
    const later = (ms: number) => new Date(at + ms).toISOString();
    const timedOut = (userId: string, until: string | null, old: string | null = null): GuildEvent => ({
      type: 'MemberUpdated',
      data: { guildId: 'g', userId, changes: [{ key: 'communication_disabled_until', old_value: old, new_value: until }] },
    });
    /** As `guild`, with carol holding ADMINISTRATOR through a role below the moderator's. */
    const withAdmin: GuildEvent[] = [...guild, roleCreated('admin', Permission.ADMINISTRATOR.toString()), joined('carol'), assigned('carol', 'admin')];
    const timeout = (actorId: string, userId: string, until: string | null) =>
      ({ type: 'UpdateMember', actorId, userId, communicationDisabledUntil: until }) as const;

    it('times a member out for up to 28 days with MODERATE_MEMBERS, and lifts it', () => {
      given(guildDecider, guild)
        .when(timeout('mod', 'bob', later(hour)), at)
        .then([timedOut('bob', later(hour))]);
      given(guildDecider, guild)
        .when(timeout('mod', 'bob', later(MAX_TIMEOUT_MS)), at)
        .then([timedOut('bob', later(MAX_TIMEOUT_MS))]);
      const refused = given(guildDecider, guild)
        .when(timeout('mod', 'bob', later(MAX_TIMEOUT_MS + 1)), at)
        .thenRefuses('INVALID_FORM_BODY');
      expect(refused.errors?.map((e) => e.path)).toEqual(['communication_disabled_until']);
      given(guildDecider, [...guild, timedOut('bob', later(hour))])
        .when(timeout('mod', 'bob', null), at)
        .then([timedOut('bob', null, later(hour))]);
      given(guildDecider, guild)
        .when(timeout('mod', 'bob', null), at)
        .then([]);
      expect(fold(guildDecider, [...guild, timedOut('bob', later(hour))]).members.get('bob')).toMatchObject({ communication_disabled_until: later(hour) });
    });

    it('refuses without MODERATE_MEMBERS, on the owner, at or above the actor, and on administrators', () => {
      given(guildDecider, guild)
        .when(timeout('alice', 'bob', later(hour)), at)
        .thenRefuses('MISSING_PERMISSIONS');
      given(guildDecider, guild)
        .when(timeout('mod', 'owner', later(hour)), at)
        .thenRefuses('MISSING_PERMISSIONS');
      given(guildDecider, guild)
        .when(timeout('mod', 'mod', later(hour)), at)
        .thenRefuses('MISSING_PERMISSIONS');
      given(guildDecider, withAdmin)
        .when(timeout('mod', 'carol', later(hour)), at)
        .thenRefuses('MISSING_PERMISSIONS');
      given(guildDecider, guild)
        .when(timeout('mod', 'nobody', later(hour)), at)
        .thenRefuses('UNKNOWN_MEMBER');
    });

    it('times out the author of a rule’s TIMEOUT action whoever holds what, but never the owner or an administrator, nor shortens a longer one', () => {
      const byRule = (userId: string, until: string) => ({ type: 'TimeOutByRule', userId, until }) as const;
      given(guildDecider, guild)
        .when(byRule('bob', later(hour)), at)
        .then([timedOut('bob', later(hour))]);
      given(guildDecider, guild)
        .when(byRule('owner', later(hour)), at)
        .then([]);
      given(guildDecider, withAdmin)
        .when(byRule('carol', later(hour)), at)
        .then([]);
      given(guildDecider, [...guild, timedOut('bob', later(2 * hour))])
        .when(byRule('bob', later(hour)), at)
        .then([]);
      given(guildDecider, [...guild, timedOut('bob', later(hour))])
        .when(byRule('bob', later(2 * hour)), at)
        .then([timedOut('bob', later(2 * hour), later(hour))]);
      given(guildDecider, guild)
        .when(byRule('nobody', later(hour)), at)
        .then([]);
    });

    it('leaves a timed-out moderator nothing but reading until the timeout ends, judged at the decision time', () => {
      const history = [...guild, timedOut('mod', later(hour))];
      given(guildDecider, history).when({ type: 'KickMember', actorId: 'mod', userId: 'alice' }, at).thenRefuses('MISSING_PERMISSIONS');
      given(guildDecider, history)
        .when({ type: 'KickMember', actorId: 'mod', userId: 'alice' }, at + hour)
        .then([{ type: 'MemberKicked', data: { guildId: 'g', userId: 'alice' } }]);
    });
  });

  it('kicks and bans only below the actor, never the owner', () => {
    given(guildDecider, guild)
      .when({ type: 'KickMember', actorId: 'mod', userId: 'alice' })
      .then([{ type: 'MemberKicked', data: { guildId: 'g', userId: 'alice' } }]);
    given(guildDecider, guild).when({ type: 'KickMember', actorId: 'mod', userId: 'owner' }).thenRefuses('MISSING_PERMISSIONS');
    given(guildDecider, guild).when({ type: 'KickMember', actorId: 'mod', userId: 'mod' }).thenRefuses('MISSING_PERMISSIONS');
    given(guildDecider, guild).when({ type: 'KickMember', actorId: 'alice', userId: 'bob' }).thenRefuses('MISSING_PERMISSIONS');
    given(guildDecider, guild).when({ type: 'KickMember', actorId: 'mod', userId: 'nobody' }).thenRefuses('UNKNOWN_MEMBER');
    given(guildDecider, guild)
      .when({ type: 'BanMember', actorId: 'alice', userId: 'bob', deleteMessageSeconds: 0, bannedAt: T })
      .thenRefuses('MISSING_PERMISSIONS');
    given(guildDecider, guild)
      .when({ type: 'BanMember', actorId: 'mod', userId: 'owner', deleteMessageSeconds: 0, bannedAt: T })
      .thenRefuses('MISSING_PERMISSIONS');
  });

  it('bans members (removing them) and outsiders; unbans only bans', () => {
    given(guildDecider, guild)
      .when({ type: 'BanMember', actorId: 'mod', userId: 'alice', deleteMessageSeconds: 86400, bannedAt: T })
      .then([{ type: 'MemberBanned', data: { guildId: 'g', userId: 'alice', deleteMessageSeconds: 86400, removedMember: true, bannedAt: T } }]);
    given(guildDecider, guild)
      .when({ type: 'BanMember', actorId: 'mod', userId: 'outsider', deleteMessageSeconds: 0, bannedAt: T })
      .then([{ type: 'MemberBanned', data: { guildId: 'g', userId: 'outsider', deleteMessageSeconds: 0, removedMember: false, bannedAt: T } }]);
    const banned: GuildEvent = { type: 'MemberBanned', data: { guildId: 'g', userId: 'alice', deleteMessageSeconds: 0, removedMember: true, bannedAt: T } };
    expect(fold(guildDecider, [...guild, banned]).members.has('alice')).toBe(false);
    given(guildDecider, [...guild, banned])
      .when({ type: 'UnbanMember', actorId: 'mod', userId: 'alice' })
      .then([{ type: 'MemberUnbanned', data: { guildId: 'g', userId: 'alice' } }]);
    given(guildDecider, guild).when({ type: 'UnbanMember', actorId: 'mod', userId: 'alice' }).thenRefuses('UNKNOWN_BAN');
  });

  it('ends a temporary membership on disconnect, unless a role was given', () => {
    const temporary: GuildEvent = {
      type: 'MemberJoined',
      data: { guildId: 'g', userId: 'guest', joinedAt: T, inviteCode: 'tmp', vanity: false, temporary: true },
    };
    given(guildDecider, [...guild, temporary])
      .when({ type: 'EndTemporaryMembership', userId: 'guest' })
      .then([{ type: 'MemberLeft', data: { guildId: 'g', userId: 'guest' } }]);
    given(guildDecider, [...guild, temporary, assigned('guest', 'member')])
      .when({ type: 'EndTemporaryMembership', userId: 'guest' })
      .then([]);
    given(guildDecider, guild).when({ type: 'EndTemporaryMembership', userId: 'alice' }).then([]);
  });

  it('lets members leave, but not the owner', () => {
    given(guildDecider, guild)
      .when({ type: 'LeaveGuild', userId: 'bob' })
      .then([{ type: 'MemberLeft', data: { guildId: 'g', userId: 'bob' } }]);
    given(guildDecider, guild).when({ type: 'LeaveGuild', userId: 'owner' }).thenRefuses('OWNER_CANNOT_LEAVE');
    given(guildDecider, guild).when({ type: 'LeaveGuild', userId: 'stranger' }).thenRefuses('UNKNOWN_GUILD');
  });
});

describe('channels', () => {
  const category: GuildEvent = {
    type: 'ChannelCreated',
    data: { guildId: 'g', channel: { id: 'cat', type: 4, name: 'Cat', position: 2, parent_id: null, permission_overwrites: [] } },
  };
  const hidden: GuildEvent = {
    type: 'ChannelCreated',
    data: {
      guildId: 'g',
      channel: { id: 'secret', type: 0, name: 'secret', position: 3, parent_id: null, permission_overwrites: [{ id: 'g', type: 0, allow: '0', deny: '1024' }] },
    },
  };

  it('creates a channel with its type defaults, after the last position', () => {
    given(guildDecider, guild)
      .when({ type: 'CreateChannel', actorId: 'mod', channelId: 'new', fields: { name: 'talk', type: 0, topic: 'hi' } })
      .then([
        {
          type: 'ChannelCreated',
          data: {
            guildId: 'g',
            channel: {
              id: 'new',
              type: 0,
              name: 'talk',
              position: 1,
              parent_id: null,
              permission_overwrites: [],
              topic: 'hi',
              nsfw: false,
              rate_limit_per_user: 0,
            },
          },
        },
      ]);
    given(guildDecider, guild)
      .when({ type: 'CreateChannel', actorId: 'alice', channelId: 'new', fields: { name: 'x', type: 0 } })
      .thenRefuses('MISSING_PERMISSIONS');
  });

  it('refuses fields of another channel type, and parents that are not categories', () => {
    const error = given(guildDecider, guild)
      .when({ type: 'CreateChannel', actorId: 'mod', channelId: 'new', fields: { name: 'x', type: 4, topic: 'no' } })
      .thenRefuses('INVALID_FORM_BODY');
    expect(error.errors).toEqual([{ path: 'topic', message: 'Not a field of channels of type 4' }]);
    given(guildDecider, guild)
      .when({ type: 'UpdateChannel', actorId: 'mod', channelId: 'general', fields: { bitrate: 64000 } })
      .thenRefuses('INVALID_FORM_BODY');
    given(guildDecider, guild)
      .when({ type: 'UpdateChannel', actorId: 'mod', channelId: 'general', fields: { type: 2 } })
      .thenRefuses('INVALID_FORM_BODY');
    given(guildDecider, guild)
      .when({ type: 'UpdateChannel', actorId: 'mod', channelId: 'general', fields: { parent_id: 'general' } })
      .thenRefuses('INVALID_FORM_BODY');
    given(guildDecider, [...guild, category])
      .when({ type: 'UpdateChannel', actorId: 'mod', channelId: 'general', fields: { parent_id: 'cat', type: 5 } })
      .then([
        {
          type: 'ChannelUpdated',
          data: {
            guildId: 'g',
            channelId: 'general',
            changes: [
              { key: 'parent_id', old_value: null, new_value: 'cat' },
              { key: 'type', old_value: 0, new_value: 5 },
            ],
          },
        },
      ]);
  });

  it('hides channels without VIEW_CHANNEL: they are unknown, not forbidden', () => {
    given(guildDecider, [...guild, hidden])
      .when({ type: 'UpdateChannel', actorId: 'alice', channelId: 'secret', fields: { name: 'x' } })
      .thenRefuses('UNKNOWN_CHANNEL');
    given(guildDecider, [...guild, hidden])
      .when({ type: 'DeleteChannel', actorId: 'alice', channelId: 'secret' })
      .thenRefuses('UNKNOWN_CHANNEL');
    given(guildDecider, [...guild, hidden])
      .when({ type: 'UpdateChannel', actorId: 'alice', channelId: 'general', fields: { name: 'x' } })
      .thenRefuses('MISSING_PERMISSIONS');
  });

  it('sets overwrites with MANAGE_ROLES, only with bits the actor holds, for roles and members that exist', () => {
    const set = (actorId: string, overwrite: { id: string; type: 0 | 1; allow?: string; deny?: string }) =>
      given(guildDecider, guild).when({ type: 'SetChannelOverwrite', actorId, channelId: 'general', overwrite });
    set('mod', { id: 'member', type: 0, deny: '2048' }).then([
      {
        type: 'ChannelOverwriteSet',
        data: { guildId: 'g', channelId: 'general', overwrite: { id: 'member', type: 0, allow: '0', deny: '2048' }, previous: null },
      },
    ]);
    set('mod', { id: 'bob', type: 1, allow: Permission.ADMINISTRATOR.toString() }).thenRefuses('MISSING_PERMISSIONS');
    set('alice', { id: 'bob', type: 1, deny: '2048' }).thenRefuses('MISSING_PERMISSIONS');
    set('mod', { id: 'ghost', type: 1, deny: '2048' }).thenRefuses('INVALID_FORM_BODY');
    given(guildDecider, guild).when({ type: 'DeleteChannelOverwrite', actorId: 'mod', channelId: 'general', overwriteId: 'member' }).then([]);
  });

  it('moves channels and syncs overwrites with the parent on request', () => {
    const locked: GuildEvent = {
      type: 'ChannelOverwriteSet',
      data: { guildId: 'g', channelId: 'cat', overwrite: { id: 'g', type: 0, allow: '0', deny: '2048' }, previous: null },
    };
    given(guildDecider, [...guild, category, locked])
      .when({ type: 'MoveChannels', actorId: 'mod', moves: [{ id: 'general', position: 5, parent_id: 'cat', lock_permissions: true }] })
      .then([
        {
          type: 'ChannelUpdated',
          data: {
            guildId: 'g',
            channelId: 'general',
            changes: [
              { key: 'position', old_value: 0, new_value: 5 },
              { key: 'parent_id', old_value: null, new_value: 'cat' },
              { key: 'permission_overwrites', old_value: [], new_value: [{ id: 'g', type: 0, allow: '0', deny: '2048' }] },
            ],
          },
        },
      ]);
    given(guildDecider, guild)
      .when({ type: 'MoveChannels', actorId: 'mod', moves: [{ id: 'nope', position: 1 }] })
      .thenRefuses('INVALID_FORM_BODY');
  });

  it("clears children's parent and settings naming a deleted channel", () => {
    const child: GuildEvent = {
      type: 'ChannelUpdated',
      data: { guildId: 'g', channelId: 'general', changes: [{ key: 'parent_id', old_value: null, new_value: 'cat' }] },
    };
    const state = fold(guildDecider, [...guild, category, child]);
    const deleted: GuildEvent = { type: 'ChannelDeleted', data: { guildId: 'g', channel: state.channels.get('cat')! } };
    expect(fold(guildDecider, [...guild, category, child, deleted]).channels.get('general')!.parent_id).toBeNull();
    const general: GuildEvent = { type: 'ChannelDeleted', data: { guildId: 'g', channel: state.channels.get('general')! } };
    expect(fold(guildDecider, [...guild, general]).settings.system_channel_id).toBeNull();
  });
});
