// Given/when/then on the account deciders: given past events, when a command, then new events or a refusal.
import { describe, expect, it } from 'vitest';
import { applicationDecider } from '../../domain/application.js';
import { emailClaimDecider } from '../../domain/emailClaim.js';
import { type UserCommand, userDecider } from '../../domain/user.js';
import { usernameClaimDecider } from '../../domain/usernameClaim.js';
import { given } from '../support/given.js';

const registered = {
  type: 'UserRegistered' as const,
  data: { userId: '1', username: 'ada', discriminator: '0001', email: null, passwordHash: 'h', bot: false, applicationId: null },
};

describe('user', () => {
  it('registers once', () => {
    given(userDecider, [])
      .when({ type: 'RegisterUser', userId: '1', username: 'ada', discriminator: '0001', email: null, passwordHash: 'h' })
      .then([registered]);
    given(userDecider, [registered])
      .when({ type: 'RegisterUser', userId: '1', username: 'ada', discriminator: '0001', email: null, passwordHash: 'h' })
      .thenRefuses('USER_EXISTS');
  });

  it('records only the profile fields that change, with old and new values', () => {
    given(userDecider, [registered])
      .when({ type: 'UpdateProfile', userId: '1', username: 'ada', avatar: 'abc' })
      .then([{ type: 'UserProfileUpdated', data: { userId: '1', changes: [{ key: 'avatar', old_value: null, new_value: 'abc' }] } }]);
    given(userDecider, [registered]).when({ type: 'UpdateProfile', userId: '1', username: 'ada' }).then([]);
  });

  it('records a locale chosen among the widely used API’s, and refuses any other', () => {
    const chosen = { type: 'UserProfileUpdated' as const, data: { userId: '1', changes: [{ key: 'locale' as const, old_value: 'en-US', new_value: 'de' }] } };
    given(userDecider, [registered]).when({ type: 'UpdateProfile', userId: '1', locale: 'de' }).then([chosen]);
    given(userDecider, [registered, chosen]).when({ type: 'UpdateProfile', userId: '1', locale: 'de' }).then([]);
    given(userDecider, [registered]).when({ type: 'UpdateProfile', userId: '1', locale: 'en-US' }).then([]);
    given(userDecider, [registered]).when({ type: 'UpdateProfile', userId: '1', locale: 'klingon' }).thenRefuses('INVALID_FORM_BODY');
  });

  it('gives bots a token and rotates it, naming the token it replaces', () => {
    const bot = { ...registered, data: { ...registered.data, bot: true, passwordHash: null, applicationId: '9' } };
    given(userDecider, [bot, { type: 'BotTokenIssued', data: { userId: '1', tokenHash: 'old', previousTokenHash: null } }])
      .when({ type: 'ResetBotToken', userId: '1', tokenHash: 'new' })
      .then([{ type: 'BotTokenIssued', data: { userId: '1', tokenHash: 'new', previousTokenHash: 'old' } }]);
    given(userDecider, [registered]).when({ type: 'ResetBotToken', userId: '1', tokenHash: 'x' }).thenRefuses('NOT_A_BOT');
    given(userDecider, [bot]).when({ type: 'StartSession', userId: '1', tokenHash: 'x' }).thenRefuses('BOT_CANNOT_LOG_IN');
  });
});

describe('account deletion', () => {
  const erase = (over: Partial<Extract<UserCommand, { type: 'EraseUser' }>> = {}): UserCommand => ({
    type: 'EraseUser',
    userId: '1',
    erasedAt: '2025-06-01T12:00:00.000Z',
    passwordMatches: true,
    ownedGuildIds: [],
    ownedApplicationIds: [],
    ...over,
  });
  const erased = { type: 'UserErased' as const, data: { userId: '1', erasedAt: '2025-06-01T12:00:00.000Z' } };

  it('erases with the right password, or for an operator without one, recording ids and time only', () => {
    given(userDecider, [registered]).when(erase()).then([erased]);
    given(userDecider, [registered])
      .when(erase({ passwordMatches: null }))
      .then([erased]);
  });

  it('refuses a wrong password, an owner of a guild or an application, a bot, an unknown or already deleted account', () => {
    given(userDecider, [registered])
      .when(erase({ passwordMatches: false }))
      .thenRefuses('INVALID_FORM_BODY');
    given(userDecider, [registered])
      .when(erase({ ownedGuildIds: ['5'] }))
      .thenRefuses('GUILD_OWNERSHIP');
    given(userDecider, [registered])
      .when(erase({ ownedApplicationIds: ['9'] }))
      .thenRefuses('APPLICATION_OWNERSHIP');
    const bot = { ...registered, data: { ...registered.data, bot: true, passwordHash: null, applicationId: '9' } };
    given(userDecider, [bot])
      .when(erase({ passwordMatches: null }))
      .thenRefuses('BOT_CANNOT_BE_DELETED');
    given(userDecider, []).when(erase()).thenRefuses('UNKNOWN_USER');
    given(userDecider, [registered, erased]).when(erase()).thenRefuses('ALREADY_DELETED');
  });

  it('takes no session or profile change once deleted', () => {
    given(userDecider, [registered, erased]).when({ type: 'StartSession', userId: '1', tokenHash: 'x' }).thenRefuses('UNKNOWN_USER');
    given(userDecider, [registered, erased]).when({ type: 'UpdateProfile', userId: '1', avatar: 'abc' }).thenRefuses('UNKNOWN_USER');
  });
});

