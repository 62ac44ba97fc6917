// User objects: the full one of a user's own endpoints, and the partial one embedded wherever a user is named.
import type { APIUser } from 'discord-api-types/v10';
import type { UserDoc } from '../projections/users.js';

/**
 * A user object with the fields of the spec's table; `self` adds what only its owner sees: the email, and the locale
 * its user chose (another party gets fewer fields, as the spec allows).
 */
export function userObject(doc: UserDoc, self = false): APIUser {
  return {
    id: doc._id,
    username: doc.username,
    discriminator: doc.discriminator,
    global_name: null,
    avatar: doc.avatar,
    bot: doc.bot,
    system: doc.system,
    mfa_enabled: doc.mfa_enabled,
    ...(self ? { locale: doc.locale } : {}),
    flags: doc.flags,
    premium_type: doc.premium_type,
    public_flags: doc.public_flags,
    banner: null,
    accent_color: null,
    ...(self && !doc.bot ? { email: doc.email, verified: doc.verified } : {}),
    ...(self && doc.bot ? { verified: true } : {}),
  };
}

/** The user embedded in other objects: the API's user with `bot` and `public_flags` always given (messages store it so). */
export type PartialUser = Pick<APIUser, 'id' | 'username' | 'discriminator' | 'global_name' | 'avatar'> & Required<Pick<APIUser, 'bot' | 'public_flags'>>;

/** The partial user embedded in other objects. */
export function partialUser(doc: UserDoc): PartialUser {
  return {
    id: doc._id,
    username: doc.username,
    discriminator: doc.discriminator,
    global_name: null,
    avatar: doc.avatar,
    bot: doc.bot,
    public_flags: doc.public_flags,
  };
}
