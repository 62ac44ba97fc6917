// Given/when/then on invites (uses and expiry) and vanity code claims (one guild per code).
import { describe, it } from 'vitest';
import { type InviteEvent, inviteDecider } from '../../domain/invite.js';
import { vanityClaimDecider } from '../../domain/vanityClaim.js';
import { given } from '../support/given.js';

const T = Date.parse('2025-01-01T00:00:00.000Z');
const terms = {
  code: 'abc',
  guild_id: 'g',
  channel_id: 'c',
  pack_id: null,
  inviter_id: 'u',
  max_uses: 2,
  max_age: 3600,
  temporary: false,
  created_at: new Date(T).toISOString(),
};
const created: InviteEvent = { type: 'InviteCreated', data: { invite: { ...terms, uses: 0 } } };
const accepted = (userId: string, uses: number): InviteEvent => ({ type: 'InviteAccepted', data: { code: 'abc', guildId: 'g', userId, uses } });

describe('invites', () => {
  it('is created once per code', () => {
    given(inviteDecider, []).when({ type: 'CreateInvite', invite: terms }).then([created]);
    given(inviteDecider, [created]).when({ type: 'CreateInvite', invite: terms }).thenRefuses('INVITE_EXISTS');
  });

  it('counts uses, and is unknown once they run out', () => {
    given(inviteDecider, [created])
      .when({ type: 'AcceptInvite', userId: 'a', now: T })
      .then([accepted('a', 1)]);
    given(inviteDecider, [created, accepted('a', 1)])
      .when({ type: 'AcceptInvite', userId: 'b', now: T })
      .then([accepted('b', 2)]);
    given(inviteDecider, [created, accepted('a', 1), accepted('b', 2)])
      .when({ type: 'AcceptInvite', userId: 'c', now: T })
      .thenRefuses('UNKNOWN_INVITE');
  });

  it('is unknown once expired; max_age 0 never expires', () => {
    given(inviteDecider, [created])
      .when({ type: 'AcceptInvite', userId: 'a', now: T + 3600_000 })
      .thenRefuses('UNKNOWN_INVITE');
    const forever: InviteEvent = { type: 'InviteCreated', data: { invite: { ...terms, max_age: 0, max_uses: 0, uses: 0 } } };
    given(inviteDecider, [forever])
      .when({ type: 'AcceptInvite', userId: 'a', now: T + 10 * 365 * 86400_000 })
      .then([accepted('a', 1)]);
  });

  it('is unknown once deleted', () => {
    given(inviteDecider, [created])
      .when({ type: 'DeleteInvite' })
      .then([{ type: 'InviteDeleted', data: { invite: { ...terms, uses: 0 } } }]);
    const deleted: InviteEvent = { type: 'InviteDeleted', data: { invite: { ...terms, uses: 0 } } };
    given(inviteDecider, [created, deleted]).when({ type: 'AcceptInvite', userId: 'a', now: T }).thenRefuses('UNKNOWN_INVITE');
    given(inviteDecider, [created, deleted]).when({ type: 'DeleteInvite' }).thenRefuses('UNKNOWN_INVITE');
    given(inviteDecider, []).when({ type: 'AcceptInvite', userId: 'a', now: T }).thenRefuses('UNKNOWN_INVITE');
  });
});

describe('vanity code claims', () => {
  const claimed = { type: 'VanityCodeClaimed' as const, data: { code: 'cool', guildId: 'g1' } };

  it('gives a code to one guild at a time', () => {
    given(vanityClaimDecider, []).when({ type: 'ClaimVanityCode', code: 'cool', guildId: 'g1' }).then([claimed]);
    given(vanityClaimDecider, [claimed]).when({ type: 'ClaimVanityCode', code: 'cool', guildId: 'g1' }).then([]);
    given(vanityClaimDecider, [claimed]).when({ type: 'ClaimVanityCode', code: 'cool', guildId: 'g2' }).thenRefuses('INVALID_FORM_BODY');
  });

  it('frees the code when its holder releases it, and only then', () => {
    const released = { type: 'VanityCodeReleased' as const, data: { code: 'cool', guildId: 'g1' } };
    given(vanityClaimDecider, [claimed]).when({ type: 'ReleaseVanityCode', code: 'cool', guildId: 'g2' }).then([]);
    given(vanityClaimDecider, [claimed]).when({ type: 'ReleaseVanityCode', code: 'cool', guildId: 'g1' }).then([released]);
    given(vanityClaimDecider, [claimed, released])
      .when({ type: 'ClaimVanityCode', code: 'cool', guildId: 'g2' })
      .then([{ type: 'VanityCodeClaimed', data: { code: 'cool', guildId: 'g2' } }]);
  });
});
