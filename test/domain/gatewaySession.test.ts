// Given/when/then on a user's gateway session starts: a start is claimed only while fewer than the limit fall within
// the last 24 hours, and GET /gateway/bot's session_start_limit as computed from the same start times.
import { describe, expect, it } from 'vitest';
import { fold } from '../../domain/decider.js';
import {
  type GatewaySessionStarted,
  SESSION_START_WINDOW_MS,
  type StartGatewaySession,
  sessionStartLimit,
  sessionStartsDecider,
} from '../../domain/gatewaySession.js';
import { given } from '../support/given.js';

const T = Date.parse('2026-01-01T00:00:00.000Z');
const HOUR = 3600_000;
const start = (sessionId: string, at: number, limit = 2): StartGatewaySession => ({
  type: 'StartGatewaySession',
  sessionId,
  userId: 'bot',
  intents: 1,
  shard: [0, 1],
  at,
  limit,
});
const started = (sessionId: string, at: number): GatewaySessionStarted => ({
  type: 'GatewaySessionStarted',
  data: { sessionId, userId: 'bot', intents: 1, shard: [0, 1], startedAt: at },
});

describe('gateway session starts', () => {
  it('starts while fewer than the limit fall within 24 hours, and refuses once they reach it', () => {
    given(sessionStartsDecider, [])
      .when(start('a', T))
      .then([started('a', T)]);
    given(sessionStartsDecider, [started('a', T)])
      .when(start('b', T + HOUR))
      .then([started('b', T + HOUR)]);
    given(sessionStartsDecider, [started('a', T), started('b', T + HOUR)])
      .when(start('c', T + 2 * HOUR))
      .thenRefuses('SESSION_START_LIMIT');
    given(sessionStartsDecider, [started('a', T), started('b', T + HOUR)])
      .when(start('c', T + 2 * HOUR, 3))
      .then([started('c', T + 2 * HOUR)]);
  });

  it('frees a start exactly 24 hours after it was claimed', () => {
    const full = [started('a', T), started('b', T + HOUR)];
    given(sessionStartsDecider, full)
      .when(start('c', T + SESSION_START_WINDOW_MS - 1))
      .thenRefuses('SESSION_START_LIMIT');
    given(sessionStartsDecider, full)
      .when(start('c', T + SESSION_START_WINDOW_MS))
      .then([started('c', T + SESSION_START_WINDOW_MS)]);
  });

  it('refuses the second of two claims decided on the same state once the first is folded in (why appends expect the revision)', () => {
    const state = fold(sessionStartsDecider, [started('a', T)]);
    const first = sessionStartsDecider.decide(start('b', T + 1), state);
    expect(sessionStartsDecider.decide(start('c', T + 2), state)).toHaveLength(1);
    given(sessionStartsDecider, [started('a', T), ...first])
      .when(start('c', T + 2))
      .thenRefuses('SESSION_START_LIMIT');
  });

  it('keeps only the starts within 24 hours of the latest in its state', () => {
    const events = [started('a', T), started('b', T + HOUR), started('c', T + SESSION_START_WINDOW_MS + 2 * HOUR)];
    expect(fold(sessionStartsDecider, events)).toEqual([T + SESSION_START_WINDOW_MS + 2 * HOUR]);
  });
});

describe('session_start_limit', () => {
  it('reports the starts left in the last 24 hours and when the oldest of them frees up', () => {
    expect(sessionStartLimit([], T, 1000)).toEqual({ total: 1000, remaining: 1000, reset_after: SESSION_START_WINDOW_MS, max_concurrency: 1 });
    expect(sessionStartLimit([T - 30 * HOUR, T - 3 * HOUR, T - HOUR], T, 5)).toEqual({
      total: 5,
      remaining: 3,
      reset_after: SESSION_START_WINDOW_MS - 3 * HOUR,
      max_concurrency: 1,
    });
    expect(sessionStartLimit([T - 2 * HOUR, T - HOUR], T, 2).remaining).toBe(0);
  });
});
