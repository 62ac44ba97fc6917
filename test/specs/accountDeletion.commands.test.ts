// Command specs of account deletion: the events it appends on each stream, in order; a deletion cut short appends
// only what is left when it runs again; a refusal appends nothing. And the read models' answer to UserErased.
import { describe, it } from 'vitest';
import { deleteAccount } from '../../commands/accountDeletion.js';
import { emailFingerprint, emailStream, usernameStream } from '../../commands/streams.js';
import { dmPairStream } from '../../domain/dmChannel.js';
import type { UserRegistered } from '../../domain/user.js';
import { CHANNELS, LOGINS, MESSAGES, TOKENS, USERS } from '../../projections/collections.js';
import { dmsProjection } from '../../projections/dms.js';
import { messagesProjection } from '../../projections/messages.js';
import { usersProjection } from '../../projections/users.js';
import { G, accounts, ada, bob, guildHistory, messageUser, registered, sent } from './events.js';
import { type HistoryEvent, NOW, givenProjections, givenStreams, specSecrets } from './support.js';

const EMAIL = 'bob@example.com';
const bobWithEmail: UserRegistered = {
  type: 'UserRegistered',
  data: { userId: bob.id, username: 'bob', discriminator: '0001', email: EMAIL, passwordHash: 'scrypt$…', bot: false, applicationId: null },
};
const claims: [string, { type: string; data: Record<string, unknown> }[]][] = [
  [usernameStream(specSecrets, 'bob'), [{ type: 'DiscriminatorClaimed', data: { username: 'bob', discriminator: '0001', userId: bob.id } }]],
  [emailStream(specSecrets, EMAIL), [{ type: 'EmailClaimed', data: { emailHash: emailFingerprint(specSecrets, EMAIL), userId: bob.id } }]],
];
const left = { stream: `guild-${G}`, type: 'MemberLeft', data: { guildId: G, userId: bob.id } };
const nameReleased = {
  stream: usernameStream(specSecrets, 'bob'),
  type: 'DiscriminatorReleased',
  data: { username: 'bob', discriminator: '0001', userId: bob.id },
};
const emailReleased = {
  stream: emailStream(specSecrets, EMAIL),
  type: 'EmailReleased',
  data: { emailHash: emailFingerprint(specSecrets, EMAIL), userId: bob.id },
};
const erased = { stream: `user-${bob.id}`, type: 'UserErased', data: { userId: bob.id, erasedAt: NOW } };
const operator = { actorId: bob.id };
const dm = dmPairStream(ada.id, bob.id);
const dmOpened = {
  type: 'DmChannelOpened',
  data: { channelId: '77', type: 1, ownerId: null, name: null, recipients: [messageUser(ada), messageUser(bob)], openedBy: ada.id },
};
const dmLeft = (remaining: string[]) => ({ stream: dm, type: 'DmRecipientLeft', data: { channelId: '77', userId: bob.id, remaining } });

describe('deleteAccount', () => {
  it('leaves the guilds, releases the username and email, and erases last', async () => {
    await givenStreams([`guild-${G}`, guildHistory], ...accounts(ada), [`user-${bob.id}`, [bobWithEmail]], ...claims)
      .when((deps) => deleteAccount(deps, operator, null))
      .then(left, nameReleased, emailReleased, erased);
  });

  it('run again after a crash half way, appends only what is left', async () => {
    await givenStreams(
      [`guild-${G}`, [...guildHistory, { type: left.type, data: left.data }]],
      ...accounts(ada),
      [`user-${bob.id}`, [bobWithEmail]],
      [usernameStream(specSecrets, 'bob'), [claims[0][1][0], { type: nameReleased.type, data: nameReleased.data }]],
      claims[1],
    )
      .when((deps) => deleteAccount(deps, operator, null))
      .then(emailReleased, erased);
  });

  it('leaves its DMs for good: one whose other side is deleted, before leaving was recorded too, ends', async () => {
    const bobsAccount: [string, HistoryEvent[]][] = [[`user-${bob.id}`, [bobWithEmail]], ...claims];
    await givenStreams(...accounts(ada), ...bobsAccount, [dm, [dmOpened]])
      .when((deps) => deleteAccount(deps, operator, null))
      .then(dmLeft([ada.id]), nameReleased, emailReleased, erased);
    const adaErased = { type: 'UserErased', data: { userId: ada.id, erasedAt: NOW } };
    await givenStreams([`user-${ada.id}`, [registered(ada), adaErased]], ...bobsAccount, [dm, [dmOpened]])
      .when((deps) => deleteAccount(deps, operator, null))
      .then(dmLeft([]), nameReleased, emailReleased, erased);
  });

  it('refuses the owner of a guild, and an account already deleted, appending nothing', async () => {
    await givenStreams([`guild-${G}`, guildHistory], ...accounts(ada, bob))
      .when((deps) => deleteAccount(deps, { actorId: ada.id }, null))
      .thenRefuses('GUILD_OWNERSHIP');
    await givenStreams([`user-${bob.id}`, [bobWithEmail, { type: erased.type, data: erased.data }]])
      .when((deps) => deleteAccount(deps, operator, null))
      .thenRefuses('ALREADY_DELETED');
  });
});

describe('UserErased in the read models', () => {
  const deletedUser = { ...messageUser(bob), username: 'Deleted User', discriminator: '0000' };
  const history = givenProjections(usersProjection, messagesProjection, dmsProjection)(
    bobWithEmail,
    { type: 'SessionStarted', data: { userId: bob.id, tokenHash: 'session#' } },
    sent({ id: '900', author: messageUser(bob) }),
    sent({ id: '901', author: messageUser(ada) }),
    dmOpened,
  );
  const when = () => history.when({ type: erased.type, data: erased.data });

  it('shows the user as Deleted User with no email, and drops its login and tokens', async () => {
    await when().then(USERS, bob.id, { username: 'Deleted User', discriminator: '0000', avatar: null, email: null, deleted: true });
    await when().then(LOGINS, bob.id, null);
    await when().then(TOKENS, 'session#', null);
  });

  it('rewrites the author of its messages only, and its side of its DMs', async () => {
    await when().then(MESSAGES, '900', { author: deletedUser });
    await when().then(MESSAGES, '901', { author: messageUser(ada) });
    await when().then(CHANNELS, '77', { recipient_ids: [ada.id, bob.id], recipients: [messageUser(ada), deletedUser] });
  });
});
