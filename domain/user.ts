// The user aggregate (stream user-{id}): accounts that log in with a password, and bot users owned by applications.
// Credentials enter as hashes only: passwords as scrypt, tokens as SHA-256.
import type { Decider, DomainEvent } from './decider.js';
import { DomainError, badRequest, invalidForm, notFound } from './errors.js';

export type UserRegistered = DomainEvent<
  'UserRegistered',
  {
    userId: string;
    username: string;
    discriminator: string;
    email: string | null;
    passwordHash: string | null;
    bot: boolean;
    applicationId: string | null;
  }
>;
/** The widely used API's locales, the ones a user may choose (and that localized commands are keyed by). */
export const LOCALES = [
  'id',
  'da',
  'de',
  'en-GB',
  'en-US',
  'es-ES',
  'es-419',
  'fr',
  'hr',
  'it',
  'lt',
  'hu',
  'nl',
  'no',
  'pl',
  'pt-BR',
  'ro',
  'fi',
  'sv-SE',
  'vi',
  'tr',
  'cs',
  'el',
  'bg',
  'ru',
  'uk',
  'hi',
  'th',
  'zh-CN',
  'ja',
  'zh-TW',
  'ko',
] as const;
export type Locale = (typeof LOCALES)[number];
/** A new account's locale, until its user chooses another. */
export const DEFAULT_LOCALE: Locale = 'en-US';

export type UserProfileUpdated = DomainEvent<
  'UserProfileUpdated',
  { userId: string; changes: { key: 'username' | 'discriminator' | 'avatar' | 'locale'; old_value: string | null; new_value: string | null }[] }
>;
export type SessionStarted = DomainEvent<'SessionStarted', { userId: string; tokenHash: string }>;
export type BotTokenIssued = DomainEvent<'BotTokenIssued', { userId: string; tokenHash: string; previousTokenHash: string | null }>;
/**
 * The account is deleted: its profile, login and tokens leave the read models and it is shown as `Deleted User`. Ids
 * and time only, so that the event itself holds nothing personal.
 */
export type UserErased = DomainEvent<'UserErased', { userId: string; erasedAt: string }>;
export type UserEvent = UserRegistered | UserProfileUpdated | SessionStarted | BotTokenIssued | UserErased;

export interface UserState {
  exists: boolean;
  username: string;
  discriminator: string;
  avatar: string | null;
  locale: string;
  bot: boolean;
  botTokenHash: string | null;
  /** Kept to release its claim (domain/emailClaim.ts) when the account is deleted. */
  email: string | null;
  erased: boolean;
}

export type UserCommand =
  | { type: 'RegisterUser'; userId: string; username: string; discriminator: string; email: string | null; passwordHash: string }
  | { type: 'RegisterBotUser'; userId: string; applicationId: string; username: string; discriminator: string; tokenHash: string }
  | { type: 'UpdateProfile'; userId: string; username?: string; discriminator?: string; avatar?: string | null; locale?: string }
  | { type: 'StartSession'; userId: string; tokenHash: string }
  | { type: 'ResetBotToken'; userId: string; tokenHash: string }
  /**
   * Deletes the account. `passwordMatches` is null for an operator's erasure, which asks for no password; what the
   * user still owns comes from the read models, as the widely used API refuses while any of it is left.
   */
  | { type: 'EraseUser'; userId: string; erasedAt: string; passwordMatches: boolean | null; ownedGuildIds: string[]; ownedApplicationIds: string[] };

const unknownUser = () => notFound('UNKNOWN_USER', 'Unknown User');

/** An erased account is gone for every command, as an unknown one is. */
const requireLive = (state: UserState) => {
  if (!state.exists || state.erased) throw unknownUser();
};

/** An account's registration and a bot user's differ only in how the user logs in and who owns it: `login`. */
function decideRegistration(
  { userId, username, discriminator }: Extract<UserCommand, { type: 'RegisterUser' | 'RegisterBotUser' }>,
  state: UserState,
  login: Pick<UserRegistered['data'], 'email' | 'passwordHash' | 'bot' | 'applicationId'>,
): UserRegistered {
  if (state.exists) throw new DomainError('conflict', 'USER_EXISTS', 'User already exists');
  return { type: 'UserRegistered', data: { userId, username, discriminator, ...login } };
}

