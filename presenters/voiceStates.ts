// Voice state objects, in the widely used API's shape. The server mute and deafen are the member's; `suppress` is
// true in stage channels, whose members join as listeners; Parley has no streams or speaker requests.
import type { APIVoiceState } from 'discord-api-types/v10';
import type { MemberData } from '../domain/guildState.js';
import type { VoiceStateData } from '../domain/voiceState.js';

type Flags = Pick<VoiceStateData, 'self_mute' | 'self_deaf' | 'self_video'>;

export function voiceStateObject(
  state: { user_id: string; channel_id: string | null; session_id: string } & Flags,
  member: Pick<MemberData, 'mute' | 'deaf'> | null,
  suppress: boolean,
): APIVoiceState {
  return {
    channel_id: state.channel_id,
    user_id: state.user_id,
    session_id: state.session_id,
    deaf: member?.deaf ?? false,
    mute: member?.mute ?? false,
    self_deaf: state.self_deaf,
    self_mute: state.self_mute,
    self_stream: false,
    self_video: state.self_video,
    suppress,
    request_to_speak_timestamp: null,
  };
}
