// Given/when/then on a guild's voice stream: joins, moves and leaves of a member's own session; VIEW_CHANNEL, CONNECT,
// voice channel types and user limits; moderators' moves and disconnects (MOVE_MEMBERS); sessions that end; and
// voice states the guild no longer backs (a deleted channel, a member who left and came back) counting as absent.
import { describe, expect, it } from 'vitest';
import type { ChannelCreated } from '../../domain/channel.js';
import { fold } from '../../domain/decider.js';
import { type GuildEvent, guildDecider } from '../../domain/guild.js';
import type { GuildState } from '../../domain/guildState.js';
import { Permission } from '../../domain/permissions.js';
import { type VoiceEvent, type VoiceStateData, voiceDecider } from '../../domain/voiceState.js';
import { G, GENERAL, ada, bob, cy, eve, guildHistory, joined, roleCreated, rolesAdded } from '../specs/events.js';
import { given } from '../support/given.js';

const LOUNGE = '20';
const STAGE = '21';
const SMALL = '22';
const LOCKED = '23';
const MOVERS = '602';
const voice = (id: string, type: number, over: object = {}): ChannelCreated => ({
  type: 'ChannelCreated',
  data: {
    guildId: G,
    channel: {
      id,
      type,
      name: `voice-${id}`,
      position: 2,
      parent_id: null,
      permission_overwrites: [],
      bitrate: 64000,
      user_limit: 0,
      rtc_region: null,
      ...over,
    },
  },
});
const connectAll: GuildEvent = {
  type: 'RoleUpdated',
  data: { guildId: G, roleId: G, changes: [{ key: 'permissions', old_value: '0', new_value: String(Permission.VIEW_CHANNEL | Permission.CONNECT) }] },
};

const history: GuildEvent[] = [
  ...guildHistory,
  connectAll,
  roleCreated(MOVERS, 'movers', Permission.MOVE_MEMBERS, 3),
  rolesAdded(cy, { id: MOVERS, name: 'movers' }),
  voice(LOUNGE, 2),
  voice(STAGE, 13),
  voice(SMALL, 2, { user_limit: 1 }),
  voice(LOCKED, 2, { permission_overwrites: [{ id: G, type: 0, allow: '0', deny: String(Permission.CONNECT) }] }),
];
const guildOf = (events: GuildEvent[]): GuildState => fold(guildDecider, events);
const guild = guildOf(history);

const state = (person: { id: string }, channelId: string, over: Partial<VoiceStateData> = {}): VoiceStateData => ({
  user_id: person.id,
  channel_id: channelId,
  session_id: `s-${person.id}`,
  node: 'n1',
  self_mute: false,
  self_deaf: false,
  self_video: false,
  member_joined_at: guild.members.get(person.id)!.joined_at,
  ...over,
});
const joinedVoice = (data: VoiceStateData): VoiceEvent => ({ type: 'VoiceChannelJoined', data: { guildId: G, state: data } });
const own = (person: { id: string }, channelId: string | null, over: object = {}) => ({
  type: 'UpdateOwnVoiceState' as const,
  guild,
  userId: person.id,
  sessionId: `s-${person.id}`,
  node: 'n1',
  channelId,
  selfMute: false,
  selfDeaf: false,
  selfVideo: false,
  ...over,
});

describe('a member’s own voice state', () => {
  it('joins a voice or stage channel with its session, node and self flags', () => {
    given(voiceDecider, [])
      .when(own(bob, LOUNGE, { selfMute: true }))
      .then([joinedVoice(state(bob, LOUNGE, { self_mute: true }))]);
    given(voiceDecider, [])
      .when(own(bob, STAGE))
      .then([joinedVoice(state(bob, STAGE))]);
  });

  it('moves to another channel (one channel at a time), then changes only what differs', () => {
    given(voiceDecider, [joinedVoice(state(bob, LOUNGE))])
      .when(own(bob, STAGE))
      .then([
        {
          type: 'VoiceChannelMoved',
          data: { guildId: G, userId: bob.id, fromChannelId: LOUNGE, channelId: STAGE, sessionId: `s-${bob.id}`, node: 'n1', movedBy: null },
        },
      ]);
    given(voiceDecider, [joinedVoice(state(bob, LOUNGE))])
      .when(own(bob, LOUNGE))
      .then([]);
    given(voiceDecider, [joinedVoice(state(bob, LOUNGE))])
      .when(own(bob, LOUNGE, { selfDeaf: true, sessionId: 'other' }))
      .then([
        {
          type: 'VoiceSelfStateChanged',
          data: { guildId: G, userId: bob.id, channelId: LOUNGE, sessionId: 'other', node: 'n1', self_mute: false, self_deaf: true, self_video: false },
        },
      ]);
  });

  it('leaves with a null channel; leaving when not in voice changes nothing', () => {
    given(voiceDecider, [joinedVoice(state(bob, LOUNGE))])
      .when(own(bob, null))
      .then([{ type: 'VoiceChannelLeft', data: { guildId: G, userId: bob.id, channelId: LOUNGE, sessionId: `s-${bob.id}`, reason: 'left' } }]);
    given(voiceDecider, []).when(own(bob, null)).then([]);
  });

  it('refuses a text channel, an unknown or unseen channel, a channel without CONNECT, and a full one', () => {
    given(voiceDecider, []).when(own(bob, GENERAL)).thenRefuses('NOT_A_VOICE_CHANNEL');
    given(voiceDecider, []).when(own(bob, '999')).thenRefuses('UNKNOWN_CHANNEL');
    given(voiceDecider, []).when(own(bob, LOCKED)).thenRefuses('MISSING_PERMISSIONS');
    // Timed out until noon, the guild judged just before: no voice until it ends.
    const until = '2026-11-26T12:00:00.000Z';
    const timedOut = guildOf([
      ...history,
      { type: 'MemberUpdated', data: { guildId: G, userId: bob.id, changes: [{ key: 'communication_disabled_until', old_value: null, new_value: until }] } },
    ]);
    given(voiceDecider, [])
      .when(own(bob, LOUNGE, { guild: { ...timedOut, at: Date.parse(until) - 1 } }))
      .thenRefuses('MISSING_ACCESS');
    given(voiceDecider, [])
      .when(own(bob, LOUNGE, { guild: { ...timedOut, at: Date.parse(until) } }))
      .then([expect.objectContaining({ type: 'VoiceChannelJoined' }) as never]);
    given(voiceDecider, [joinedVoice(state(ada, SMALL))])
      .when(own(bob, SMALL))
      .thenRefuses('VOICE_CHANNEL_FULL');
    // MOVE_MEMBERS lets a moderator into a full channel, as in the widely used API.
    given(voiceDecider, [joinedVoice(state(ada, SMALL))])
      .when(own(cy, SMALL))
      .then([joinedVoice(state(cy, SMALL))]);
    expect(() => voiceDecider.decide(own({ id: '77' }, LOUNGE), voiceDecider.initialState())).toThrow('Unknown Channel');
  });
});