function decideErasure(command: Extract<UserCommand, { type: 'EraseUser' }>, state: UserState): UserEvent[] {
  if (!state.exists) throw unknownUser();
  if (state.erased) throw new DomainError('conflict', 'ALREADY_DELETED', 'This account is already deleted');
  if (state.bot) throw badRequest('BOT_CANNOT_BE_DELETED', 'A bot user is deleted with its application');
  if (command.passwordMatches === false) {
    throw invalidForm([{ path: 'password', message: 'Password does not match.', code: 'PASSWORD_DOES_NOT_MATCH' }]);
  }
  // The widely used API's 40011 and its message; owning an application is refused the same way for the same reason.
  if (command.ownedGuildIds.length) {
    throw badRequest('GUILD_OWNERSHIP', 'You must transfer ownership of any owned guilds before deleting your account');
  }
  if (command.ownedApplicationIds.length) {
    throw badRequest('APPLICATION_OWNERSHIP', 'You must delete or transfer any owned applications before deleting your account');
  }
  return [{ type: 'UserErased', data: { userId: command.userId, erasedAt: command.erasedAt } }];
}

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: () => ({
    exists: false,
    username: '',
    discriminator: '',
    avatar: null,
    locale: DEFAULT_LOCALE,
    bot: false,
    botTokenHash: null,
    email: null,
    erased: false,
  }),

  decide(command, state) {
    switch (command.type) {
      case 'RegisterUser':
        return [decideRegistration(command, state, { email: command.email, passwordHash: command.passwordHash, bot: false, applicationId: null })];
      case 'RegisterBotUser':
        return [
          decideRegistration(command, state, { email: null, passwordHash: null, bot: true, applicationId: command.applicationId }),
          { type: 'BotTokenIssued', data: { userId: command.userId, tokenHash: command.tokenHash, previousTokenHash: null } },
        ];
      case 'UpdateProfile': {
        requireLive(state);
        if (command.locale !== undefined && !(LOCALES as readonly string[]).includes(command.locale)) {
          throw invalidForm([{ path: 'locale', message: `Must be one of: ${LOCALES.join(', ')}` }]);
        }
        const changes: UserProfileUpdated['data']['changes'] = [];
        for (const key of ['username', 'discriminator', 'avatar', 'locale'] as const) {
          const next = command[key];
          if (next !== undefined && next !== state[key]) changes.push({ key, old_value: state[key], new_value: next });
        }
        return changes.length ? [{ type: 'UserProfileUpdated', data: { userId: command.userId, changes } }] : [];
      }
      case 'StartSession':
        requireLive(state);
        if (state.bot) throw badRequest('BOT_CANNOT_LOG_IN', 'Bot users authenticate with their bot token');
        return [{ type: 'SessionStarted', data: { userId: command.userId, tokenHash: command.tokenHash } }];
      case 'ResetBotToken':
        requireLive(state);
        if (!state.bot) throw badRequest('NOT_A_BOT', 'Only bot users have bot tokens');
        return [{ type: 'BotTokenIssued', data: { userId: command.userId, tokenHash: command.tokenHash, previousTokenHash: state.botTokenHash } }];
      case 'EraseUser':
        return decideErasure(command, state);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'UserRegistered':
        return { ...state, exists: true, username: event.data.username, discriminator: event.data.discriminator, bot: event.data.bot, email: event.data.email };
      case 'UserProfileUpdated': {
        const next = { ...state };
        for (const change of event.data.changes) {
          if (change.key === 'avatar') next.avatar = change.new_value;
          // An erased account's choice reads as null: it falls back to the default.
          else if (change.key === 'locale') next.locale = change.new_value ?? DEFAULT_LOCALE;
          else next[change.key] = change.new_value ?? '';
        }
        return next;
      }
      case 'BotTokenIssued':
        return { ...state, botTokenHash: event.data.tokenHash };
      case 'SessionStarted':
        return state;
      // Name and email stay in the state: the event log holds them anyway until per-subject keys land.
      case 'UserErased':
        return { ...state, erased: true, avatar: null };
    }
  },
};
