// The user aggregate (stream user-{id}): accounts that log in with a password, and bot users owned by applications.
// Credentials enter as hashes only: passwords as scrypt, tokens as SHA-256.
import type { Decider, DomainEvent } from './decider.js';
import { DomainError, badRequest, notFound } from './errors.js';

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
export type UserProfileUpdated = DomainEvent<
  'UserProfileUpdated',
  { userId: string; changes: { key: 'username' | 'discriminator' | 'avatar'; old_value: string | null; new_value: string | null }[] }
>;
export type SessionStarted = DomainEvent<'SessionStarted', { userId: string; tokenHash: string }>;
export type BotTokenIssued = DomainEvent<'BotTokenIssued', { userId: string; tokenHash: string; previousTokenHash: string | null }>;
export type UserEvent = UserRegistered | UserProfileUpdated | SessionStarted | BotTokenIssued;

export interface UserState {
  exists: boolean;
  username: string;
  discriminator: string;
  avatar: string | null;
  bot: boolean;
  botTokenHash: string | null;
}

export type UserCommand =
  | { type: 'RegisterUser'; userId: string; username: string; discriminator: string; email: string | null; passwordHash: string }
  | { type: 'RegisterBotUser'; userId: string; applicationId: string; username: string; discriminator: string; tokenHash: string }
  | { type: 'UpdateProfile'; userId: string; username?: string; discriminator?: string; avatar?: string | null }
  | { type: 'StartSession'; userId: string; tokenHash: string }
  | { type: 'ResetBotToken'; userId: string; tokenHash: string };

const unknownUser = () => notFound('UNKNOWN_USER', 'Unknown User');

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: () => ({ exists: false, username: '', discriminator: '', avatar: null, bot: false, botTokenHash: null }),

  decide(command, state) {
    switch (command.type) {
      case 'RegisterUser':
        if (state.exists) throw new DomainError('conflict', 'USER_EXISTS', 'User already exists');
        return [
          {
            type: 'UserRegistered',
            data: {
              userId: command.userId,
              username: command.username,
              discriminator: command.discriminator,
              email: command.email,
              passwordHash: command.passwordHash,
              bot: false,
              applicationId: null,
            },
          },
        ];
      case 'RegisterBotUser':
        if (state.exists) throw new DomainError('conflict', 'USER_EXISTS', 'User already exists');
        return [
          {
            type: 'UserRegistered',
            data: {
              userId: command.userId,
              username: command.username,
              discriminator: command.discriminator,
              email: null,
              passwordHash: null,
              bot: true,
              applicationId: command.applicationId,
            },
          },
          { type: 'BotTokenIssued', data: { userId: command.userId, tokenHash: command.tokenHash, previousTokenHash: null } },
        ];
      case 'UpdateProfile': {
        if (!state.exists) throw unknownUser();
        const changes: UserProfileUpdated['data']['changes'] = [];
        for (const key of ['username', 'discriminator', 'avatar'] as const) {
          const next = command[key];
          if (next !== undefined && next !== state[key]) changes.push({ key, old_value: state[key], new_value: next });
        }
        return changes.length ? [{ type: 'UserProfileUpdated', data: { userId: command.userId, changes } }] : [];
      }
      case 'StartSession':
        if (!state.exists) throw unknownUser();
        if (state.bot) throw badRequest('BOT_CANNOT_LOG_IN', 'Bot users authenticate with their bot token');
        return [{ type: 'SessionStarted', data: { userId: command.userId, tokenHash: command.tokenHash } }];
      case 'ResetBotToken':
        if (!state.exists) throw unknownUser();
        if (!state.bot) throw badRequest('NOT_A_BOT', 'Only bot users have bot tokens');
        return [{ type: 'BotTokenIssued', data: { userId: command.userId, tokenHash: command.tokenHash, previousTokenHash: state.botTokenHash } }];
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'UserRegistered':
        return { ...state, exists: true, username: event.data.username, discriminator: event.data.discriminator, bot: event.data.bot };
      case 'UserProfileUpdated': {
        const next = { ...state };
        for (const change of event.data.changes) {
          if (change.key === 'avatar') next.avatar = change.new_value;
          else next[change.key] = change.new_value ?? '';
        }
        return next;
      }
      case 'BotTokenIssued':
        return { ...state, botTokenHash: event.data.tokenHash };
      case 'SessionStarted':
        return state;
    }
  },
};
