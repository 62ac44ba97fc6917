// Gateway session starts: each IDENTIFY is recorded, and refused past the 24-hour session start limit.
import { SESSION_START_WINDOW_MS, gatewaySessionDecider, sessionStartLimit } from '../domain/gatewaySession.js';
import type { GatewaySessionDoc } from '../projections/gatewaySessions.js';
import { type CommandDeps, metadata } from './deps.js';

async function recentStarts(deps: CommandDeps, userId: string, now: number): Promise<number[]> {
  const docs = await deps.readStore.find<GatewaySessionDoc>('gateway_sessions', { user_id: userId, started_at: { $gt: now - SESSION_START_WINDOW_MS } });
  return docs.map((d) => d.started_at);
}

export async function startGatewaySession(deps: CommandDeps, input: { sessionId: string; userId: string; intents: number; shard: [number, number] }) {
  const starts = await recentStarts(deps, input.userId, Date.now());
  const { position } = await deps.commands.handle(
    `gateway-session-${input.sessionId}`,
    gatewaySessionDecider,
    { type: 'StartGatewaySession', ...input, startsInWindow: starts.length },
    metadata({ actorId: input.userId }),
  );
  await deps.settle(position);
}

export async function sessionStartLimitOf(deps: CommandDeps, userId: string) {
  const now = Date.now();
  return sessionStartLimit(await recentStarts(deps, userId, now), now);
}
