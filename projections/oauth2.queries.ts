// Reads of the OAuth2 projection.
import type { ReadStore } from '../ports/readStore.js';
import { OAUTH2_TOKENS } from './collections.js';
import type { OAuth2TokenDoc } from './oauth2.js';

/** The live access token whose SHA-256 this is (expired ones included: the caller compares expires_at). */
export const oauth2TokenByHash = (read: Pick<ReadStore, 'findOne'>, tokenHash: string) => read.findOne<OAuth2TokenDoc>(OAUTH2_TOKENS, { _id: tokenHash });

/** A person's live access tokens (one per active grant, expired ones included). */
export const oauth2TokensOfUser = (read: Pick<ReadStore, 'find'>, userId: string) => read.find<OAuth2TokenDoc>(OAUTH2_TOKENS, { user_id: userId });
