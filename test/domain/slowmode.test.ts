// Given/when/then on slowmode: one user's messages, or the threads they start, in one slowed channel, spaced out by its
// rate_limit_per_user.
import { describe, expect, it } from 'vitest';
import { type SlowmodeAction, type SlowmodeSendAdmitted, type SlowmodeThreadAdmitted, slowmodeDecider } from '../../domain/slowmode.js';
import { given } from '../support/given.js';

const admitted = (at: number): SlowmodeSendAdmitted => ({ type: 'SlowmodeSendAdmitted', data: { channelId: 'c', userId: 'u', at } });
const threadAdmitted = (at: number): SlowmodeThreadAdmitted => ({ type: 'SlowmodeThreadAdmitted', data: { channelId: 'c', userId: 'u', at } });
const send = (at: number, windowSeconds = 10, action: SlowmodeAction = 'message') =>
  ({ type: 'AdmitSlowmode', action, channelId: 'c', userId: 'u', at, windowSeconds }) as const;

describe('slowmode', () => {
  it('lets the first send through, and the next once the window has passed', () => {
    given(slowmodeDecider, [])
      .when(send(1_000))
      .then([admitted(1_000)]);
    given(slowmodeDecider, [admitted(1_000)])
      .when(send(11_000))
      .then([admitted(11_000)]);
  });

  it('refuses a send inside the window with 429 and the seconds left', () => {
    const refused = given(slowmodeDecider, [admitted(1_000)])
      .when(send(3_500))
      .thenRefuses('SLOWMODE_RATE_LIMITED');
    expect({ kind: refused.kind, retryAfter: refused.retryAfter }).toEqual({ kind: 'rate_limited', retryAfter: 7.5 });
  });

  it('judges the window by the channel’s current rate_limit_per_user', () => {
    given(slowmodeDecider, [admitted(1_000)])
      .when(send(3_500, 2))
      .then([admitted(3_500)]);
  });

  it('records a thread as a thread, and holds the next one to the window', () => {
    given(slowmodeDecider, [])
      .when(send(1_000, 10, 'thread'))
      .then([threadAdmitted(1_000)]);
    given(slowmodeDecider, [threadAdmitted(1_000)])
      .when(send(5_000, 10, 'thread'))
      .thenRefuses('SLOWMODE_RATE_LIMITED');
  });
});