describe('username claims', () => {
  const claimed = (discriminator: string, userId: string) => ({ type: 'DiscriminatorClaimed' as const, data: { username: 'ada', discriminator, userId } });

  it('takes the first free discriminator from the start it is given', () => {
    given(usernameClaimDecider, [claimed('0005', 'a')])
      .when({ type: 'ClaimDiscriminator', username: 'ada', userId: 'b', start: 5 })
      .then([claimed('0006', 'b')]);
  });

  it('keeps a preferred discriminator when it is free (renames keep their tag)', () => {
    given(usernameClaimDecider, [])
      .when({ type: 'ClaimDiscriminator', username: 'ada', userId: 'b', start: 1, preferred: '4242' })
      .then([claimed('4242', 'b')]);
  });

  it('wraps around and refuses when all 9999 are taken', () => {
    // Built directly rather than folded from 9999 events: the state is what matters here.
    const full = new Map(Array.from({ length: 9999 }, (_, i) => [String(i + 1).padStart(4, '0'), `u${i}`]));
    const oneFree = new Map(full);
    oneFree.delete('0002');
    expect(usernameClaimDecider.decide({ type: 'ClaimDiscriminator', username: 'ada', userId: 'z', start: 9000 }, oneFree)).toEqual([claimed('0002', 'z')]);
    expect(() => usernameClaimDecider.decide({ type: 'ClaimDiscriminator', username: 'ada', userId: 'z', start: 1 }, full)).toThrow(
      expect.objectContaining({ code: 'INVALID_FORM_BODY' }),
    );
  });

  it('hands out none of those held on the former stream of the name, preferred or not', () => {
    given(usernameClaimDecider, [claimed('0005', 'a')])
      .when({ type: 'ClaimDiscriminator', username: 'ada', userId: 'b', start: 5, preferred: '0006', heldElsewhere: ['0006', '0007'] })
      .then([claimed('0008', 'b')]);
  });

  it('releases only what the user holds', () => {
    given(usernameClaimDecider, [claimed('0001', 'a')])
      .when({ type: 'ReleaseDiscriminator', username: 'ada', userId: 'b', discriminator: '0001' })
      .then([]);
  });
});

describe('email claims', () => {
  it('belong to one account', () => {
    const claimed = { type: 'EmailClaimed' as const, data: { emailHash: 'h', userId: 'a' } };
    given(emailClaimDecider, []).when({ type: 'ClaimEmail', emailHash: 'h', userId: 'a' }).then([claimed]);
    given(emailClaimDecider, [claimed]).when({ type: 'ClaimEmail', emailHash: 'h', userId: 'b' }).thenRefuses('INVALID_FORM_BODY');
  });

  it('are released by their holder only, once, and can then be claimed again', () => {
    const claimed = { type: 'EmailClaimed' as const, data: { emailHash: 'h', userId: 'a' } };
    const released = { type: 'EmailReleased' as const, data: { emailHash: 'h', userId: 'a' } };
    given(emailClaimDecider, [claimed]).when({ type: 'ReleaseEmail', emailHash: 'h', userId: 'a' }).then([released]);
    given(emailClaimDecider, [claimed]).when({ type: 'ReleaseEmail', emailHash: 'h', userId: 'b' }).then([]);
    given(emailClaimDecider, [claimed, released]).when({ type: 'ReleaseEmail', emailHash: 'h', userId: 'a' }).then([]);
    given(emailClaimDecider, [claimed, released])
      .when({ type: 'ClaimEmail', emailHash: 'h', userId: 'b' })
      .then([{ type: 'EmailClaimed', data: { emailHash: 'h', userId: 'b' } }]);
  });
});

describe('application', () => {
  const created = { type: 'ApplicationCreated' as const, data: { applicationId: 'app', name: 'n', ownerId: 'owner', clientSecretHash: 's' } };
  it("lets only its owner create its one bot, whose user takes the application's id", () => {
    given(applicationDecider, [created])
      .when({ type: 'CreateBot', applicationId: 'app', actorId: 'owner' })
      .then([{ type: 'ApplicationBotCreated', data: { applicationId: 'app', botUserId: 'app' } }]);
    given(applicationDecider, [created]).when({ type: 'CreateBot', applicationId: 'app', actorId: 'other' }).thenRefuses('MISSING_ACCESS');
    given(applicationDecider, [created, { type: 'ApplicationBotCreated' as const, data: { applicationId: 'app', botUserId: 'b' } }])
      .when({ type: 'CreateBot', applicationId: 'app', actorId: 'owner' })
      .thenRefuses('APPLICATION_HAS_BOT');
    given(applicationDecider, []).when({ type: 'CreateBot', applicationId: 'app', actorId: 'owner' }).thenRefuses('UNKNOWN_APPLICATION');
  });
});
