// The rollback plan as a pure function: a literal guild stream (who did what, when, and what earlier rollbacks
// compensated), a window and an actor → the compensating actions, what cannot be undone, and the ids recreated.
import { describe, expect, it } from 'vitest';
import type { GuildEvent } from '../../domain/guild.js';
import type { GuildLogEvent } from '../../domain/guildHistory.js';
import type { ChannelData, RoleData } from '../../domain/guildState.js';
import { type RollbackWindow, planRollback } from '../../domain/rollback.js';

const BEFORE = '2025-01-01T00:00:00.000Z';
const DURING = '2025-01-01T01:00:00.000Z';
const AFTER = '2025-01-01T03:00:00.000Z';
const window: RollbackWindow = { actorId: 'raider', after: '2025-01-01T00:30:00.000Z', before: '2025-01-01T02:00:00.000Z' };
const none = { messages: [], invites: [], webhooks: [] };

let next = 0;
const logged = (event: GuildEvent, actorId: string | null, at: string, causationId?: string): GuildLogEvent => ({
  id: `e${next++}`,
  event,
  actorId,
  reason: null,
  at,
  ...(causationId ? { causationId } : {}),
});
const channel = (id: string, over: Partial<ChannelData> = {}): ChannelData => ({
  id,
  type: 0,
  name: id,
  position: 0,
  parent_id: null,
  permission_overwrites: [],
  topic: null,
  ...over,
});
const everyone: RoleData = { id: 'g', name: '@everyone', color: 0, hoist: false, mentionable: false, permissions: '1024', position: 0 };
const role = (id: string, position = 1): RoleData => ({ id, name: id, color: 0, hoist: false, mentionable: false, permissions: '0', position });
const joined = (userId: string): GuildEvent => ({
  type: 'MemberJoined',
  data: { guildId: 'g', userId, joinedAt: BEFORE, inviteCode: null, vanity: false, temporary: false },
});
const settings = {
  name: 'Guild',
  icon: null,
  description: null,
  owner_id: 'owner',
  verification_level: 0,
  default_message_notifications: 0,
  explicit_content_filter: 0,
  afk_channel_id: null,
  afk_timeout: 300,
  system_channel_id: 'general',
  system_channel_flags: 0,
  preferred_locale: 'en-US',
};

/** A guild with a category and a child in it whose overwrite names a role, and members: before the window. */
const setup = (): GuildLogEvent[] => [
  logged(
    { type: 'GuildCreated', data: { guildId: 'g', createdAt: BEFORE, settings, everyoneRole: everyone, channels: [channel('general')] } },
    'owner',
    BEFORE,
  ),
  logged(joined('owner'), 'owner', BEFORE),
  logged(joined('raider'), 'raider', BEFORE),
  logged(joined('mod'), 'mod', BEFORE),
  logged(joined('quitter'), 'quitter', BEFORE),
  logged({ type: 'RoleCreated', data: { guildId: 'g', role: role('mods') } }, 'owner', BEFORE),
  logged(
    { type: 'MemberUpdated', data: { guildId: 'g', userId: 'mod', changes: [{ key: '$add', new_value: [{ id: 'mods', name: 'mods' }] }] } },
    'owner',
    BEFORE,
  ),
  logged({ type: 'ChannelCreated', data: { guildId: 'g', channel: channel('info', { type: 4, position: 1 }) } }, 'owner', BEFORE),
  logged(
    {
      type: 'ChannelCreated',
      data: {
        guildId: 'g',
        channel: channel('rules', { position: 2, parent_id: 'info', permission_overwrites: [{ id: 'mods', type: 0, allow: '2048', deny: '0' }] }),
      },
    },
    'owner',
    BEFORE,
  ),
];

/** The raid: the category, the role and #general go, a spam channel comes, @everyone changes, a timeout. */
const raid = (): GuildLogEvent[] => [
  logged({ type: 'ChannelDeleted', data: { guildId: 'g', channel: channel('info', { type: 4, position: 1 }) } }, 'raider', DURING),
  logged({ type: 'ChannelDeleted', data: { guildId: 'g', channel: channel('general') } }, 'raider', DURING),
  logged({ type: 'RoleDeleted', data: { guildId: 'g', role: role('mods') } }, 'raider', DURING),
  logged({ type: 'ChannelCreated', data: { guildId: 'g', channel: channel('spam', { position: 3 }) } }, 'raider', DURING),
  logged({ type: 'RoleUpdated', data: { guildId: 'g', roleId: 'g', changes: [{ key: 'permissions', old_value: '1024', new_value: '8' }] } }, 'raider', DURING),
  logged(
    {
      type: 'MemberUpdated',
      data: { guildId: 'g', userId: 'mod', changes: [{ key: 'communication_disabled_until', old_value: null, new_value: '2025-01-20T00:00:00.000Z' }] },
    },
    'raider',
    DURING,
  ),
  logged({ type: 'MemberLeft', data: { guildId: 'g', userId: 'quitter' } }, 'quitter', DURING),
];

