// Gateway session starts, for counting IDENTIFYs per user over 24 hours.
import { GATEWAY_SESSIONS } from './collections.js';
import { projection } from './projection.js';

export interface GatewaySessionDoc {
  _id: string;
  user_id: string;
  /** ms since the epoch */
  started_at: number;
  [key: string]: unknown;
}

export const gatewaySessionsProjection = projection({
  name: 'gateway_sessions',
  handles: ['GatewaySessionStarted'],
  collections: [GATEWAY_SESSIONS],
  indexes: [{ collection: GATEWAY_SESSIONS, keys: { user_id: 1, started_at: 1 } }],
  project(event) {
    const doc: GatewaySessionDoc = { _id: event.data.sessionId, user_id: event.data.userId, started_at: Date.parse(event.metadata.createdAt) };
    return [{ replaceOne: { collection: GATEWAY_SESSIONS, filter: { _id: doc._id }, replacement: doc, upsert: true } }];
  },
});
