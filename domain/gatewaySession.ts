// Gateway session starts (stream gateway-session-starts-{userId}): every IDENTIFY claims one of its user's session
// starts for the next 24 hours. The claim is decided on the user's own stream and appended at the revision that
// decision saw, so IDENTIFYs racing each other conflict and are decided again on the fresh state: however many
// arrive at once, no more than the limit start. GET /gateway/bot reports the same starts from a read model.
import type { Decider, DomainEvent } from './decider.js';
import { DomainError } from './errors.js';

export const SESSION_START_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * `startedAt` (ms since the epoch) is what the decider folds. Events from before the per-user stream (one per
 * session stream) lack it; only the read model, which dates starts by their metadata, reads those.
 */
export type GatewaySessionStarted = DomainEvent<
  'GatewaySessionStarted',
  { sessionId: string; userId: string; intents: number; shard: [number, number]; startedAt: number }
>;

/** `limit` is the configured total per window; `at` is when the IDENTIFY arrived. */
export type StartGatewaySession = {
  type: 'StartGatewaySession';
  sessionId: string;
  userId: string;
  intents: number;
  shard: [number, number];
  at: number;
  limit: number;
};

/** The user's start times within 24 hours of the latest one, oldest first. */
export type SessionStarts = number[];

const within = (starts: SessionStarts, now: number) => starts.filter((t) => t > now - SESSION_START_WINDOW_MS);

export const sessionStartsDecider: Decider<SessionStarts, StartGatewaySession, GatewaySessionStarted> = {
  initialState: () => [],
  decide(command, starts) {
    if (within(starts, command.at).length >= command.limit) {
      throw new DomainError('rate_limited', 'SESSION_START_LIMIT', 'Session start limit reached for the next 24 hours');
    }
    const { sessionId, userId, intents, shard, at } = command;
    return [{ type: 'GatewaySessionStarted', data: { sessionId, userId, intents, shard, startedAt: at } }];
  },
  // Starts that fell out of the window can refuse nothing any more; dropping them keeps the state at most a limit long.
  evolve: (starts, event) => [...within(starts, event.data.startedAt), event.data.startedAt],
};

/** session_start_limit as GET /gateway/bot reports it, from the start times within the last 24 hours. */
export function sessionStartLimit(startTimes: number[], now: number, limit: number) {
  const recent = within(startTimes, now);
  // Not Math.min(...recent): a configured limit can exceed how many arguments a call may take.
  const oldest = recent.reduce((min, t) => Math.min(min, t), now);
  return {
    total: limit,
    remaining: Math.max(limit - recent.length, 0),
    reset_after: oldest + SESSION_START_WINDOW_MS - now,
    max_concurrency: 1,
  };
}
