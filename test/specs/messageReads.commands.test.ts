// Specs of the message reads (commands/messages/read.ts): given streams in the log → the read → what the reader sees,
// with nothing appended. Without READ_MESSAGE_HISTORY a page and the pins are empty and one message is refused.
import { describe, expect, it } from 'vitest';
import { readMessage, readMessages, readPins, readReactors } from '../../commands/messages/read.js';
import type { GuildEvent } from '../../domain/guild.js';
import { Permission } from '../../domain/permissions.js';
import { G, GENERAL, ANNOUNCEMENTS, accounts, ada, bob, cy, finn, guildStream, messageUser, pinned, reacted, sent, thumbsUp } from './events.js';
import { type HistoryEvent, givenStreams } from './support.js';

const people = accounts(ada, bob, cy, finn);
const PINNED_AT = '2025-03-01T00:00:00.000Z';
const messages: [string, HistoryEvent[]][] = [
  ['message-100', [sent({ id: '100' })]],
  ['message-101', [sent({ id: '101', author: messageUser(bob) })]],
  ['message-200', [sent({ id: '200', channel_id: ANNOUNCEMENTS })]],
];
/** The guild with bob denied READ_MESSAGE_HISTORY in #general. */
const historyDenied: [string, GuildEvent[]] = [
  guildStream[0],
  [
    ...guildStream[1],
    {
      type: 'ChannelOverwriteSet',
      data: {
        guildId: G,
        channelId: GENERAL,
        overwrite: { id: bob.id, type: 1, allow: '0', deny: Permission.READ_MESSAGE_HISTORY.toString() },
        previous: null,
      },
    },
  ],
];
const ids = (docs: { _id: string }[]) => docs.map((doc) => doc._id);

describe('readMessages', () => {
  it("answers the channel's messages, newest first, to a member", () =>
    givenStreams(...people, guildStream, ...messages)
      .when(async (deps) => expect(ids(await readMessages(deps, GENERAL, bob.id, { limit: 50 }))).toEqual(['101', '100']))
      .then());

  it('answers none to a member without READ_MESSAGE_HISTORY there', () =>
    givenStreams(...people, historyDenied, ...messages)
      .when(async (deps) => expect(await readMessages(deps, GENERAL, bob.id, { limit: 50 })).toEqual([]))
      .then());

  it('answers UNKNOWN_CHANNEL to someone outside the guild', () =>
    givenStreams(...people, guildStream, ...messages)
      .when((deps) => readMessages(deps, GENERAL, finn.id, { limit: 50 }))
      .thenRefuses('UNKNOWN_CHANNEL'));
});

describe('readMessage', () => {
  it('answers a message of the channel', () =>
    givenStreams(...people, guildStream, ...messages)
      .when(async (deps) => expect((await readMessage(deps, GENERAL, '100', bob.id))._id).toBe('100'))
      .then());

  it('answers UNKNOWN_MESSAGE for a message of another channel', () =>
    givenStreams(...people, guildStream, ...messages)
      .when((deps) => readMessage(deps, GENERAL, '200', bob.id))
      .thenRefuses('UNKNOWN_MESSAGE'));

  it('refuses a member without READ_MESSAGE_HISTORY there', () =>
    givenStreams(...people, historyDenied, ...messages)
      .when((deps) => readMessage(deps, GENERAL, '100', bob.id))
      .thenRefuses('MISSING_PERMISSIONS'));
});

describe('readPins', () => {
  const pins: [string, ReturnType<typeof pinned>[]] = ['channel-pins-10', [pinned('100', PINNED_AT)]];

  it('answers the pinned messages to a member', () =>
    givenStreams(...people, guildStream, ...messages, pins)
      .when(async (deps) => expect(ids(await readPins(deps, GENERAL, bob.id, { limit: 50 }))).toEqual(['100']))
      .then());

  it('answers none to a member without READ_MESSAGE_HISTORY there', () =>
    givenStreams(...people, historyDenied, ...messages, pins)
      .when(async (deps) => expect(await readPins(deps, GENERAL, bob.id, { limit: 50 })).toEqual([]))
      .then());
});

describe('readReactors', () => {
  // Reactions are appended to their message's stream.
  const reactions: [string, HistoryEvent[]] = ['message-100', [sent({ id: '100' }), reacted('100', cy, 1), reacted('100', bob, 2)]];
  const others = messages.slice(1);

  it('answers the users who reacted with the emoji, by id', () =>
    givenStreams(...people, guildStream, ...others, reactions)
      .when(async (deps) => expect(ids(await readReactors(deps, GENERAL, '100', ada.id, thumbsUp, { type: 0, limit: 25 }))).toEqual([bob.id, cy.id]))
      .then());

  it('answers none for super reactions, which do not exist here', () =>
    givenStreams(...people, guildStream, ...others, reactions)
      .when(async (deps) => expect(await readReactors(deps, GENERAL, '100', ada.id, thumbsUp, { type: 1, limit: 25 })).toEqual([]))
      .then());

  it('refuses a member without READ_MESSAGE_HISTORY there', () =>
    givenStreams(...people, historyDenied, ...others, reactions)
      .when((deps) => readReactors(deps, GENERAL, '100', bob.id, thumbsUp, { type: 0, limit: 25 }))
      .thenRefuses('MISSING_PERMISSIONS'));
});
