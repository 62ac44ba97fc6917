// The voice read model: one document per member in a guild voice channel, for GUILD_CREATE's voice_states and the
// gateway's sweep of voice states left by sessions that are gone. A voice state leaves with its member (left, kicked
// or banned), its channel and its guild, as the voice decider already counts it absent then.
import type { VoiceStateData } from '../domain/voiceState.js';
import type { WriteOp } from '../ports/readStore.js';
import { VOICE_STATES } from './collections.js';
import { projection } from './projection.js';

export interface VoiceStateDoc extends VoiceStateData {
  _id: string;
  guild_id: string;
  [key: string]: unknown;
}

export const voiceStateKey = (guildId: string, userId: string) => `${guildId}:${userId}`;

// Module-level, not closures made per call: every event of the log passes through projectVoiceState.
const set = (guildId: string, userId: string, fields: Partial<VoiceStateData>): WriteOp[] => [
  { updateOne: { collection: VOICE_STATES, filter: { _id: voiceStateKey(guildId, userId) }, update: { $set: fields } } },
];
const remove = (guildId: string, userId: string): WriteOp[] => [{ deleteOne: { collection: VOICE_STATES, filter: { _id: voiceStateKey(guildId, userId) } } }];

export const voiceStatesProjection = projection({
  name: 'voiceStates',
  handles: [
    'VoiceChannelJoined',
    'VoiceChannelMoved',
    'VoiceSelfStateChanged',
    'VoiceChannelLeft',
    'MemberLeft',
    'MemberKicked',
    'MembersPruned',
    'MemberBanned',
    'ChannelDeleted',
    'GuildDeleted',
  ],
  collections: [VOICE_STATES],
  indexes: [
    { collection: VOICE_STATES, keys: { guild_id: 1, user_id: 1 } },
    { collection: VOICE_STATES, keys: { channel_id: 1 } },
    { collection: VOICE_STATES, keys: { node: 1 } },
  ],
  project(e) {
    switch (e.type) {
      case 'VoiceChannelJoined': {
        const { guildId, state } = e.data;
        const doc: VoiceStateDoc = { _id: voiceStateKey(guildId, state.user_id), guild_id: guildId, ...state };
        return [{ replaceOne: { collection: VOICE_STATES, filter: { _id: doc._id }, replacement: doc, upsert: true } }];
      }
      case 'VoiceChannelMoved': {
        const { guildId, userId, channelId, sessionId, node } = e.data;
        return set(guildId, userId, { channel_id: channelId, session_id: sessionId, node });
      }
      case 'VoiceSelfStateChanged': {
        const { guildId, userId, channelId, sessionId, node, self_mute, self_deaf, self_video } = e.data;
        return set(guildId, userId, { channel_id: channelId, session_id: sessionId, node, self_mute, self_deaf, self_video });
      }
      case 'VoiceChannelLeft':
      case 'MemberLeft':
      case 'MemberKicked':
      case 'MemberBanned':
        return remove(e.data.guildId, e.data.userId);
      case 'MembersPruned':
        return [{ deleteMany: { collection: VOICE_STATES, filter: { guild_id: e.data.guildId, user_id: { $in: e.data.userIds } } } }];
      case 'ChannelDeleted':
        return [{ deleteMany: { collection: VOICE_STATES, filter: { channel_id: e.data.channel.id } } }];
      case 'GuildDeleted':
        return [{ deleteMany: { collection: VOICE_STATES, filter: { guild_id: e.data.guildId } } }];
    }
  },
});
