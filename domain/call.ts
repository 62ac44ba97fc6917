// The call of a DM or group DM (stream call-{channelId}): who is being rung and until when, who is in its voice, and
// the region picked for it. A call is going on while someone is rung or in voice; it ends when neither is left, and
// the next ring or join starts a new one on the same stream. Parley carries no audio: the voice states are what
// clients read. People take part; bots are never rung (nor join: the gateway ignores their op 4 for a DM).
// Every event carries the call as it is after it (`call`), as RecipientAdded carries the recipients: the read model
// and the gateway's CALL_* need no lookups and always show the state the event made.
import type { Decider, DomainEvent } from './decider.js';
import { type FieldError, invalidForm, notFound } from './errors.js';

/** A voice state in a call, held by one gateway session on one gateway node. */
export interface CallVoiceStateData {
  user_id: string;
  session_id: string;
  node: string;
  self_mute: boolean;
  self_deaf: boolean;
  self_video: boolean;
}

/** A user being rung, until `until` (ISO 8601): past it, the ringing stops by itself. */
export interface RingingData {
  user_id: string;
  until: string;
}

export interface CallData {
  /** A region id of the configuration; null: none picked (automatic). Kept from one call to the next. */
  region: string | null;
  ringing: RingingData[];
  voice_states: CallVoiceStateData[];
}

/** A DM participant, as far as ringing cares. */
export interface CallRecipient {
  id: string;
  bot: boolean;
}

/** `started`: this ring began the call (CALL_CREATE rather than CALL_UPDATE). */
export type CallRung = DomainEvent<'CallRung', { channelId: string; ringingBy: string; userIds: string[]; until: string; started: boolean; call: CallData }>;
/** `stoppedBy` null: nobody answered in time, or the user stopped being a recipient. */
export type CallRingingStopped = DomainEvent<'CallRingingStopped', { channelId: string; userIds: string[]; stoppedBy: string | null; call: CallData }>;
export type CallRegionChanged = DomainEvent<'CallRegionChanged', { channelId: string; region: string | null; changedBy: string; call: CallData }>;
/** A user's voice joined the call, or moved to another session of theirs; joining stops their ringing. */
export type CallJoined = DomainEvent<'CallJoined', { channelId: string; state: CallVoiceStateData; started: boolean; call: CallData }>;
/** The self mute, deaf or video flags of a voice state in the call changed. */
export type CallSelfStateChanged = DomainEvent<'CallSelfStateChanged', { channelId: string; state: CallVoiceStateData; call: CallData }>;
export type CallLeft = DomainEvent<'CallLeft', { channelId: string; state: CallVoiceStateData; call: CallData }>;
export type CallEvent = CallRung | CallRingingStopped | CallRegionChanged | CallJoined | CallSelfStateChanged | CallLeft;

export interface CallState extends CallData {
  channelId: string | null;
}

export type CallCommand =
  /** `userIds` null rings everyone else who can answer. `recipients`: the channel's, as the command layer read them. */
  | { type: 'RingCall'; channelId: string; actorId: string; recipients: CallRecipient[]; userIds: string[] | null; until: string }
  /** `userIds` null stops ringing everyone. */
  | { type: 'StopRinging'; channelId: string; actorId: string; recipients: CallRecipient[]; userIds: string[] | null }
  /** The ringing of everyone whose deadline is `now` or earlier stops. */
  | { type: 'TimeOutRinging'; channelId: string; now: string }
  | { type: 'SetCallRegion'; channelId: string; actorId: string; region: string | null }
  | { type: 'JoinCall'; channelId: string; state: CallVoiceStateData }
  /** `sessionId`: leave only if that session holds the voice state (a session that ended); null: whichever does. */
  | { type: 'LeaveCall'; channelId: string; userId: string; sessionId: string | null }
  /** The user is no longer a recipient: out of the voice and no longer rung. */
  | { type: 'DropFromCall'; channelId: string; userId: string };

/** Every call event: each carries the call as it now is. */
export const CALL_EVENT_TYPES = [
  'CallRung',
  'CallRingingStopped',
  'CallRegionChanged',
  'CallJoined',
  'CallSelfStateChanged',
  'CallLeft',
] as const satisfies readonly CallEvent['type'][];

export const isCallGoingOn = (call: CallData) => call.ringing.length > 0 || call.voice_states.length > 0;

const callOf = (state: CallState): CallData => ({ region: state.region, ringing: state.ringing, voice_states: state.voice_states });
const without = <T extends { user_id: string }>(list: T[], userIds: readonly string[]) => list.filter((entry) => !userIds.includes(entry.user_id));
const sameFlags = (a: CallVoiceStateData, b: CallVoiceStateData) => a.self_mute === b.self_mute && a.self_deaf === b.self_deaf && a.self_video === b.self_video;

/** The users a command names, deduplicated; `refuse` says why one may not be named (null: it may). */
function named(userIds: readonly string[], refuse: (userId: string) => string | null): string[] {
  const errors: FieldError[] = userIds.flatMap((userId, i) => {
    const message = refuse(userId);
    return message ? [{ path: `recipients.${i}`, message }] : [];
  });
  if (errors.length) throw invalidForm(errors);
  return [...new Set(userIds)];
}

