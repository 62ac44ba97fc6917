// Projection specs of the message read models: given events → the messages, reactions and channels documents.
import { describe, it } from 'vitest';
import { channelsProjection } from '../../projections/channels.js';
import { messagesProjection } from '../../projections/messages.js';
import { EARLIER, givenProjections } from './support.js';
import {
  G,
  GENERAL,
  THUMBS_UP_FIELD,
  ada,
  bob,
  cy,
  deleted,
  guildCreated,
  messageFields,
  messageUser,
  pinned,
  reacted,
  sent,
  thumbsUp,
  unpinned,
  unreacted,
} from './events.js';

const messages = givenProjections(messagesProjection);
const withChannels = givenProjections(channelsProjection, messagesProjection);
const EDITED = '2025-01-02T00:00:00.000Z';
const PIN_1 = '2025-01-03T00:00:00.000Z';
const PIN_2 = '2025-01-04T00:00:00.000Z';

describe('messages projection: sends, edits and deletes', () => {
  it('makes a sent message a document of its API fields, keyed by its id, unpinned and without reactions', () => {
    const { id: _, ...fields } = messageFields({ content: 'first!' });
    return messages()
      .when(sent({ content: 'first!' }))
      .then('messages', '100', { ...fields, _id: '100', pinned: false, pinned_at: null, reactions: {} });
  });

  it("sets the channel's last_message_id to the message sent", () =>
    withChannels(guildCreated)
      .when(sent({ id: '100' }))
      .then('channels', GENERAL, { guild_id: G, last_message_id: '100' }));

  it('keeps the newest id as last_message_id when an older send is projected later', () =>
    withChannels(guildCreated, sent({ id: '101' }))
      .when(sent({ id: '100' }))
      .then('channels', GENERAL, { last_message_id: '101' }));

  it('sets the changed fields of an edit and keeps the rest', () =>
    messages(sent({ content: 'helo', tts: true }))
      .when({
        type: 'MessageEdited',
        data: {
          messageId: '100',
          channelId: GENERAL,
          guildId: G,
          authorId: ada.id,
          editorId: ada.id,
          changes: { content: 'hello', edited_timestamp: EDITED },
          message: messageFields({ content: 'hello', tts: true, edited_timestamp: EDITED }),
          removedAttachments: [],
        },
      })
      .then('messages', '100', { content: 'hello', edited_timestamp: EDITED, tts: true, author: messageUser(ada) }));

  it('removes a deleted message', () => messages(sent()).when(deleted(messageFields(), ada.id)).then('messages', '100', null));

  it("removes a deleted message's reactions with it", () =>
    messages(sent(), reacted('100', bob, 1))
      .when(deleted(messageFields(), ada.id))
      .thenFind('reactions', { message_id: '100' }, []));

  it('leaves the other messages of the channel alone when one is deleted', () =>
    messages(sent({ id: '100' }), sent({ id: '101', content: 'still here' }))
      .when(deleted(messageFields({ id: '100' }), ada.id))
      .thenFind('messages', { channel_id: GENERAL }, [{ _id: '101', content: 'still here' }]));
});

describe('messages projection: reactions', () => {
  it("sets an emoji's count from the event, and records each reactor", async () => {
    const given = messages(sent()).when(reacted('100', bob, 1), reacted('100', cy, 2));
    await given.then('messages', '100', { reactions: { [THUMBS_UP_FIELD]: { emoji: thumbsUp, count: 2 } } });
    await given.thenFind('reactions', { message_id: '100' }, [
      { _id: `100:${THUMBS_UP_FIELD}:${bob.id}`, channel_id: GENERAL, emoji_field: THUMBS_UP_FIELD, user_id: bob.id },
      { _id: `100:${THUMBS_UP_FIELD}:${cy.id}`, channel_id: GENERAL, emoji_field: THUMBS_UP_FIELD, user_id: cy.id },
    ]);
  });

  it('drops an emoji from the counts when its last reactor takes it back', async () => {
    const given = messages(sent(), reacted('100', bob, 1)).when(unreacted('100', bob, 0));
    await given.then('messages', '100', { reactions: {} });
    await given.thenFind('reactions', { message_id: '100' }, []);
  });

  it('empties the counts and the reactor list when all reactions are cleared', async () => {
    const heart = { id: null, name: '❤️', animated: false };
    const given = messages(sent(), reacted('100', bob, 1), reacted('100', cy, 1, heart)).when({
      type: 'ReactionsCleared',
      data: { messageId: '100', channelId: GENERAL, guildId: G, messageAuthorId: ada.id, emoji: null, clearedBy: cy.id },
    });
    await given.then('messages', '100', { reactions: {} });
    await given.thenFind('reactions', { message_id: '100' }, []);
  });
});

describe('messages projection: pins', () => {
  it("marks a pinned message and sets the channel's last_pin_timestamp", async () => {
    const given = withChannels(guildCreated, sent()).when(pinned('100', PIN_1));
    await given.then('messages', '100', { pinned: true, pinned_at: PIN_1 });
    await given.then('channels', GENERAL, { last_pin_timestamp: PIN_1 });
  });

  it("clears an unpinned message's pin and takes last_pin_timestamp from the pins that remain", async () => {
    const given = withChannels(guildCreated, sent({ id: '100' }), sent({ id: '101' }), pinned('100', PIN_1), pinned('101', PIN_2)).when(unpinned('101', PIN_1));
    await given.then('messages', '101', { pinned: false, pinned_at: null });
    await given.then('messages', '100', { pinned: true, pinned_at: PIN_1 });
    await given.then('channels', GENERAL, { last_pin_timestamp: PIN_1 });
  });
});

describe('messages projection: replays', () => {
  // The runner applies an event once per projection (checkpoints, see projectionRunner.test.ts); these documents are
  // also written so that applying the same events again changes nothing: counts are set from the event, documents replaced.
  it('gives the same documents when the same events are projected twice', async () => {
    const history = [sent(), reacted('100', bob, 1), reacted('100', cy, 2), pinned('100', PIN_1)];
    const given = messages(...history).when(...history);
    await given.then('messages', '100', {
      _id: '100',
      content: 'hello',
      timestamp: EARLIER,
      pinned: true,
      reactions: { [THUMBS_UP_FIELD]: { emoji: thumbsUp, count: 2 } },
    });
    await given.thenFind('reactions', { message_id: '100' }, [{ user_id: bob.id }, { user_id: cy.id }]);
  });
});
