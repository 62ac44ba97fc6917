// Dispatches of DM and group DM calls, to every participant's sessions whatever their intents (no intent covers
// calls): CALL_CREATE when an event starts a call, CALL_UPDATE while it goes on, CALL_DELETE when it ends; voice joins,
// changes and leaves add the VOICE_STATE_UPDATE, and a join its VOICE_SERVER_UPDATE, which only the joining session
// receives (Dispatch.sessions). Its token is made here, fresh for each join, and never stored or logged: Parley
// carries no audio, so no media server ever checks it.
import { randomBytes } from 'node:crypto';
import { type CallData, type CallVoiceStateData, isCallGoingOn } from '../../domain/call.js';
import { callObject, callVoiceStateObject } from '../../presenters/calls.js';
import { dmChannelById } from '../../projections/dms.queries.js';
import type { Dispatch } from '../dispatch.js';
import { deriver, dispatch } from './deriver.js';

function callDispatch(channelId: string, call: CallData, started: boolean, users: string[]): Dispatch {
  if (!isCallGoingOn(call)) return dispatch('CALL_DELETE', { channel_id: channelId }, { intent: null, audience: { users } });
  return dispatch(started ? 'CALL_CREATE' : 'CALL_UPDATE', callObject(channelId, call), { intent: null, audience: { users } });
}

/** The voice state as it is now (`channelId` null: it left), to the participants and to the session it concerns. */
const voiceStateDispatch = (state: CallVoiceStateData, channelId: string | null, users: string[]): Dispatch =>
  dispatch('VOICE_STATE_UPDATE', callVoiceStateObject(state, channelId), { intent: null, audience: { users }, sessions: [state.session_id] });

export const callDispatches = deriver({
  handles: ['CallRung', 'CallRingingStopped', 'CallRegionChanged', 'CallJoined', 'CallSelfStateChanged', 'CallLeft'],
  async derive(event, runtime) {
    const participants = async (channelId: string) => (await dmChannelById(runtime.readStore, channelId))?.recipient_ids ?? [];
    switch (event.type) {
      case 'CallRung':
        return [callDispatch(event.data.channelId, event.data.call, event.data.started, await participants(event.data.channelId))];
      case 'CallRingingStopped':
        return [callDispatch(event.data.channelId, event.data.call, false, await participants(event.data.channelId))];
      case 'CallRegionChanged': {
        const { channelId, call } = event.data;
        return isCallGoingOn(call) ? [callDispatch(channelId, call, false, await participants(channelId))] : [];
      }
      case 'CallJoined': {
        const { channelId, state, call, started } = event.data;
        const users = await participants(channelId);
        const server = { token: randomBytes(16).toString('hex'), guild_id: null, channel_id: channelId, endpoint: runtime.config.voiceEndpoint };
        return [
          callDispatch(channelId, call, started, users),
          voiceStateDispatch(state, channelId, users),
          dispatch('VOICE_SERVER_UPDATE', server, { intent: null, audience: { users: [] }, sessions: [state.session_id] }),
        ];
      }
      case 'CallSelfStateChanged': {
        const { channelId, state, call } = event.data;
        const users = await participants(channelId);
        return [callDispatch(channelId, call, false, users), voiceStateDispatch(state, channelId, users)];
      }
      case 'CallLeft': {
        const { channelId, state, call } = event.data;
        const users = await participants(channelId);
        return [voiceStateDispatch(state, null, users), callDispatch(channelId, call, false, users)];
      }
    }
  },
});
