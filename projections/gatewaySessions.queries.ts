// Reads of the gateway session starts.
import type { ReadStore } from '../ports/readStore.js';
import { GATEWAY_SESSIONS } from './collections.js';
import type { GatewaySessionDoc } from './gatewaySessions.js';

/** A user's session starts after `since` (ms since the epoch). */
export const sessionStartsSince = (read: Pick<ReadStore, 'find'>, userId: string, since: number) =>
  read.find<GatewaySessionDoc>(GATEWAY_SESSIONS, { user_id: userId, started_at: { $gt: since } });
