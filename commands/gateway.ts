// Gateway session starts: each IDENTIFY claims a start on its user's stream, refused past the 24-hour session start
// limit; GET /gateway/bot counts the same starts on the read model.
import { DomainError } from '../domain/errors.js';
import { SESSION_START_WINDOW_MS, sessionStartLimit, sessionStartsDecider } from '../domain/gatewaySession.js';
import type { Config } from '../ports/config.js';
import { WrongExpectedVersionError } from '../ports/eventStore.js';
import { sessionStartsSince } from '../projections/gatewaySessions.queries.js';
import { type Uses, metadata } from './deps.js';
import { sessionStartsStream } from './streams.js';

type Limit = { config: Pick<Config, 'gatewaySessionStartLimit'> };

/**
 * Claims one of the user's session starts, or throws SESSION_START_LIMIT; SESSION_START_CONCURRENCY when other
 * IDENTIFYs of the same user won every retry (more at once than max_concurrency allows: try again shortly).
 */
export async function startGatewaySession(
  deps: Uses<'commands' | 'clock' | 'settle'> & Limit,
  input: { sessionId: string; userId: string; intents: number; shard: [number, number] },
) {
  const command = { type: 'StartGatewaySession' as const, ...input, at: deps.clock.now(), limit: deps.config.gatewaySessionStartLimit };
  const claimed = await deps.commands
    .handle(sessionStartsStream(input.userId), sessionStartsDecider, command, metadata({ actorId: input.userId }, deps.clock))
    .catch((error: unknown) => {
      if (error instanceof WrongExpectedVersionError) throw new DomainError('rate_limited', 'SESSION_START_CONCURRENCY', 'Too many concurrent IDENTIFYs');
      throw error;
    });
  await deps.settle(claimed.position);
}

export async function sessionStartLimitOf(deps: Uses<'readStore' | 'clock'> & Limit, userId: string) {
  const now = deps.clock.now();
  const docs = await sessionStartsSince(deps.readStore, userId, now - SESSION_START_WINDOW_MS);
  return sessionStartLimit(
    docs.map((d) => d.started_at),
    now,
    deps.config.gatewaySessionStartLimit,
  );
}
