// Specs of the thread reads (commands/threads.ts): given streams in the log → the read → what the reader sees. A private
// thread is its members' and MANAGE_THREADS holders'; the archived private list needs MANAGE_THREADS besides
// READ_MESSAGE_HISTORY; a guild's lists are its members'.
import { describe, expect, it } from 'vitest';
import { readActiveThreads, readArchivedThreads, readJoinedArchivedThreads, readThread, readThreadMember, readThreadMembers } from '../../commands/threads.js';
import type { ThreadData, ThreadEvent } from '../../domain/thread.js';
import { EARLIER, givenStreams } from './support.js';
import { G, GENERAL, type Person, accounts, ada, bob, cy, eve, finn, guildStream, threadData } from './events.js';

const people = accounts(ada, bob, cy, eve, finn);

const thread = (id: string, type: 11 | 12, archived: boolean, owner: Person): ThreadData => threadData(id, type, archived, owner.id);
/** Bob's public thread, open; ada's private thread, archived. Each with its owner as its one member. */
const OPEN = thread('700', 11, false, bob);
const PRIVATE = thread('702', 12, true, ada);
const created = (data: ThreadData): [string, ThreadEvent[]] => [
  `thread-${data.id}`,
  [
    { type: 'ThreadCreated', data: { guildId: G, thread: data, fromMessage: false } },
    {
      type: 'ThreadMemberAdded',
      data: { guildId: G, threadId: data.id, parentId: GENERAL, userId: data.owner_id, joinTimestamp: EARLIER, memberCount: 1 },
    },
  ],
];
const history = [...people, guildStream, created(OPEN), created(PRIVATE)];
const ids = (docs: { _id: string }[]) => docs.map((doc) => doc._id);

describe('readThread', () => {
  it('answers a private thread to its member', () =>
    givenStreams(...history)
      .when(async (deps) => expect((await readThread(deps, PRIVATE.id, ada.id)).id).toBe(PRIVATE.id))
      .then());

  it('answers UNKNOWN_CHANNEL to a guild member who neither joined a private thread nor manages threads', () =>
    givenStreams(...history)
      .when((deps) => readThread(deps, PRIVATE.id, bob.id))
      .thenRefuses('UNKNOWN_CHANNEL'));
});

describe('readThreadMember and readThreadMembers', () => {
  it('answers a member with their guild member and user when asked', () =>
    givenStreams(...history)
      .when(async (deps) => {
        const found = await readThreadMember(deps, OPEN.id, bob.id, cy.id, true);
        expect([found.doc.user_id, found.member?.doc.user_id, found.member?.user._id]).toEqual([bob.id, bob.id, bob.id]);
      })
      .then());

  it('answers the members without their guild member unless asked', () =>
    givenStreams(...history)
      .when(async (deps) =>
        expect(await readThreadMembers(deps, OPEN.id, cy.id, { limit: 10, withMember: false })).toEqual([
          { doc: expect.objectContaining({ user_id: bob.id }) },
        ]),
      )
      .then());

  it('answers UNKNOWN_MEMBER for someone not in the thread', () =>
    givenStreams(...history)
      .when((deps) => readThreadMember(deps, OPEN.id, cy.id, bob.id, false))
      .thenRefuses('UNKNOWN_MEMBER'));

  it('answers UNKNOWN_CHANNEL to an outsider', () =>
    givenStreams(...history)
      .when((deps) => readThreadMembers(deps, OPEN.id, finn.id, { limit: 10, withMember: false }))
      .thenRefuses('UNKNOWN_CHANNEL'));
});

describe('readActiveThreads', () => {
  it('answers the threads not archived, with the reader’s memberships of them', () =>
    givenStreams(...history)
      .when(async (deps) => {
        const list = await readActiveThreads(deps, G, bob.id);
        expect([ids(list.threads), list.members.map((m) => m.user_id), list.hasMore]).toEqual([[OPEN.id], [bob.id], undefined]);
      })
      .then());

  it('answers UNKNOWN_GUILD to an outsider', () =>
    givenStreams(...history)
      .when((deps) => readActiveThreads(deps, G, finn.id))
      .thenRefuses('UNKNOWN_GUILD'));
});

describe('readArchivedThreads and readJoinedArchivedThreads', () => {
  it('answers the archived private threads to a holder of MANAGE_THREADS', () =>
    givenStreams(...history)
      .when(async (deps) => {
        const list = await readArchivedThreads(deps, GENERAL, ada.id, 'private', { limit: 10 });
        expect([ids(list.threads), list.hasMore]).toEqual([[PRIVATE.id], false]);
      })
      .then());

  it('refuses the archived private threads to a member without MANAGE_THREADS', () =>
    givenStreams(...history)
      .when((deps) => readArchivedThreads(deps, GENERAL, bob.id, 'private', { limit: 10 }))
      .thenRefuses('MISSING_PERMISSIONS'));

  it('answers no public thread among the archived public ones when none is archived', () =>
    givenStreams(...history)
      .when(async (deps) => expect(ids((await readArchivedThreads(deps, GENERAL, bob.id, 'public', { limit: 10 })).threads)).toEqual([]))
      .then());

  it('answers the archived private threads the reader joined, without MANAGE_THREADS', () =>
    givenStreams(...history)
      .when(async (deps) => expect(ids((await readJoinedArchivedThreads(deps, GENERAL, ada.id, { limit: 10 })).threads)).toEqual([PRIVATE.id]))
      .then());
});
