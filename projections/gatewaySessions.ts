// Gateway session starts, for counting IDENTIFYs per user over 24 hours.
import type { GatewaySessionStarted } from '../domain/gatewaySession.js';
import { GATEWAY_SESSIONS } from './collections.js';
import { type Projection, is } from './projection.js';

export interface GatewaySessionDoc {
  _id: string;
  user_id: string;
  /** ms since the epoch */
  started_at: number;
  [key: string]: unknown;
}

export const gatewaySessionsProjection: Projection = {
  name: 'gateway_sessions',
  collections: [GATEWAY_SESSIONS],
  indexes: [{ collection: GATEWAY_SESSIONS, keys: { user_id: 1, started_at: 1 } }],
  project(event) {
    if (!is<GatewaySessionStarted, 'GatewaySessionStarted'>(event, 'GatewaySessionStarted')) return [];
    const doc: GatewaySessionDoc = { _id: event.data.sessionId, user_id: event.data.userId, started_at: Date.parse(event.metadata.createdAt) };
    return [{ replaceOne: { collection: GATEWAY_SESSIONS, filter: { _id: doc._id }, replacement: doc, upsert: true } }];
  },
};
