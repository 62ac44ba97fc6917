// Reads of the users projection's collections: public users, the login lookup and the token lookup.
import type { ReadStore } from '../ports/readStore.js';
import { LOGINS, TOKENS, USERS } from './collections.js';
import type { LoginDoc, TokenDoc, UserDoc } from './users.js';

export const userById = (read: Pick<ReadStore, 'findOne'>, userId: string) => read.findOne<UserDoc>(USERS, { _id: userId });

export const usersByIds = (read: Pick<ReadStore, 'find'>, userIds: string[]) => read.find<UserDoc>(USERS, { _id: { $in: userIds } });

/** The login (password hash) of an account that has one. */
export const loginById = (read: Pick<ReadStore, 'findOne'>, userId: string) => read.findOne<LoginDoc>(LOGINS, { _id: userId });

/** Logins by email, case-insensitively. */
export const loginsByEmail = (read: Pick<ReadStore, 'find'>, email: string) => read.find<LoginDoc>(LOGINS, { email_lower: email.toLowerCase() });

/** Logins by username#discriminator, the username case-insensitively. */
export const loginsByTag = (read: Pick<ReadStore, 'find'>, username: string, discriminator: string) =>
  read.find<LoginDoc>(LOGINS, { username_lower: username.toLowerCase(), discriminator });

/** Up to `limit` logins with this username (case-insensitively), whatever their discriminator. */
export const loginsByUsername = (read: Pick<ReadStore, 'find'>, username: string, limit: number) =>
  read.find<LoginDoc>(LOGINS, { username_lower: username.toLowerCase() }, { limit });

/** The token document of a token's SHA-256. */
export const tokenByHash = (read: Pick<ReadStore, 'findOne'>, tokenHash: string) => read.findOne<TokenDoc>(TOKENS, { _id: tokenHash });
