// The OAuth2 grant aggregate (stream oauth2-grant-{id}): what one person's consent to one application gave, from the
// authorization code through the tokens it was exchanged for, their refreshes, to revocation. One stream per grant
// makes the code single-use and the refresh token rotate without coordination: each is claimed by an append at the
// revision it was checked on, so of two requests racing with the same code or refresh token only one succeeds.
// Codes and tokens enter as SHA-256 hashes only.
import type { Decider, DomainEvent } from './decider.js';
import { DomainError } from './errors.js';
import { OAuth2Error, type Scope } from './oauth2.js';

export type OAuth2CodeIssued = DomainEvent<
  'OAuth2CodeIssued',
  { grantId: string; applicationId: string; userId: string; scopes: Scope[]; redirectUri: string; codeHash: string; expiresAt: string }
>;
export type OAuth2TokensIssued = DomainEvent<
  'OAuth2TokensIssued',
  { grantId: string; applicationId: string; userId: string; scopes: Scope[]; accessTokenHash: string; refreshTokenHash: string; expiresAt: string }
>;
/** `scopes` are the new access token's: the grant's, or fewer when the refresh asked for fewer. */
export type OAuth2TokensRefreshed = DomainEvent<
  'OAuth2TokensRefreshed',
  {
    grantId: string;
    applicationId: string;
    userId: string;
    scopes: Scope[];
    accessTokenHash: string;
    refreshTokenHash: string;
    expiresAt: string;
    previousAccessTokenHash: string;
  }
>;
/**
 * `reason` code_reused: the code was presented again after its exchange (RFC 6749 §4.1.2 revokes what it gave);
 * account_deleted: the person deleted their account.
 */
export type OAuth2GrantRevoked = DomainEvent<
  'OAuth2GrantRevoked',
  { grantId: string; applicationId: string; userId: string; accessTokenHash: string | null; reason: 'revoked' | 'code_reused' | 'account_deleted' }
>;
export type OAuth2GrantEvent = OAuth2CodeIssued | OAuth2TokensIssued | OAuth2TokensRefreshed | OAuth2GrantRevoked;

export interface OAuth2GrantState {
  status: 'none' | 'code_issued' | 'active' | 'revoked';
  grantId: string;
  applicationId: string;
  userId: string;
  /** What the person consented to; a refresh may narrow one access token, never the grant. */
  scopes: Scope[];
  redirectUri: string;
  codeHash: string;
  codeExpiresAt: number;
  accessTokenHash: string | null;
  refreshTokenHash: string | null;
}

/** A new pair of tokens, as hashes, and when the access token expires. */
export interface IssuedTokens {
  accessTokenHash: string;
  refreshTokenHash: string;
  expiresAt: string;
}

export type OAuth2GrantCommand =
  | { type: 'IssueCode'; grantId: string; applicationId: string; userId: string; scopes: Scope[]; redirectUri: string; codeHash: string; expiresAt: string }
  | { type: 'ExchangeCode'; applicationId: string; codeHash: string; redirectUri: string; now: number; issued: IssuedTokens }
  /** `refreshTokenHash` is the presented token's; `scopes` null keeps the grant's. */
  | { type: 'RefreshTokens'; applicationId: string; refreshTokenHash: string; scopes: Scope[] | null; issued: IssuedTokens }
  /** Revokes the grant when `tokenHash` is its current access or refresh token; anything else is no change (RFC 7009 §2.2). */
  | { type: 'RevokeToken'; applicationId: string; tokenHash: string }
  /** The person's account is deleted: an unused code or live tokens stop working; a grant already over is no change. */
  | { type: 'RevokeForDeletedAccount' };

const invalidGrant = (description: string) => new OAuth2Error('invalid_grant', description);

const initialState = (): OAuth2GrantState => ({
  status: 'none',
  grantId: '',
  applicationId: '',
  userId: '',
  scopes: [],
  redirectUri: '',
  codeHash: '',
  codeExpiresAt: 0,
  accessTokenHash: null,
  refreshTokenHash: null,
});

export const oauth2GrantDecider: Decider<OAuth2GrantState, OAuth2GrantCommand, OAuth2GrantEvent> = {
  initialState,

  decide(command, state) {
    const grant = { grantId: state.grantId, applicationId: state.applicationId, userId: state.userId };
    switch (command.type) {
      case 'IssueCode': {
        if (state.status !== 'none') throw new DomainError('conflict', 'GRANT_EXISTS', 'This grant already exists');
        const { type: _, ...data } = command;
        return [{ type: 'OAuth2CodeIssued', data }];
      }
      case 'ExchangeCode': {
        // A code answers the same "invalid" whatever is wrong with it, so that a guess learns nothing.
        const invalid = invalidGrant('The authorization code is invalid, expired, already used, or was issued for another client or redirect_uri');
        if (state.status === 'none' || command.codeHash !== state.codeHash || command.applicationId !== state.applicationId) throw invalid;
        if (state.status === 'active') {
          return [{ type: 'OAuth2GrantRevoked', data: { ...grant, accessTokenHash: state.accessTokenHash, reason: 'code_reused' } }];
        }
        if (state.status !== 'code_issued' || command.redirectUri !== state.redirectUri || command.now >= state.codeExpiresAt) throw invalid;
        return [{ type: 'OAuth2TokensIssued', data: { ...grant, scopes: state.scopes, ...command.issued } }];
      }
      case 'RefreshTokens': {
        if (state.status !== 'active' || command.refreshTokenHash !== state.refreshTokenHash || command.applicationId !== state.applicationId) {
          throw invalidGrant('The refresh token is invalid, revoked, already used, or was issued to another client');
        }
        const beyond = (command.scopes ?? []).filter((scope) => !state.scopes.includes(scope));
        if (beyond.length) throw new OAuth2Error('invalid_scope', `Not granted: ${beyond.join(', ')}`);
        const data = { ...grant, scopes: command.scopes ?? state.scopes, ...command.issued, previousAccessTokenHash: state.accessTokenHash! };
        return [{ type: 'OAuth2TokensRefreshed', data }];
      }
      case 'RevokeToken': {
        const current = command.tokenHash === state.accessTokenHash || command.tokenHash === state.refreshTokenHash;
        if (state.status !== 'active' || !current) return [];
        if (command.applicationId !== state.applicationId) throw invalidGrant('The token was issued to another client');
        return [{ type: 'OAuth2GrantRevoked', data: { ...grant, accessTokenHash: state.accessTokenHash, reason: 'revoked' } }];
      }
      case 'RevokeForDeletedAccount':
        if (state.status !== 'code_issued' && state.status !== 'active') return [];
        return [{ type: 'OAuth2GrantRevoked', data: { ...grant, accessTokenHash: state.accessTokenHash, reason: 'account_deleted' } }];
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'OAuth2CodeIssued': {
        const { applicationId, userId, scopes, redirectUri, codeHash, expiresAt } = event.data;
        return {
          ...initialState(),
          status: 'code_issued',
          grantId: event.data.grantId,
          applicationId,
          userId,
          scopes,
          redirectUri,
          codeHash,
          codeExpiresAt: Date.parse(expiresAt),
        };
      }
      case 'OAuth2TokensIssued':
      case 'OAuth2TokensRefreshed':
        return { ...state, status: 'active', accessTokenHash: event.data.accessTokenHash, refreshTokenHash: event.data.refreshTokenHash };
      case 'OAuth2GrantRevoked':
        return { ...state, status: 'revoked', accessTokenHash: null, refreshTokenHash: null };
    }
  },
};
