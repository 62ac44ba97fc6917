// DM and group DM calls as the gateway shows them (CALL_CREATE, CALL_UPDATE), with the voice states in them: the
// voice state object of guild channels, without guild_id, server mute, deafen or suppression (a DM has none of them).
import type { CallData, CallVoiceStateData } from '../domain/call.js';
import type { ParleyCall } from './differences.js';
import { voiceStateObject } from './voiceStates.js';

/** A voice state in a DM's call; `channelId` null: the user left it. */
export const callVoiceStateObject = (state: CallVoiceStateData, channelId: string | null) => voiceStateObject({ ...state, channel_id: channelId }, null, false);

/** The call: who is rung, the region picked (null: automatic), who is in its voice. */
export function callObject(channelId: string, call: CallData): ParleyCall {
  return {
    channel_id: channelId,
    ringing: call.ringing.map((r) => r.user_id),
    region: call.region,
    voice_states: call.voice_states.map((state) => callVoiceStateObject(state, channelId)),
  };
}
