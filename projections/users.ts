// Read models of accounts: public user documents, the login lookup, and the token lookup used by authentication.
import type { MessageUser } from '../domain/message.js';
import { DEFAULT_LOCALE } from '../domain/user.js';
import type { WriteOp } from '../ports/readStore.js';
import { LOGINS, TOKENS, USERS } from './collections.js';
import { projection } from './projection.js';

export interface UserDoc {
  _id: string;
  username: string;
  discriminator: string;
  avatar: string | null;
  bot: boolean;
  system: boolean;
  mfa_enabled: boolean;
  locale: string;
  flags: number;
  premium_type: number;
  public_flags: number;
  email: string | null;
  verified: boolean;
  application_id: string | null;
  /** Set once the account is deleted: it shows as DELETED_USER, and no new DM or group DM takes it (commands/dms.ts). */
  deleted?: true;
  [key: string]: unknown;
}

/** How a deleted account is shown everywhere, as on the widely used API; its id stays. */
export const DELETED_USER = { username: 'Deleted User', discriminator: '0000', avatar: null } as const;

/** A deleted account as messages and DMs embed it, in place of the snapshot taken while it existed. */
export const deletedMessageUser = (userId: string): MessageUser => ({ id: userId, ...DELETED_USER, global_name: null, bot: false, public_flags: 0 });

export interface LoginDoc {
  _id: string;
  username_lower: string;
  discriminator: string;
  email_lower: string | null;
  password_hash: string;
  [key: string]: unknown;
}

export interface TokenDoc {
  /** SHA-256 of the token */
  _id: string;
  user_id: string;
  kind: 'session' | 'bot';
  [key: string]: unknown;
}

export const usersProjection = projection({
  name: 'users',
  handles: ['UserRegistered', 'UserProfileUpdated', 'SessionStarted', 'BotTokenIssued', 'UserErased'],
  collections: [USERS, LOGINS, TOKENS],
  indexes: [
    { collection: LOGINS, keys: { username_lower: 1 } },
    { collection: LOGINS, keys: { email_lower: 1 } },
    { collection: TOKENS, keys: { user_id: 1 } },
  ],
  cachedById: [TOKENS, USERS],
  project(event) {
    switch (event.type) {
      case 'UserRegistered': {
        const d = event.data;
        const user: UserDoc = {
          _id: d.userId,
          username: d.username,
          discriminator: d.discriminator,
          avatar: null,
          bot: d.bot,
          system: false,
          mfa_enabled: false,
          locale: DEFAULT_LOCALE,
          flags: 0,
          premium_type: 0,
          public_flags: 0,
          email: d.email,
          verified: false,
          application_id: d.applicationId,
        };
        const ops: WriteOp[] = [{ replaceOne: { collection: USERS, filter: { _id: d.userId }, replacement: user, upsert: true } }];
        if (d.passwordHash) {
          const login: LoginDoc = {
            _id: d.userId,
            username_lower: d.username.toLowerCase(),
            discriminator: d.discriminator,
            email_lower: d.email?.toLowerCase() ?? null,
            password_hash: d.passwordHash,
          };
          ops.push({ replaceOne: { collection: LOGINS, filter: { _id: d.userId }, replacement: login, upsert: true } });
        }
        return ops;
      }
      case 'UserProfileUpdated': {
        const set = Object.fromEntries(event.data.changes.map((c) => [c.key, c.new_value]));
        const ops: WriteOp[] = [{ updateOne: { collection: USERS, filter: { _id: event.data.userId }, update: { $set: set } } }];
        const login: Record<string, unknown> = {};
        if (typeof set.username === 'string') login.username_lower = set.username.toLowerCase();
        if (typeof set.discriminator === 'string') login.discriminator = set.discriminator;
        if (Object.keys(login).length) ops.push({ updateOne: { collection: LOGINS, filter: { _id: event.data.userId }, update: { $set: login } } });
        return ops;
      }
      case 'SessionStarted': {
        const token: TokenDoc = { _id: event.data.tokenHash, user_id: event.data.userId, kind: 'session' };
        return [{ replaceOne: { collection: TOKENS, filter: { _id: token._id }, replacement: token, upsert: true } }];
      }
      case 'BotTokenIssued': {
        const token: TokenDoc = { _id: event.data.tokenHash, user_id: event.data.userId, kind: 'bot' };
        const ops: WriteOp[] = [];
        if (event.data.previousTokenHash) ops.push({ deleteOne: { collection: TOKENS, filter: { _id: event.data.previousTokenHash } } });
        ops.push({ replaceOne: { collection: TOKENS, filter: { _id: token._id }, replacement: token, upsert: true } });
        return ops;
      }
      case 'UserErased': {
        const userId = event.data.userId;
        return [
          { updateOne: { collection: USERS, filter: { _id: userId }, update: { $set: { ...DELETED_USER, email: null, verified: false, deleted: true } } } },
          { deleteOne: { collection: LOGINS, filter: { _id: userId } } },
          { deleteMany: { collection: TOKENS, filter: { user_id: userId } } },
        ];
      }
    }
  },
});
