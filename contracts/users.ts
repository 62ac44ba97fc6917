// The user objects: the full one of a user's own endpoints (presenters/users.ts) and the partial one embedded
// wherever a user is named. developers/resources/user.mdx, "User Structure".
import { anyObject, boolean, integer, nullable, object, snowflakeSchema, string, nullableString } from './schema.js';

/** What every user object has: the spec's required fields, and those Parley always gives. */
const partialFields = { id: snowflakeSchema, username: string, discriminator: string, global_name: nullableString, avatar: nullableString } as const;

export const PartialUser = object('A user as other objects embed it.', { ...partialFields, bot: boolean, public_flags: integer });

export const User = object('A user (presenters/users.ts); the caller’s own adds its locale, email and verified.', partialFields, {
  bot: boolean,
  system: boolean,
  mfa_enabled: boolean,
  banner: nullableString,
  accent_color: nullable(integer),
  locale: string,
  verified: boolean,
  email: nullableString,
  flags: integer,
  premium_type: integer,
  public_flags: integer,
  avatar_decoration_data: nullable(anyObject),
  collectibles: nullable(anyObject),
  primary_guild: nullable(anyObject),
});
