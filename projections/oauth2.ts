// Read model of OAuth2 access tokens, for authentication: one document per live access token, keyed by its SHA-256,
// with what the token may do (its scopes), for whom (user_id), through which client, and until when. Codes and
// refresh tokens are checked on their grant's stream and have no document here.
import type { Scope } from '../domain/oauth2.js';
import type { WriteOp } from '../ports/readStore.js';
import { OAUTH2_TOKENS } from './collections.js';
import { projection } from './projection.js';

export interface OAuth2TokenDoc {
  /** SHA-256 of the access token. */
  _id: string;
  user_id: string;
  application_id: string;
  grant_id: string;
  scopes: Scope[];
  /** ISO 8601; the token answers 401 from then on. */
  expires_at: string;
  [key: string]: unknown;
}

const issued = (data: { grantId: string; applicationId: string; userId: string; scopes: Scope[]; accessTokenHash: string; expiresAt: string }): WriteOp => {
  const doc: OAuth2TokenDoc = {
    _id: data.accessTokenHash,
    user_id: data.userId,
    application_id: data.applicationId,
    grant_id: data.grantId,
    scopes: data.scopes,
    expires_at: data.expiresAt,
  };
  return { replaceOne: { collection: OAUTH2_TOKENS, filter: { _id: doc._id }, replacement: doc, upsert: true } };
};

const dropped = (tokenHash: string): WriteOp => ({ deleteOne: { collection: OAUTH2_TOKENS, filter: { _id: tokenHash } } });

export const oauth2Projection = projection({
  name: 'oauth2',
  handles: ['OAuth2TokensIssued', 'OAuth2TokensRefreshed', 'OAuth2GrantRevoked'],
  collections: [OAUTH2_TOKENS],
  indexes: [{ collection: OAUTH2_TOKENS, keys: { user_id: 1 } }],
  cachedById: [OAUTH2_TOKENS],
  project(event) {
    switch (event.type) {
      case 'OAuth2TokensIssued':
        return [issued(event.data)];
      // A refresh rotates the pair: the access token it replaces stops working with it.
      case 'OAuth2TokensRefreshed':
        return [dropped(event.data.previousAccessTokenHash), issued(event.data)];
      case 'OAuth2GrantRevoked':
        return event.data.accessTokenHash ? [dropped(event.data.accessTokenHash)] : [];
    }
  },
});
