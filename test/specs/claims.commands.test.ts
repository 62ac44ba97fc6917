// Command specs of username and email claims: new claims go to streams named by an HMAC under a key derived from the
// service key (so a log reader without it cannot confirm a guessed name or address); claims that earlier versions
// made on plain-SHA-256 streams still hold there, and are released there.
import { createHmac, hkdfSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { registerUser, updateProfile } from '../../commands/accounts.js';
import { deleteAccount } from '../../commands/accountDeletion.js';
import type { UserRegistered } from '../../domain/user.js';
import { sha256 } from '../../ports/secrets.js';
import { type HistoryEvent, NOW, appendStreams, commandDeps, givenStreams } from './support.js';

/**
 * Written out, not taken from infra/secrets.ts: the derivation names the streams that hold every claim, so changing
 * it would free every name and address already taken. The key is the one commandDeps gives.
 */
const keyed = (value: string) =>
  createHmac('sha256', Buffer.from(hkdfSync('sha256', Buffer.alloc(32, 7), Buffer.alloc(0), 'parley fingerprint v1', 32)))
    .update(value)
    .digest('hex');

const EMAIL = 'Bob@Example.com';
const bob = { id: '2', username: 'bob' };
const bobRegistered: UserRegistered = {
  type: 'UserRegistered',
  data: { userId: bob.id, username: 'bob', discriminator: '0042', email: EMAIL, passwordHash: 'scrypt$…', bot: false, applicationId: null },
};
/** Bob's claims as an earlier version made them, on streams named by a plain SHA-256. */
const legacyName = `username-${sha256('bob')}`;
const legacyEmail = `email-${sha256('bob@example.com')}`;
const nameClaimed = { type: 'DiscriminatorClaimed', data: { username: 'bob', discriminator: '0042', userId: bob.id } };
const emailClaimed = { type: 'EmailClaimed', data: { emailHash: sha256('bob@example.com'), userId: bob.id } };
const legacyAccount: [string, HistoryEvent[]][] = [
  [`user-${bob.id}`, [bobRegistered]],
  [legacyName, [nameClaimed]],
  [legacyEmail, [emailClaimed]],
];
const meta = { actorId: bob.id };

describe('claims', () => {
  it('are made on streams named by the keyed hash of the lowercased name and address, and none by a plain hash', async () => {
    const world = await commandDeps();
    try {
      await registerUser(world.deps, { actorId: null }, { username: 'Ada', password: 'correct horse battery', email: 'Ada@Example.com' });
      const streams = new Set((await world.eventStore.readAll({})).map((e) => e.streamId));
      expect(streams).toContain(`username-${keyed('username:ada')}`);
      expect(streams).toContain(`email-${keyed('email:ada@example.com')}`);
      expect([...streams].filter((s) => s.includes(sha256('ada')) || s.includes(sha256('ada@example.com')))).toEqual([]);
      const [claim] = await world.eventStore.readStream(`email-${keyed('email:ada@example.com')}`);
      expect(claim.data).toEqual({ emailHash: keyed('email:ada@example.com'), userId: expect.any(String) });
    } finally {
      await world.close();
    }
  });

  it('made on the plain-hash stream still hold: the address registers no other account', async () => {
    await givenStreams(...legacyAccount)
      .when((deps) => registerUser(deps, { actorId: null }, { username: 'robert', password: 'correct horse battery', email: 'BOB@example.com' }))
      .thenRefuses('INVALID_FORM_BODY');
  });

  it('made on the plain-hash stream keep their discriminator: a rename to the name does not take it', async () => {
    const world = await commandDeps();
    try {
      const cy = { ...bobRegistered.data, userId: '3', username: 'cy', email: null };
      const cyClaim = { ...nameClaimed.data, username: 'cy', userId: '3' };
      await world.deps.settle(
        await appendStreams(world.eventStore, [
          ...legacyAccount,
          ['user-3', [{ type: 'UserRegistered', data: cy }]],
          [`username-${keyed('username:cy')}`, [{ type: nameClaimed.type, data: cyClaim }]],
        ]),
      );
      // cy#0042 would keep 0042, which bob holds on the old stream: cy gets another.
      await updateProfile(world.deps, { actorId: '3' }, { username: 'bob' });
      const [claim] = await world.eventStore.readStream(`username-${keyed('username:bob')}`);
      expect(claim.data).toEqual({ username: 'bob', discriminator: expect.not.stringMatching(/^0042$/), userId: '3' });
    } finally {
      await world.close();
    }
  });

  it('made on the plain-hash stream are released there when the account renames', async () => {
    await givenStreams(...legacyAccount)
      .when((deps) => updateProfile(deps, meta, { username: 'robert' }))
      .then(
        { stream: `username-${keyed('username:robert')}`, type: 'DiscriminatorClaimed', data: { username: 'robert', discriminator: '0042', userId: bob.id } },
        {
          stream: `user-${bob.id}`,
          type: 'UserProfileUpdated',
          data: { userId: bob.id, changes: [{ key: 'username', old_value: 'bob', new_value: 'robert' }] },
        },
        { stream: legacyName, type: 'DiscriminatorReleased', data: nameClaimed.data },
      );
  });

  it('made on the plain-hash stream are released there when the account is deleted', async () => {
    await givenStreams(...legacyAccount)
      .when((deps) => deleteAccount(deps, meta, null))
      .then(
        { stream: legacyName, type: 'DiscriminatorReleased', data: nameClaimed.data },
        { stream: legacyEmail, type: 'EmailReleased', data: emailClaimed.data },
        { stream: `user-${bob.id}`, type: 'UserErased', data: { userId: bob.id, erasedAt: NOW } },
      );
  });
});
