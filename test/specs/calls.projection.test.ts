// Projection spec of the calls read model: given call events → the call's document, going on or ended.
import { describe, it } from 'vitest';
import type { CallEvent, CallVoiceStateData } from '../../domain/call.js';
import { callsProjection } from '../../projections/calls.js';
import { givenProjections } from './support.js';

const C = '500';
const UNTIL = '2025-01-01T00:01:00.000Z';
const calls = givenProjections(callsProjection);
const ada: CallVoiceStateData = { user_id: '1', session_id: 's1', node: 'n1', self_mute: false, self_deaf: false, self_video: false };
const regionSet: CallEvent = {
  type: 'CallRegionChanged',
  data: { channelId: C, region: 'rotterdam', changedBy: '1', call: { region: 'rotterdam', ringing: [], voice_states: [] } },
};
const rung: CallEvent = {
  type: 'CallRung',
  data: {
    channelId: C,
    ringingBy: '1',
    userIds: ['2'],
    until: UNTIL,
    started: true,
    call: { region: 'rotterdam', ringing: [{ user_id: '2', until: UNTIL }], voice_states: [ada] },
  },
};
const left: CallEvent = {
  type: 'CallLeft',
  data: { channelId: C, state: ada, call: { region: 'rotterdam', ringing: [{ user_id: '2', until: UNTIL }], voice_states: [] } },
};
const stopped: CallEvent = {
  type: 'CallRingingStopped',
  data: { channelId: C, userIds: ['2'], stoppedBy: null, call: { region: 'rotterdam', ringing: [], voice_states: [] } },
};

describe('calls projection', () => {
  it('keeps a channel’s region before any call, not going on', () =>
    calls().when(regionSet).then('calls', C, { region: 'rotterdam', active: false, voice_user_ids: [] }));

  it('shows a call going on with who is rung until when and who is in its voice', () =>
    calls(regionSet)
      .when(rung)
      .then('calls', C, { active: true, ringing: [{ user_id: '2', until: UNTIL }], voice_states: [ada], voice_user_ids: ['1'] }));

  it('lists the calls going on and the one a user is in', () =>
    calls(regionSet)
      .when(rung)
      .thenFind('calls', { voice_user_ids: { $all: ['1'] } }, [{ _id: C, active: true }]));

  it('ends the call when nobody is rung or in voice, keeping its region', () =>
    calls(regionSet, rung).when(left, stopped).then('calls', C, { region: 'rotterdam', active: false, ringing: [], voice_states: [], voice_user_ids: [] }));
});
