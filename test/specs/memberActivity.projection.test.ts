// Projection specs of the member activity read model a prune reads (joins, then messages, reactions, voice joins and
// gateway session starts move a member's last activity forward; leaving in any way takes the document away), and of
// a prune elsewhere in the read side: one audit entry 21 for all its events, members and the member count gone.
import { describe, expect, it } from 'vitest';
import type { GuildEvent } from '../../domain/guild.js';
import type { MembersPruned } from '../../domain/moderation.js';
import { auditLogProjection } from '../../projections/auditLog.js';
import { AUDIT_LOG_ENTRIES, GUILDS, MEMBERS, MEMBER_ACTIVITY } from '../../projections/collections.js';
import { guildsProjection } from '../../projections/guilds.js';
import { activityHour, memberActivityProjection } from '../../projections/memberActivity.js';
import { membersProjection } from '../../projections/members.js';
import { G, ada, bob, cy, guildCreated, joined, messageUser, reacted, sent } from './events.js';
import { EARLIER, by, givenProjections } from './support.js';

const MAY = '2025-05-01T00:00:00.000Z';
const JUNE = '2025-06-01T00:00:00.000Z';
const key = (userId: string, guildId = G) => `${guildId}:${userId}`;
const at = <E extends GuildEvent | ReturnType<typeof sent> | ReturnType<typeof reacted>>(createdAt: string, event: E) => by(null, event, { createdAt });
const sessionStarted = (userId: string) => ({
  type: 'GatewaySessionStarted' as const,
  data: { sessionId: `s-${userId}`, userId, intents: 0, shard: [0, 1] as [number, number], startedAt: Date.parse(JUNE) },
});
const voiceJoined = (userId: string) => ({
  type: 'VoiceChannelJoined' as const,
  data: {
    guildId: G,
    state: { user_id: userId, channel_id: '20', session_id: 's', node: 'n', self_mute: false, self_deaf: false, self_video: false, member_joined_at: EARLIER },
  },
});
const pruned = (userIds: string[], part = 0, total = userIds.length): MembersPruned => ({
  type: 'MembersPruned',
  data: { guildId: G, userIds, days: 7, part, total },
});

const activity = givenProjections(memberActivityProjection);

describe('member activity', () => {
  it("keeps the end of the activity's hour, whatever came before it", () => {
    const instants = [
      ['2025-05-01T10:15:00.000Z', '2025-05-01T11:00:00.000Z'],
      ['2025-05-01T10:59:59.999Z', '2025-05-01T11:00:00.000Z'],
      ['2025-05-01T11:00:00.000Z', '2025-05-01T11:00:00.000Z'],
      ['2025-05-01T10:00:00.001Z', '2025-05-01T11:00:00.000Z'],
      ['2025-05-01T23:30:00.000Z', '2025-05-02T00:00:00.000Z'],
      ['2025-05-01T10:15:00Z', '2025-05-01T11:00:00.000Z'],
      ['2025-05-01T10:15:00.000+02:00', '2025-05-01T09:00:00.000Z'],
      ['2025-05-01T10:20:00.000Z', '2025-05-01T11:00:00.000Z'],
    ];
    for (const [instant, end] of [...instants, ...instants.toReversed()]) expect([instant, activityHour(instant)]).toEqual([instant, end]);
  });

  it('starts at the join', () =>
    activity(joined(bob, { joinedAt: MAY }))
      .when()
      .then(MEMBER_ACTIVITY, key(bob.id), { guild_id: G, user_id: bob.id, last_active_at: MAY }));

  it('moves forward with a message, a reaction and a voice join in the guild, at the time of each', async () => {
    await activity(joined(bob))
      .when(at(MAY, sent({ id: '100', author: messageUser(bob) })))
      .then(MEMBER_ACTIVITY, key(bob.id), { last_active_at: MAY });
    await activity(joined(bob))
      .when(at(MAY, reacted('100', bob, 1)))
      .then(MEMBER_ACTIVITY, key(bob.id), { last_active_at: MAY });
    await activity(joined(bob))
      .when(by(null, voiceJoined(bob.id), { createdAt: MAY }))
      .then(MEMBER_ACTIVITY, key(bob.id), { last_active_at: MAY });
  });

  it('moves forward in every guild of the user with a gateway session start', () =>
    activity(joined(bob), joined(bob, { guildId: '501' }), joined(cy))
      .when(by(null, sessionStarted(bob.id), { createdAt: JUNE }))
      .thenFind(MEMBER_ACTIVITY, { user_id: { $in: [bob.id, cy.id] } }, [
        { _id: key(bob.id), last_active_at: JUNE },
        { _id: key(cy.id), last_active_at: EARLIER },
        { _id: key(bob.id, '501'), last_active_at: JUNE },
      ]));

  it('never moves back for an older activity projected later', () =>
    activity(joined(bob), by(null, voiceJoined(bob.id), { createdAt: JUNE }))
      .when(at(MAY, reacted('100', bob, 1)))
      .then(MEMBER_ACTIVITY, key(bob.id), { last_active_at: JUNE }));

  it('keeps no document for activity of someone who is not a member', () =>
    activity(joined(bob))
      .when(at(MAY, reacted('100', cy, 1)))
      .then(MEMBER_ACTIVITY, key(cy.id), null));

  it('starts afresh when a member leaves and joins again', () =>
    activity(joined(bob), by(null, voiceJoined(bob.id), { createdAt: JUNE }), { type: 'MemberLeft', data: { guildId: G, userId: bob.id } })
      .when(joined(bob, { joinedAt: MAY }))
      .then(MEMBER_ACTIVITY, key(bob.id), { last_active_at: MAY }));

  it('forgets pruned, kicked and banned members', () =>
    activity(joined(bob), joined(cy), joined(ada))
      .when(pruned([bob.id]), { type: 'MemberKicked', data: { guildId: G, userId: cy.id } })
      .thenFind(MEMBER_ACTIVITY, { guild_id: G }, [{ _id: key(ada.id) }]));
});

describe('a prune in the other read models', () => {
  it('makes one audit entry 21 with the days and the members removed, as strings, whatever its number of events', () =>
    givenProjections(auditLogProjection)()
      .when(by(cy.id, pruned(['7', '8'], 0, 3), { reason: 'spring cleaning' }), by(cy.id, pruned(['9'], 1, 3)))
      .thenFind(AUDIT_LOG_ENTRIES, { guild_id: G }, [
        {
          action_type: 21,
          user_id: cy.id,
          target_id: null,
          options: { delete_member_days: '7', members_removed: '3' },
          reason: 'spring cleaning',
        },
      ]));

  it('removes the members and counts them out of the guild', async () => {
    const history = [guildCreated, joined(ada), joined(bob), joined(cy)];
    await givenProjections(membersProjection)(...history)
      .when(pruned([bob.id, cy.id]))
      .thenFind(MEMBERS, { guild_id: G }, [{ user_id: ada.id }]);
    await givenProjections(guildsProjection)(...history)
      .when(pruned([bob.id, cy.id]))
      .then(GUILDS, G, { member_count: 1 });
  });
});
