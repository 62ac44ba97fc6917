// Specs of the member and ban reads (commands/members.ts): given streams in the log → the read → what the reader sees,
// with nothing appended. Outsiders learn only that the guild is unknown: the page they asked for is not even read.
import { describe, expect, it, vi } from 'vitest';
import { readBan, readBans, readMember, readMembers } from '../../commands/members.js';
import { G, accounts, ada, bob, cy, eve, finn, guildStream } from './events.js';
import { givenStreams } from './support.js';

const people = accounts(ada, bob, cy, eve, finn);
const banned = { type: 'MemberBanned', data: { guildId: G, userId: finn.id, deleteMessageSeconds: 0, bannedAt: '2025-02-01T00:00:00.000Z' } };
const withBan: [string, (typeof guildStream)[1]] = [guildStream[0], [...guildStream[1], banned as (typeof guildStream)[1][number]]];
const userIds = (found: { user: { _id: string } }[]) => found.map((f) => f.user._id);

describe('readMembers', () => {
  it('answers the first page of the members by user id, each with their user', () =>
    givenStreams(...people, guildStream)
      .when(async (deps) => expect(userIds(await readMembers(deps, G, bob.id, () => ({ limit: 2 })))).toEqual([ada.id, bob.id]))
      .then());

  it('answers UNKNOWN_GUILD to an outsider without reading the page asked for', async () => {
    const page = vi.fn(() => ({ limit: 2 }));
    await givenStreams(...people, guildStream)
      .when((deps) => readMembers(deps, G, finn.id, page))
      .thenRefuses('UNKNOWN_GUILD');
    expect(page).not.toHaveBeenCalled();
  });
});

describe('readMember', () => {
  it('answers UNKNOWN_MEMBER for someone who is not a member', () =>
    givenStreams(...people, guildStream)
      .when((deps) => readMember(deps, G, finn.id, bob.id))
      .thenRefuses('UNKNOWN_MEMBER'));
});

describe('readBans', () => {
  it('answers the bans, each with the banned user, to a holder of BAN_MEMBERS', () =>
    givenStreams(...people, withBan)
      .when(async (deps) => expect(userIds(await readBans(deps, G, cy.id, () => ({ limit: 10 })))).toEqual([finn.id]))
      .then());

  it('refuses a member without BAN_MEMBERS, without reading the page asked for', async () => {
    const page = vi.fn(() => ({ limit: 10 }));
    await givenStreams(...people, withBan)
      .when((deps) => readBans(deps, G, bob.id, page))
      .thenRefuses('MISSING_PERMISSIONS');
    expect(page).not.toHaveBeenCalled();
  });

  it('answers UNKNOWN_BAN for a user who is not banned', () =>
    givenStreams(...people, withBan)
      .when((deps) => readBan(deps, G, bob.id, cy.id))
      .thenRefuses('UNKNOWN_BAN'));
});
