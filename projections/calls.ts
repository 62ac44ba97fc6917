// Read model of DM and group DM calls: one document per channel that ever had a call, rewritten whole from the call
// each event carries (domain/call.ts), so replays and rebuilds write exactly what live processing wrote.
// `voice_user_ids` answers "which call is this user in"; `active` lists the calls going on (ring deadlines to keep,
// voice states left over by a gateway node that is gone).
import { type CallVoiceStateData, type RingingData, isCallGoingOn } from '../domain/call.js';
import { CALLS } from './collections.js';
import { projection } from './projection.js';

export interface CallDoc {
  /** The DM's channel id. */
  _id: string;
  region: string | null;
  active: boolean;
  ringing: RingingData[];
  voice_states: CallVoiceStateData[];
  voice_user_ids: string[];
  [key: string]: unknown;
}

export const callsProjection = projection({
  name: 'calls',
  // Every call event: each carries the whole call after it.
  handles: ['CallRung', 'CallRingingStopped', 'CallRegionChanged', 'CallJoined', 'CallSelfStateChanged', 'CallLeft'],
  collections: [CALLS],
  indexes: [{ collection: CALLS, keys: { active: 1 } }],
  project(event) {
    const { channelId, call } = event.data;
    const doc: CallDoc = { _id: channelId, ...call, active: isCallGoingOn(call), voice_user_ids: call.voice_states.map((v) => v.user_id) };
    return [{ replaceOne: { collection: CALLS, filter: { _id: channelId }, replacement: doc, upsert: true } }];
  },
});