describe('moderation', () => {
  const move = (actor: { id: string }, channelId: string | null) => ({ type: 'MoveVoiceMember' as const, guild, actorId: actor.id, userId: bob.id, channelId });

  it('moves a member in voice with MOVE_MEMBERS, keeping their session, and disconnects them', () => {
    given(voiceDecider, [joinedVoice(state(bob, LOUNGE))])
      .when(move(cy, STAGE))
      .then([
        {
          type: 'VoiceChannelMoved',
          data: { guildId: G, userId: bob.id, fromChannelId: LOUNGE, channelId: STAGE, sessionId: `s-${bob.id}`, node: 'n1', movedBy: cy.id },
        },
      ]);
    given(voiceDecider, [joinedVoice(state(bob, LOUNGE))])
      .when(move(cy, null))
      .then([{ type: 'VoiceChannelLeft', data: { guildId: G, userId: bob.id, channelId: LOUNGE, sessionId: `s-${bob.id}`, reason: 'disconnected' } }]);
  });

  it('refuses a moderator without MOVE_MEMBERS, a member not in voice, and a target the moderator cannot connect to', () => {
    given(voiceDecider, [joinedVoice(state(bob, LOUNGE))])
      .when(move(eve, STAGE))
      .thenRefuses('MISSING_PERMISSIONS');
    given(voiceDecider, []).when(move(cy, STAGE)).thenRefuses('TARGET_NOT_IN_VOICE');
    given(voiceDecider, [joinedVoice(state(bob, LOUNGE))])
      .when(move(cy, LOCKED))
      .thenRefuses('MISSING_PERMISSIONS');
    given(voiceDecider, [joinedVoice(state(bob, LOUNGE))])
      .when(move(cy, GENERAL))
      .thenRefuses('NOT_A_VOICE_CHANNEL');
  });
});

describe('sessions and the guild’s own changes', () => {
  it('ends the state of a session that ended, unless another session holds it now', () => {
    const end = (sessionId: string) => ({ type: 'EndSessionVoiceState' as const, guild, userId: bob.id, sessionId });
    given(voiceDecider, [joinedVoice(state(bob, LOUNGE))])
      .when(end(`s-${bob.id}`))
      .then([{ type: 'VoiceChannelLeft', data: { guildId: G, userId: bob.id, channelId: LOUNGE, sessionId: `s-${bob.id}`, reason: 'session_ended' } }]);
    given(voiceDecider, [joinedVoice(state(bob, LOUNGE))])
      .when(end('an-older-session'))
      .then([]);
  });

  it('counts a state in a deleted channel, or of a member who left and came back, as absent', () => {
    const deleted = guildOf([...history, { type: 'ChannelDeleted', data: { guildId: G, channel: guild.channels.get(LOUNGE)! } }]);
    given(voiceDecider, [joinedVoice(state(bob, LOUNGE))])
      .when({ ...own(bob, STAGE), guild: deleted })
      .then([joinedVoice(state(bob, STAGE))]);
    const rejoined = guildOf([...history, { type: 'MemberLeft', data: { guildId: G, userId: bob.id } }, joined(bob, { joinedAt: '2030-01-01T00:00:00.000Z' })]);
    given(voiceDecider, [joinedVoice(state(bob, LOUNGE))])
      .when({ ...own(bob, null), guild: rejoined })
      .then([]);
  });
});