function ring(command: Extract<CallCommand, { type: 'RingCall' }>, state: CallState): CallEvent[] {
  const recipient = (id: string) => command.recipients.find((r) => r.id === id);
  const answerable = command.recipients.filter((r) => r.id !== command.actorId && !r.bot).map((r) => r.id);
  const targets = command.userIds
    ? named(command.userIds, (id) => {
        if (!recipient(id)) return 'Not a recipient of this channel';
        if (id === command.actorId) return 'You cannot ring yourself';
        return recipient(id)!.bot ? 'Bots cannot be rung' : null;
      })
    : answerable;
  if (targets.length === 0) throw invalidForm([{ path: 'recipients', message: 'Nobody else in this channel can answer a call' }]);
  // Someone already in the call's voice has answered: ringing them again means nothing.
  const userIds = targets.filter((id) => !state.voice_states.some((v) => v.user_id === id));
  if (userIds.length === 0) return [];
  const ringing = [...without(state.ringing, userIds), ...userIds.map((user_id) => ({ user_id, until: command.until }))];
  const call = { ...callOf(state), ringing };
  return [
    {
      type: 'CallRung',
      data: { channelId: command.channelId, ringingBy: command.actorId, userIds, until: command.until, started: !isCallGoingOn(state), call },
    },
  ];
}

function stopRinging(channelId: string, state: CallState, userIds: string[], stoppedBy: string | null): CallEvent[] {
  const stopped = userIds.filter((id) => state.ringing.some((r) => r.user_id === id));
  if (stopped.length === 0) return [];
  return [
    { type: 'CallRingingStopped', data: { channelId, userIds: stopped, stoppedBy, call: { ...callOf(state), ringing: without(state.ringing, stopped) } } },
  ];
}

function leave(channelId: string, state: CallState, userId: string, sessionId: string | null): CallLeft[] {
  const current = state.voice_states.find((v) => v.user_id === userId);
  if (!current || (sessionId !== null && current.session_id !== sessionId)) return [];
  return [{ type: 'CallLeft', data: { channelId, state: current, call: { ...callOf(state), voice_states: without(state.voice_states, [userId]) } } }];
}

function join(command: Extract<CallCommand, { type: 'JoinCall' }>, state: CallState): CallEvent[] {
  const { channelId, state: joining } = command;
  const current = state.voice_states.find((v) => v.user_id === joining.user_id);
  if (current && current.session_id === joining.session_id && current.node === joining.node) {
    if (sameFlags(current, joining)) return [];
    const voice_states = state.voice_states.map((v) => (v.user_id === joining.user_id ? joining : v));
    return [{ type: 'CallSelfStateChanged', data: { channelId, state: joining, call: { ...callOf(state), voice_states } } }];
  }
  const call = {
    ...callOf(state),
    ringing: without(state.ringing, [joining.user_id]),
    voice_states: [...without(state.voice_states, [joining.user_id]), joining],
  };
  return [{ type: 'CallJoined', data: { channelId, state: joining, started: !isCallGoingOn(state), call } }];
}

export const callDecider: Decider<CallState, CallCommand, CallEvent> = {
  initialState: () => ({ channelId: null, region: null, ringing: [], voice_states: [] }),

  decide(command, state) {
    switch (command.type) {
      case 'RingCall':
      case 'StopRinging': {
        if (!command.recipients.some((r) => r.id === command.actorId)) throw notFound('UNKNOWN_CHANNEL', 'Unknown Channel');
        if (command.type === 'RingCall') return ring(command, state);
        const userIds = command.userIds
          ? named(command.userIds, (id) => (command.recipients.some((r) => r.id === id) ? null : 'Not a recipient of this channel'))
          : state.ringing.map((r) => r.user_id);
        return stopRinging(command.channelId, state, userIds, command.actorId);
      }
      case 'TimeOutRinging': {
        const due = state.ringing.filter((r) => Date.parse(r.until) <= Date.parse(command.now)).map((r) => r.user_id);
        return stopRinging(command.channelId, state, due, null);
      }
      case 'SetCallRegion':
        if (command.region === state.region) return [];
        return [
          {
            type: 'CallRegionChanged',
            data: { channelId: command.channelId, region: command.region, changedBy: command.actorId, call: { ...callOf(state), region: command.region } },
          },
        ];
      case 'JoinCall':
        return join(command, state);
      case 'LeaveCall':
        return leave(command.channelId, state, command.userId, command.sessionId);
      case 'DropFromCall': {
        const left = leave(command.channelId, state, command.userId, null);
        const after = left.length ? callDecider.evolve(state, left[0]) : state;
        return [...left, ...stopRinging(command.channelId, after, [command.userId], null)];
      }
    }
  },

  evolve(_state, event) {
    return { channelId: event.data.channelId, ...event.data.call };
  },
};
