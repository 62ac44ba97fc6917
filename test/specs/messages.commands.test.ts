// Command specs of sending and deleting messages: given streams in the log → when the command function → then the
// events it appended, or its refusal with nothing appended.
import { describe, expect, it } from 'vitest';
import { messageChannelAccess } from '../../commands/access.js';
import { deleteMessage } from '../../commands/messages/delete.js';
import { editInChannel } from '../../commands/messages/edit.js';
import { sendMessage } from '../../commands/messages/send.js';
import type { GuildEvent } from '../../domain/guild.js';
import { NEW_IDS, NOW, appendStreams, commandDeps, givenStreams } from './support.js';
import { ANNOUNCEMENTS, G, GENERAL, accounts, ada, bob, cy, deleted, finn, guildStream, messageFields, messageUser, pinned, sent } from './events.js';

const asUser = (person: { id: string }) => ({ userId: person.id, bot: false });
const people = accounts(ada, bob, cy, finn);
const PINNED_AT = '2025-03-01T00:00:00.000Z';

describe('sendMessage', () => {
  it("appends the member's message on its own stream, authored and mentioning as the users read model shows them", () => {
    const message = messageFields({ id: NEW_IDS[0], author: messageUser(bob), content: 'hi <@1>', mentions: [messageUser(ada)], timestamp: NOW });
    return givenStreams(...people, guildStream)
      .when((deps) => sendMessage(deps, { actorId: bob.id }, GENERAL, { content: 'hi <@1>' }, [], asUser(bob)))
      .then({
        stream: `message-${NEW_IDS[0]}`,
        type: 'MessageCreated',
        data: { messageId: NEW_IDS[0], channelId: GENERAL, guildId: G, authorId: bob.id, message },
        metadata: { actorId: bob.id, createdAt: NOW },
      });
  });

  it('refuses a send where an overwrite denies @everyone SEND_MESSAGES, appending nothing', () =>
    givenStreams(...people, guildStream)
      .when((deps) => sendMessage(deps, { actorId: bob.id }, ANNOUNCEMENTS, { content: 'hi' }, [], asUser(bob)))
      .thenRefuses('MISSING_PERMISSIONS'));

  it('answers UNKNOWN_CHANNEL to a user who is not a member of the channel’s guild, appending nothing', () =>
    givenStreams(...people, guildStream)
      .when((deps) => sendMessage(deps, { actorId: finn.id }, GENERAL, { content: 'hi' }, [], asUser(finn)))
      .thenRefuses('UNKNOWN_CHANNEL'));

  it('refuses a message with no content, embed, attachment or component, appending nothing', () =>
    givenStreams(...people, guildStream)
      .when((deps) => sendMessage(deps, { actorId: bob.id }, GENERAL, { content: '' }, [], asUser(bob)))
      .thenRefuses('CANNOT_SEND_EMPTY_MESSAGE'));

  describe('by a member who was timed out', () => {
    const timedOutUntil = (until: string): [string, GuildEvent[]] => [
      guildStream[0],
      [
        ...guildStream[1],
        { type: 'MemberUpdated', data: { guildId: G, userId: bob.id, changes: [{ key: 'communication_disabled_until', new_value: until }] } },
      ],
    ];
    const oneHour = 60 * 60 * 1000;

    it('is refused with MISSING_ACCESS while the timeout lasts, appending nothing', () =>
      givenStreams(...people, timedOutUntil(new Date(Date.parse(NOW) + oneHour).toISOString()))
        .when((deps) => sendMessage(deps, { actorId: bob.id }, GENERAL, { content: 'hi' }, [], asUser(bob)))
        .thenRefuses('MISSING_ACCESS'));

    it('goes through once the clock has passed its end', () =>
      givenStreams(...people, timedOutUntil(new Date(Date.parse(NOW) - oneHour).toISOString()))
        .when((deps) => sendMessage(deps, { actorId: bob.id }, GENERAL, { content: 'hi' }, [], asUser(bob)))
        .then({
          stream: `message-${NEW_IDS[0]}`,
          type: 'MessageCreated',
          data: expect.objectContaining({ authorId: bob.id, message: expect.objectContaining({ content: 'hi' }) }),
        }));
  });
});

describe('deleteMessage', () => {
  const bobs = messageFields({ id: '100', author: messageUser(bob) });

  it('lets the author delete their own message', () =>
    givenStreams(...people, guildStream, ['message-100', [sent({ id: '100', author: messageUser(bob) })]])
      .when((deps) => deleteMessage(deps, { actorId: bob.id }, GENERAL, '100'))
      .then({ stream: 'message-100', type: 'MessageDeleted', data: deleted(bobs, bob.id).data, metadata: { actorId: bob.id, createdAt: NOW } }));

  it("refuses to delete someone else's message without MANAGE_MESSAGES, appending nothing", () =>
    givenStreams(...people, guildStream, ['message-100', [sent({ id: '100', author: messageUser(ada) })]])
      .when((deps) => deleteMessage(deps, { actorId: bob.id }, GENERAL, '100'))
      .thenRefuses('MISSING_PERMISSIONS'));

  it("lets a moderator delete someone else's message, and unpins it so it stops counting toward the channel's pins", () =>
    givenStreams(...people, guildStream, ['message-100', [sent({ id: '100', author: messageUser(bob) })]], ['channel-pins-10', [pinned('100', PINNED_AT)]])
      .when((deps) => deleteMessage(deps, { actorId: cy.id, reason: 'off topic' }, GENERAL, '100'))
      .then(
        { stream: 'message-100', type: 'MessageDeleted', data: deleted(bobs, cy.id).data, metadata: { actorId: cy.id, reason: 'off topic' } },
        {
          stream: 'channel-pins-10',
          type: 'MessageUnpinned',
          data: { channelId: GENERAL, guildId: G, messageId: '100', unpinnedBy: null, lastPinTimestamp: null },
          metadata: { actorId: cy.id, reason: 'off topic' },
        },
      ));

  it('answers UNKNOWN_MESSAGE for a message already deleted, appending nothing', () =>
    givenStreams(...people, guildStream, ['message-100', [sent({ id: '100', author: messageUser(bob) }), deleted(bobs, bob.id)]])
      .when((deps) => deleteMessage(deps, { actorId: bob.id }, GENERAL, '100'))
      .thenRefuses('UNKNOWN_MESSAGE'));
});

describe('editInChannel', () => {
  it('takes back the file it stored when the message is deleted before its edit lands, so no file is left unnamed', async () => {
    const world = await commandDeps();
    try {
      const message = messageFields({ id: '100', author: messageUser(bob) });
      await world.deps.settle(await appendStreams(world.eventStore, [...people, guildStream, ['message-100', [sent(message)]]]));
      const access = await messageChannelAccess(world.deps, GENERAL, bob.id);
      const file = { index: 0, filename: 'late.txt', contentType: 'text/plain', data: Buffer.from('late') };
      // A moderator's delete lands between the edit's checks and its append.
      const deletedMeanwhile = async () => void (await appendStreams(world.eventStore, [['message-100', [deleted(message, cy.id)]]]));
      const edit = editInChannel(world.deps, { actorId: bob.id }, access, '100', { content: 'edited' }, [file], asUser(bob), deletedMeanwhile);
      await expect(edit).rejects.toMatchObject({ code: 'UNKNOWN_MESSAGE' });
      expect([...world.blobs.blobs.keys()]).toEqual([]);
    } finally {
      await world.close();
    }
  });
});
