// Slowmode: a channel's rate_limit_per_user spaces out one user's messages there, and, tracked apart, the threads they
// start there (one message and one thread per interval, as on the widely used API). Each (channel, user, action) has
// its own small stream (slowmode-{channel}-{user} for messages, slowmode-threads-{channel}-{user} for threads) holding
// when the last one was let through, so the window is decided with the log's consistency: two at once queue on the
// stream and the second sees the first's time (a writer in another process loses the append and is decided again).
// Others' sends, or sends in other channels, never meet on it, and only slowed channels' sends by users who are not
// exempt use it.
import type { Decider, DomainEvent } from './decider.js';
import { DomainError } from './errors.js';

/** What slowmode spaces out, each on its own: a user's messages in a channel, and the threads they start there. */
export type SlowmodeAction = 'message' | 'thread';

type Admitted = { channelId: string; userId: string; at: number };
export type SlowmodeSendAdmitted = DomainEvent<'SlowmodeSendAdmitted', Admitted>;
export type SlowmodeThreadAdmitted = DomainEvent<'SlowmodeThreadAdmitted', Admitted>;
export type SlowmodeEvent = SlowmodeSendAdmitted | SlowmodeThreadAdmitted;

/** `at`: the message's or thread's time (ms since the epoch); `windowSeconds`: the channel's rate_limit_per_user then. */
export type AdmitSlowmode = { type: 'AdmitSlowmode'; action: SlowmodeAction; channelId: string; userId: string; at: number; windowSeconds: number };

/** When the user's last message (or thread) in the channel was let through; null before the first. */
export type SlowmodeState = number | null;

/** The widely used API's answer to a send inside the window: 429 with the seconds left, code 20016's words. */
export const slowmodeLimited = (retryAfter: number) =>
  new DomainError('rate_limited', 'SLOWMODE_RATE_LIMITED', 'This action cannot be performed due to slowmode rate limit.', undefined, retryAfter);

export const slowmodeDecider: Decider<SlowmodeState, AdmitSlowmode, SlowmodeEvent> = {
  initialState: () => null,
  decide(command, last) {
    const { action, channelId, userId, at, windowSeconds } = command;
    const opens = last === null ? at : last + windowSeconds * 1000;
    if (at < opens) throw slowmodeLimited((opens - at) / 1000);
    return [{ type: action === 'thread' ? 'SlowmodeThreadAdmitted' : 'SlowmodeSendAdmitted', data: { channelId, userId, at } }];
  },
  evolve: (_last, event) => event.data.at,
};
