// Slowmode: a channel's rate_limit_per_user spaces out one user's sends there. Each (channel, user) has its own small
// stream (slowmode-{channel}-{user}) holding when their last send was let through, so the window is decided with the
// log's consistency: two sends at once queue on the stream and the second sees the first's time (a writer in another
// process loses the append and is decided again). Sends by others, or in other channels, never meet on it, and only
// slowed channels' sends by members who are not exempt use it.
import type { Decider, DomainEvent } from './decider.js';
import { DomainError } from './errors.js';

export type SlowmodeSendAdmitted = DomainEvent<'SlowmodeSendAdmitted', { channelId: string; userId: string; at: number }>;

/** `at`: the send's time (ms since the epoch); `windowSeconds`: the channel's rate_limit_per_user when it is sent. */
export type AdmitSlowmodeSend = { type: 'AdmitSlowmodeSend'; channelId: string; userId: string; at: number; windowSeconds: number };

/** When the user's last send in the channel was let through; null before the first. */
export type SlowmodeState = number | null;

/** The widely used API's answer to a send inside the window: 429 with the seconds left, code 20016's words. */
export const slowmodeLimited = (retryAfter: number) =>
  new DomainError('rate_limited', 'SLOWMODE_RATE_LIMITED', 'This action cannot be performed due to slowmode rate limit.', undefined, retryAfter);

export const slowmodeDecider: Decider<SlowmodeState, AdmitSlowmodeSend, SlowmodeSendAdmitted> = {
  initialState: () => null,
  decide(command, last) {
    const { channelId, userId, at, windowSeconds } = command;
    const opens = last === null ? at : last + windowSeconds * 1000;
    if (at < opens) throw slowmodeLimited((opens - at) / 1000);
    return [{ type: 'SlowmodeSendAdmitted', data: { channelId, userId, at } }];
  },
  evolve: (_last, event) => event.data.at,
};
