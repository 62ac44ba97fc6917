// Projection specs of guild voice state: events → one document per member in voice, moved and changed in place, gone
// when they leave, are removed from the guild, or their channel or guild is deleted; and the audit entries of voice
// moderation (26 member move, 25 member disconnect, with their options), while members' own moves are not audited.
import { describe, it } from 'vitest';
import type { VoiceEvent, VoiceStateData } from '../../domain/voiceState.js';
import { auditLogProjection } from '../../projections/auditLog.js';
import { AUDIT_LOG_ENTRIES, VOICE_STATES } from '../../projections/collections.js';
import { voiceStatesProjection } from '../../projections/voiceStates.js';
import { G, bob, cy, eve } from './events.js';
import { EARLIER, by, givenProjections } from './support.js';

const LOUNGE = '20';
const STAGE = '21';
const state = (userId: string, channelId = LOUNGE): VoiceStateData => ({
  user_id: userId,
  channel_id: channelId,
  session_id: `s-${userId}`,
  node: 'n1',
  self_mute: false,
  self_deaf: false,
  self_video: false,
  member_joined_at: EARLIER,
});
const joined = (userId: string, channelId = LOUNGE, guildId = G): VoiceEvent => ({
  type: 'VoiceChannelJoined',
  data: { guildId, state: state(userId, channelId) },
});
const moved = (movedBy: string | null): VoiceEvent => ({
  type: 'VoiceChannelMoved',
  data: { guildId: G, userId: bob.id, fromChannelId: LOUNGE, channelId: STAGE, sessionId: `s-${bob.id}`, node: 'n1', movedBy },
});
const left = (reason: 'left' | 'disconnected'): VoiceEvent => ({
  type: 'VoiceChannelLeft',
  data: { guildId: G, userId: bob.id, channelId: LOUNGE, sessionId: `s-${bob.id}`, reason },
});
const key = (userId: string, guildId = G) => `${guildId}:${userId}`;

const voice = givenProjections(voiceStatesProjection);
const audit = givenProjections(auditLogProjection);

describe('voice states projection', () => {
  it('makes a join a document, which moves and self changes update in place', async () => {
    await voice()
      .when(joined(bob.id))
      .then(VOICE_STATES, key(bob.id), { guild_id: G, user_id: bob.id, channel_id: LOUNGE, session_id: `s-${bob.id}`, node: 'n1', self_mute: false });
    await voice(joined(bob.id)).when(moved(null)).then(VOICE_STATES, key(bob.id), { channel_id: STAGE, self_mute: false });
    await voice(joined(bob.id))
      .when({
        type: 'VoiceSelfStateChanged',
        data: { guildId: G, userId: bob.id, channelId: LOUNGE, sessionId: 'new', node: 'n2', self_mute: true, self_deaf: true, self_video: false },
      })
      .then(VOICE_STATES, key(bob.id), { session_id: 'new', node: 'n2', self_mute: true, self_deaf: true });
  });

  it('removes the state of a member who leaves voice, leaves the guild, is kicked or banned', async () => {
    await voice(joined(bob.id)).when(left('left')).then(VOICE_STATES, key(bob.id), null);
    await voice(joined(bob.id))
      .when({ type: 'MemberLeft', data: { guildId: G, userId: bob.id } })
      .then(VOICE_STATES, key(bob.id), null);
    await voice(joined(bob.id))
      .when({ type: 'MemberKicked', data: { guildId: G, userId: bob.id } })
      .then(VOICE_STATES, key(bob.id), null);
    await voice(joined(bob.id))
      .when({ type: 'MemberBanned', data: { guildId: G, userId: bob.id, deleteMessageSeconds: 0, removedMember: true, bannedAt: EARLIER } })
      .then(VOICE_STATES, key(bob.id), null);
  });

  it('removes everyone in a deleted channel, and a deleted guild’s states, and no others', async () => {
    const channel = { id: LOUNGE, type: 2, name: 'lounge', position: 0, parent_id: null, permission_overwrites: [] };
    await voice(joined(bob.id), joined(cy.id), joined(eve.id, STAGE))
      .when({ type: 'ChannelDeleted', data: { guildId: G, channel } })
      .thenFind(VOICE_STATES, {}, [{ user_id: eve.id }]);
    await voice(joined(bob.id), joined(cy.id, LOUNGE, '501'))
      .when({ type: 'GuildDeleted', data: { guildId: G, vanityCode: null } })
      .thenFind(VOICE_STATES, {}, [{ guild_id: '501', user_id: cy.id }]);
  });
});

describe('audit entries of voice moderation', () => {
  it('records a moderator’s move as 26 and disconnect as 25, with options and reason, and not a member’s own moves and leaves', () =>
    audit()
      .when(
        by(bob.id, moved(null)),
        by(bob.id, left('left')),
        by(cy.id, moved(cy.id), { reason: 'make room' }),
        by(cy.id, left('disconnected'), { reason: 'too loud' }),
      )
      .thenFind(AUDIT_LOG_ENTRIES, { guild_id: G }, [
        { action_type: 26, target_id: bob.id, user_id: cy.id, reason: 'make room', options: { channel_id: STAGE, count: '1' } },
        { action_type: 25, target_id: bob.id, user_id: cy.id, reason: 'too loud', options: { count: '1' } },
      ]));
});