describe('rollback plan', () => {
  it('recreates what the actor deleted, gives back what named it, restores what they changed, deletes what they made', () => {
    const plan = planRollback([...setup(), ...raid()], window, {
      messages: [
        { id: 'm1', channelId: 'general', at: DURING },
        { id: 'm0', channelId: 'general', at: BEFORE },
      ],
      invites: [{ code: 'spam', at: DURING }],
      webhooks: [{ id: 'w1', at: AFTER }],
    });
    expect(plan.actions.map(({ kind, target_id }) => [kind, target_id])).toEqual([
      ['recreate_role', 'mods'],
      ['restore_role', 'g'],
      // The category before the channels it holds.
      ['recreate_channel', 'info'],
      ['recreate_channel', 'general'],
      ['restore_channel', 'rules'],
      ['restore_guild', 'g'],
      ['restore_member_roles', 'mod'],
      ['lift_timeout', 'mod'],
      ['delete_message', 'm1'],
      ['delete_channel', 'spam'],
      ['revoke_invite', 'spam'],
    ]);
    expect(plan.actions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'restore_role', fields: { permissions: '1024' } }),
        // The overwrite of the deleted role went with it: it comes back under the role's id, mapped when applied.
        expect.objectContaining({
          kind: 'restore_channel',
          fields: { parent_id: 'info', permission_overwrites: [{ id: 'mods', type: 0, allow: '2048', deny: '0' }] },
        }),
        expect.objectContaining({ kind: 'restore_guild', fields: { system_channel_id: 'general' } }),
        expect.objectContaining({ kind: 'restore_member_roles', roles: ['mods'] }),
      ]),
    );
    expect(plan.not_undoable).toEqual([
      { target_id: 'general', reason: expect.stringContaining('erased') },
      { target_id: 'quitter', reason: 'Left the guild by themselves: only they can join again' },
    ]);
    expect(plan.idMap).toEqual({});
  });

  it('plans the same for a guild created inside the window (the default 7 days on a new guild) as for one made before it', () => {
    const log = [...setup(), ...raid()];
    const lastSevenDays: RollbackWindow = { actorId: 'raider', after: '2024-12-25T03:00:00.000Z', before: AFTER };
    expect(Date.parse(lastSevenDays.after)).toBeLessThan(Date.parse(BEFORE));
    expect(planRollback(log, lastSevenDays, none)).toEqual(planRollback(log, window, none));
  });

  it('plans nothing more once the compensations are in the log, and maps the old ids to the recreated ones', () => {
    const log = [...setup(), ...raid()];
    const cause = (type: string, id: string) => log.find((e) => e.event.type === type && JSON.stringify(e.event.data).includes(`"id":"${id}"`))!.id;
    const at = AFTER;
    const compensations = [
      logged({ type: 'RoleCreated', data: { guildId: 'g', role: role('mods2') } }, 'owner', at, cause('RoleDeleted', 'mods')),
      logged(
        { type: 'RoleUpdated', data: { guildId: 'g', roleId: 'g', changes: [{ key: 'permissions', old_value: '8', new_value: '1024' }] } },
        'owner',
        at,
        'x',
      ),
      logged(
        { type: 'ChannelCreated', data: { guildId: 'g', channel: channel('info2', { type: 4, position: 1 }) } },
        'owner',
        at,
        cause('ChannelDeleted', 'info'),
      ),
      logged({ type: 'ChannelCreated', data: { guildId: 'g', channel: channel('general2') } }, 'owner', at, cause('ChannelDeleted', 'general')),
      logged(
        {
          type: 'ChannelUpdated',
          data: {
            guildId: 'g',
            channelId: 'rules',
            changes: [
              { key: 'parent_id', old_value: null, new_value: 'info2' },
              { key: 'permission_overwrites', old_value: [], new_value: [{ id: 'mods2', type: 0, allow: '2048', deny: '0' }] },
            ],
          },
        },
        'owner',
        at,
        'x',
      ),
      logged(
        { type: 'GuildUpdated', data: { guildId: 'g', changes: [{ key: 'system_channel_id', old_value: null, new_value: 'general2' }] } },
        'owner',
        at,
        'x',
      ),
      logged(
        { type: 'MemberUpdated', data: { guildId: 'g', userId: 'mod', changes: [{ key: '$add', new_value: [{ id: 'mods2', name: 'mods' }] }] } },
        'owner',
        at,
        'x',
      ),
      logged(
        { type: 'MemberUpdated', data: { guildId: 'g', userId: 'mod', changes: [{ key: 'communication_disabled_until', new_value: null }] } },
        'owner',
        at,
        'x',
      ),
      logged({ type: 'ChannelDeleted', data: { guildId: 'g', channel: channel('spam', { position: 3 }) } }, 'owner', at, 'x'),
    ];
    const plan = planRollback([...log, ...compensations], window, none);
    expect(plan.actions).toEqual([]);
    expect(plan.idMap).toEqual({ mods: 'mods2', info: 'info2', general: 'general2' });
  });

  it('leaves alone what others did and what the actor did outside the window; a kicked member not back is not undoable', () => {
    const log = [
      ...setup(),
      logged({ type: 'ChannelDeleted', data: { guildId: 'g', channel: channel('general') } }, 'owner', DURING),
      logged({ type: 'ChannelDeleted', data: { guildId: 'g', channel: channel('rules', { position: 2, parent_id: 'info' }) } }, 'raider', AFTER),
      logged({ type: 'MemberKicked', data: { guildId: 'g', userId: 'mod' } }, 'raider', DURING),
    ];
    const plan = planRollback(log, window, none);
    expect(plan.actions).toEqual([]);
    expect(plan.not_undoable).toEqual([{ target_id: 'mod', reason: expect.stringContaining('join again') }]);
  });

  it('unbans whom the actor banned, and says their purged messages are erased and that their roles wait for their return', () => {
    const banned: GuildEvent = {
      type: 'MemberBanned',
      data: { guildId: 'g', userId: 'mod', deleteMessageSeconds: 3600, removedMember: true, bannedAt: DURING },
    };
    const plan = planRollback([...setup(), logged(banned, 'raider', DURING)], window, none);
    expect(plan.actions).toEqual([{ kind: 'unban', target_id: 'mod', description: 'Unban user mod' }]);
    expect(plan.not_undoable).toEqual([
      { target_id: 'mod', reason: 'Their recent messages were deleted with the ban: their text is erased' },
      { target_id: 'mod', reason: expect.stringContaining('join again') },
    ]);
  });
});
