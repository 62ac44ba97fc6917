// Dispatches of guild voice state: VOICE_STATE_UPDATE to the guild's sessions with GUILD_VOICE_STATES, and always to
// the session that holds the state (its client must learn of its own join, move or disconnect); VOICE_SERVER_UPDATE
// to that session on each join and move. Members who leave the guild and channels that are deleted take their voice
// states with them: the guild's sessions are told those members left voice.
import { randomBytes } from 'node:crypto';
import { type VoiceStateData, voiceDecider } from '../../domain/voiceState.js';
import { ChannelType } from '../../domain/channel.js';
import { guildVoiceStream } from '../../commands/streams.js';
import { voiceStateObject } from '../../presenters/voiceStates.js';
import { voiceStateOf } from '../../projections/voiceStates.queries.js';
import type { GatewayDeps } from '../deps.js';
import type { Dispatch } from '../dispatch.js';
import { deriver, dispatch } from './deriver.js';
import { memberPayload } from '../guilds.js';
import { Intent } from '../protocol.js';
import { channelById } from '../../projections/channels.queries.js';

type Shown = Pick<VoiceStateData, 'user_id' | 'session_id' | 'self_mute' | 'self_deaf' | 'self_video'> & { channel_id: string | null };

/** VOICE_STATE_UPDATE of one member, with their member object while they are one. */
async function stateUpdate(runtime: GatewayDeps, guildId: string, state: Shown): Promise<Dispatch> {
  const member = await memberPayload(runtime, guildId, state.user_id);
  const channel = state.channel_id ? await channelById(runtime.readStore, state.channel_id) : null;
  const d = { guild_id: guildId, ...voiceStateObject(state, member, channel?.type === ChannelType.GUILD_STAGE_VOICE), ...(member ? { member } : {}) };
  return dispatch('VOICE_STATE_UPDATE', d, { intent: Intent.GUILD_VOICE_STATES, audience: { guildId }, sessions: [state.session_id] });
}

/** Where the session's client would connect for media: a fresh token for each connection, never stored. */
function serverUpdate(runtime: GatewayDeps, guildId: string, sessionId: string): Dispatch {
  const d = { token: randomBytes(16).toString('hex'), guild_id: guildId, endpoint: runtime.config.voiceEndpoint };
  return dispatch('VOICE_SERVER_UPDATE', d, { intent: null, audience: { users: [] }, sessions: [sessionId] });
}

const left = (state: VoiceStateData): Shown => ({ ...state, channel_id: null });

/** The voice states the guild's voice stream still holds for these users or this channel, which the guild just took away. */
async function endedBy(runtime: GatewayDeps, guildId: string, ended: (state: VoiceStateData) => boolean): Promise<Dispatch[]> {
  const { state } = await runtime.commands.load(guildVoiceStream(guildId), voiceDecider);
  return Promise.all([...state.states.values()].filter(ended).map((voice) => stateUpdate(runtime, guildId, left(voice))));
}

export const voiceDispatches = deriver({
  handles: [
    'VoiceChannelJoined',
    'VoiceChannelMoved',
    'VoiceSelfStateChanged',
    'VoiceChannelLeft',
    'MemberUpdated',
    'MemberLeft',
    'MemberKicked',
    'MembersPruned',
    'MemberBanned',
    'ChannelDeleted',
  ],
  async derive(event, runtime) {
    switch (event.type) {
      case 'VoiceChannelJoined': {
        const { guildId, state } = event.data;
        return [await stateUpdate(runtime, guildId, state), serverUpdate(runtime, guildId, state.session_id)];
      }
      case 'VoiceChannelMoved':
      case 'VoiceSelfStateChanged': {
        const { guildId, userId, sessionId } = event.data;
        const state = await voiceStateOf(runtime.readStore, guildId, userId);
        if (!state) return [];
        const update = await stateUpdate(runtime, guildId, state);
        return event.type === 'VoiceChannelMoved' ? [update, serverUpdate(runtime, guildId, sessionId)] : [update];
      }
      case 'VoiceChannelLeft': {
        const { guildId, userId, sessionId } = event.data;
        // The flags it had are gone with it; a leave carries none.
        return [
          await stateUpdate(runtime, guildId, {
            user_id: userId,
            session_id: sessionId,
            channel_id: null,
            self_mute: false,
            self_deaf: false,
            self_video: false,
          }),
        ];
      }
      case 'MemberUpdated': {
        const { guildId, userId, changes } = event.data;
        if (!changes.some((c) => c.key === 'mute' || c.key === 'deaf')) return [];
        const state = await voiceStateOf(runtime.readStore, guildId, userId);
        return state ? [await stateUpdate(runtime, guildId, state)] : [];
      }
      case 'MemberLeft':
      case 'MemberKicked':
      case 'MemberBanned':
        return endedBy(runtime, event.data.guildId, (state) => state.user_id === event.data.userId);
      case 'MembersPruned':
        return endedBy(runtime, event.data.guildId, (state) => event.data.userIds.includes(state.user_id));
      case 'ChannelDeleted':
        return endedBy(runtime, event.data.guildId, (state) => state.channel_id === event.data.channel.id);
    }
  },
});
