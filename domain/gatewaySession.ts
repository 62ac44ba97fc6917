// A gateway session (stream gateway-session-{id}): started by an IDENTIFY. The starts are counted per user over
// 24 hours for GET /gateway/bot's session_start_limit.
import type { Decider, DomainEvent } from './decider.js';
import { DomainError } from './errors.js';

export const SESSION_START_LIMIT = 1000;
export const SESSION_START_WINDOW_MS = 24 * 60 * 60 * 1000;

export type GatewaySessionStarted = DomainEvent<'GatewaySessionStarted', { sessionId: string; userId: string; intents: number; shard: [number, number] }>;

export type GatewaySessionCommand = { type: 'StartGatewaySession'; sessionId: string; userId: string; intents: number; shard: [number, number]; startsInWindow: number };

export const gatewaySessionDecider: Decider<{ started: boolean }, GatewaySessionCommand, GatewaySessionStarted> = {
  initialState: () => ({ started: false }),
  decide(command, state) {
    if (state.started) throw new DomainError('conflict', 'SESSION_EXISTS', 'Session already started');
    if (command.startsInWindow >= SESSION_START_LIMIT) throw new DomainError('rate_limited', 'SESSION_START_LIMIT', 'Session start limit reached for the next 24 hours');
    const { sessionId, userId, intents, shard } = command;
    return [{ type: 'GatewaySessionStarted', data: { sessionId, userId, intents, shard } }];
  },
  evolve: () => ({ started: true }),
};

/** session_start_limit as GET /gateway/bot reports it, from the start times within the last 24 hours. */
export function sessionStartLimit(startTimes: number[], now: number) {
  const recent = startTimes.filter((t) => t > now - SESSION_START_WINDOW_MS);
  const oldest = recent.length ? Math.min(...recent) : now;
  return {
    total: SESSION_START_LIMIT,
    remaining: Math.max(SESSION_START_LIMIT - recent.length, 0),
    reset_after: recent.length ? oldest + SESSION_START_WINDOW_MS - now : SESSION_START_WINDOW_MS,
    max_concurrency: 1,
  };
}
