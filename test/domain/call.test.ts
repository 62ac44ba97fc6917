// Given/when/then on DM calls: who may be rung, ringing that stops (declined, answered, timed out), voice joins,
// self flag changes, takeovers and leaves, and when a call starts and ends.
import { describe, expect, it } from 'vitest';
import { type CallData, type CallEvent, type CallRecipient, type CallVoiceStateData, callDecider } from '../../domain/call.js';
import { given } from '../support/given.js';

const C = '500';
const ada = { id: '1', bot: false };
const bob = { id: '2', bot: false };
const cy = { id: '3', bot: false };
const robot = { id: '4', bot: true };
const recipients: CallRecipient[] = [ada, bob, cy, robot];
const UNTIL = '2025-01-01T00:01:00.000Z';
const LATER = '2025-01-01T00:02:00.000Z';

const call = (over: Partial<CallData> = {}): CallData => ({ region: null, ringing: [], voice_states: [], ...over });
const voice = (userId: string, over: Partial<CallVoiceStateData> = {}): CallVoiceStateData => ({
  user_id: userId,
  session_id: `s${userId}`,
  node: 'n1',
  self_mute: false,
  self_deaf: false,
  self_video: false,
  ...over,
});
const rung = (userIds: string[], after: CallData, started = false, until = UNTIL): CallEvent => ({
  type: 'CallRung',
  data: { channelId: C, ringingBy: ada.id, userIds, until, started, call: after },
});
const joined = (state: CallVoiceStateData, after: CallData, started = false): CallEvent => ({
  type: 'CallJoined',
  data: { channelId: C, state, started, call: after },
});
const ring = (userIds: string[] | null, actorId = ada.id, until = UNTIL) => ({ type: 'RingCall' as const, channelId: C, actorId, recipients, userIds, until });

describe('ringing', () => {
  it('rings everyone else who can answer (not the ringer, not bots), starting the call', () =>
    given(callDecider, [])
      .when(ring(null))
      .then([
        rung(
          [bob.id, cy.id],
          call({
            ringing: [
              { user_id: bob.id, until: UNTIL },
              { user_id: cy.id, until: UNTIL },
            ],
          }),
          true,
        ),
      ]));

  it('rings the named recipients; ringing again pushes their deadline back without starting a new call', () => {
    const first = rung([bob.id], call({ ringing: [{ user_id: bob.id, until: UNTIL }] }), true);
    given(callDecider, [first])
      .when(ring([bob.id, cy.id, bob.id], ada.id, LATER))
      .then([
        rung(
          [bob.id, cy.id],
          call({
            ringing: [
              { user_id: bob.id, until: LATER },
              { user_id: cy.id, until: LATER },
            ],
          }),
          false,
          LATER,
        ),
      ]);
  });

  it('refuses a non-recipient, the ringer, or a bot at their index, and a channel where nobody could answer', () => {
    const refused = given(callDecider, [])
      .when(ring([bob.id, '99', ada.id, robot.id]))
      .thenRefuses('INVALID_FORM_BODY');
    expect(refused.errors).toEqual([
      { path: 'recipients.1', message: 'Not a recipient of this channel' },
      { path: 'recipients.2', message: 'You cannot ring yourself' },
      { path: 'recipients.3', message: 'Bots cannot be rung' },
    ]);
    const alone = given(callDecider, [])
      .when({ ...ring(null), recipients: [ada, robot] })
      .thenRefuses('INVALID_FORM_BODY');
    expect(alone.errors).toEqual([{ path: 'recipients', message: 'Nobody else in this channel can answer a call' }]);
    given(callDecider, [])
      .when(ring([bob.id], '99'))
      .thenRefuses('UNKNOWN_CHANNEL');
  });

  it('does not ring someone already in the call’s voice', () =>
    given(callDecider, [joined(voice(bob.id), call({ voice_states: [voice(bob.id)] }), true)])
      .when(ring([bob.id]))
      .then([]));

  it('stops ringing the named (or everyone rung), ending the call when nobody is left', () => {
    const both = rung(
      [bob.id, cy.id],
      call({
        ringing: [
          { user_id: bob.id, until: UNTIL },
          { user_id: cy.id, until: UNTIL },
        ],
      }),
      true,
    );
    const stop = (userIds: string[] | null, actorId: string) => ({ type: 'StopRinging' as const, channelId: C, actorId, recipients, userIds });
    given(callDecider, [both])
      .when(stop([bob.id], bob.id))
      .then([
        {
          type: 'CallRingingStopped',
          data: { channelId: C, userIds: [bob.id], stoppedBy: bob.id, call: call({ ringing: [{ user_id: cy.id, until: UNTIL }] }) },
        },
      ]);
    given(callDecider, [both])
      .when(stop(null, ada.id))
      .then([{ type: 'CallRingingStopped', data: { channelId: C, userIds: [bob.id, cy.id], stoppedBy: ada.id, call: call() } }]);
    given(callDecider, [both])
      .when(stop([robot.id], ada.id))
      .then([]);
    given(callDecider, [both])
      .when(stop(['99'], ada.id))
      .thenRefuses('INVALID_FORM_BODY');
  });

  it('times out only the ringing that is due, once', () => {
    const early = rung([bob.id], call({ ringing: [{ user_id: bob.id, until: UNTIL }] }), true);
    const late = rung(
      [cy.id],
      call({
        ringing: [
          { user_id: bob.id, until: UNTIL },
          { user_id: cy.id, until: LATER },
        ],
      }),
      false,
      LATER,
    );
    const timeOut = (now: string) => ({ type: 'TimeOutRinging' as const, channelId: C, now });
    given(callDecider, [early, late]).when(timeOut('2025-01-01T00:00:59.999Z')).then([]);
    given(callDecider, [early, late])
      .when(timeOut(UNTIL))
      .then([
        { type: 'CallRingingStopped', data: { channelId: C, userIds: [bob.id], stoppedBy: null, call: call({ ringing: [{ user_id: cy.id, until: LATER }] }) } },
      ]);
    const stopped: CallEvent = {
      type: 'CallRingingStopped',
      data: { channelId: C, userIds: [bob.id], stoppedBy: null, call: call({ ringing: [{ user_id: cy.id, until: LATER }] }) },
    };
    given(callDecider, [early, late, stopped]).when(timeOut(UNTIL)).then([]);
  });
});

