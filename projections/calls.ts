// Read model of DM and group DM calls: one document per channel that ever had a call, rewritten whole from the call
// each event carries (domain/call.ts), so replays and rebuilds write exactly what live processing wrote.
// `voice_user_ids` answers "which call is this user in"; `active` lists the calls going on (ring deadlines to keep,
// voice states left over by a gateway node that is gone).
import { type CallData, type CallVoiceStateData, type RingingData, isCallEvent, isCallGoingOn } from '../domain/call.js';
import type { RecordedEvent } from '../ports/eventStore.js';
import type { WriteOp } from '../ports/readStore.js';
import { CALLS } from './collections.js';
import type { Projection } from './projection.js';

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

function projectCall(event: RecordedEvent): WriteOp[] {
  if (!isCallEvent(event)) return [];
  const { channelId, call } = event.data as { channelId: string; call: CallData };
  const doc: CallDoc = { _id: channelId, ...call, active: isCallGoingOn(call), voice_user_ids: call.voice_states.map((v) => v.user_id) };
  return [{ replaceOne: { collection: CALLS, filter: { _id: channelId }, replacement: doc, upsert: true } }];
}

export const callsProjection: Projection = {
  name: 'calls',
  collections: [CALLS],
  indexes: [{ collection: CALLS, keys: { active: 1 } }],
  project: projectCall,
};