describe('voice', () => {
  const bobRung = rung([bob.id], call({ ringing: [{ user_id: bob.id, until: UNTIL }] }), true);

  it('joining answers: the joiner is no longer rung, and the call goes on', () =>
    given(callDecider, [bobRung])
      .when({ type: 'JoinCall', channelId: C, state: voice(bob.id) })
      .then([joined(voice(bob.id), call({ voice_states: [voice(bob.id)] }))]));

  it('a join with nobody rung starts the call; the same session again changes only its flags, or nothing', () => {
    const inCall = joined(voice(ada.id), call({ voice_states: [voice(ada.id)] }), true);
    given(callDecider, [])
      .when({ type: 'JoinCall', channelId: C, state: voice(ada.id) })
      .then([inCall]);
    given(callDecider, [inCall])
      .when({ type: 'JoinCall', channelId: C, state: voice(ada.id) })
      .then([]);
    const muted = voice(ada.id, { self_mute: true });
    given(callDecider, [inCall])
      .when({ type: 'JoinCall', channelId: C, state: muted })
      .then([{ type: 'CallSelfStateChanged', data: { channelId: C, state: muted, call: call({ voice_states: [muted] }) } }]);
  });

  it('another session of the same user takes the voice state over', () => {
    const inCall = joined(voice(ada.id), call({ voice_states: [voice(ada.id)] }), true);
    const moved = voice(ada.id, { session_id: 'other', node: 'n2' });
    given(callDecider, [inCall])
      .when({ type: 'JoinCall', channelId: C, state: moved })
      .then([joined(moved, call({ voice_states: [moved] }))]);
  });

  it('leaves: by any session of the user, or only by the session that holds it; the last one out ends the call', () => {
    const inCall = joined(voice(ada.id), call({ voice_states: [voice(ada.id)] }), true);
    const left: CallEvent = { type: 'CallLeft', data: { channelId: C, state: voice(ada.id), call: call() } };
    given(callDecider, [inCall]).when({ type: 'LeaveCall', channelId: C, userId: ada.id, sessionId: null }).then([left]);
    given(callDecider, [inCall])
      .when({ type: 'LeaveCall', channelId: C, userId: ada.id, sessionId: `s${ada.id}` })
      .then([left]);
    given(callDecider, [inCall]).when({ type: 'LeaveCall', channelId: C, userId: ada.id, sessionId: 'ended-elsewhere' }).then([]);
    given(callDecider, []).when({ type: 'LeaveCall', channelId: C, userId: ada.id, sessionId: null }).then([]);
  });

  it('drops a user who stopped being a recipient from the voice and the ringing', () => {
    const both = joined(voice(bob.id), call({ ringing: [{ user_id: cy.id, until: UNTIL }], voice_states: [voice(bob.id)] }), true);
    given(callDecider, [both])
      .when({ type: 'DropFromCall', channelId: C, userId: bob.id })
      .then([{ type: 'CallLeft', data: { channelId: C, state: voice(bob.id), call: call({ ringing: [{ user_id: cy.id, until: UNTIL }] }) } }]);
    given(callDecider, [both])
      .when({ type: 'DropFromCall', channelId: C, userId: cy.id })
      .then([{ type: 'CallRingingStopped', data: { channelId: C, userIds: [cy.id], stoppedBy: null, call: call({ voice_states: [voice(bob.id)] }) } }]);
  });
});

describe('region', () => {
  it('is kept from one call to the next; the same region again is no change', () => {
    const changed: CallEvent = {
      type: 'CallRegionChanged',
      data: { channelId: C, region: 'rotterdam', changedBy: ada.id, call: call({ region: 'rotterdam' }) },
    };
    given(callDecider, []).when({ type: 'SetCallRegion', channelId: C, actorId: ada.id, region: 'rotterdam' }).then([changed]);
    given(callDecider, [changed]).when({ type: 'SetCallRegion', channelId: C, actorId: bob.id, region: 'rotterdam' }).then([]);
    given(callDecider, [changed])
      .when(ring([bob.id]))
      .then([rung([bob.id], call({ region: 'rotterdam', ringing: [{ user_id: bob.id, until: UNTIL }] }), true)]);
  });
});
