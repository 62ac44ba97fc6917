// Projection specs of what interaction responses add to the message read model: an ephemeral message is kept with the
// users who see it (its author, those it mentions, the user whose interaction it answers), and a channel's history
// pages show each viewer the messages everyone sees and only their own ephemeral ones.
import { describe, expect, it } from 'vitest';
import { SqliteReadStore } from '../../infra/readStore/sqlite.js';
import { messagesProjection } from '../../projections/messages.js';
import { messagePage } from '../../projections/messages.queries.js';
import { G, GENERAL, ada, bob, cy, messageFields, messageUser, sent } from './events.js';
import { type HistoryEvent, givenProjections, recorded } from './support.js';

const messages = givenProjections(messagesProjection);
const answerTo = (person: typeof bob) => ({
  interaction_metadata: { id: '900', type: 2, user: messageUser(person), authorizing_integration_owners: { '0': G }, name: 'ping', command_type: 1 },
});

describe('messages projection: who sees an ephemeral message', () => {
  it('keeps an ephemeral answer for its author and the invoker', () =>
    messages()
      .when(sent({ id: '100', flags: 64, ...answerTo(bob) }))
      .then('messages', '100', { ephemeral: true, visible_to: [ada.id, bob.id] }));

  it('keeps nothing of the kind on a message everyone sees', () =>
    messages()
      .when(sent({ id: '100', ...answerTo(bob) }))
      .then('messages', '100', { ephemeral: undefined, visible_to: undefined, interaction_metadata: answerTo(bob).interaction_metadata }));

  it('follows an edit that mentions someone new', () =>
    messages(sent({ id: '100', flags: 64, ...answerTo(bob) }))
      .when({
        type: 'MessageEdited',
        data: {
          messageId: '100',
          channelId: GENERAL,
          guildId: G,
          authorId: ada.id,
          editorId: ada.id,
          changes: { content: 'hi <@3>', mentions: [messageUser(cy)] },
          message: messageFields({ id: '100', flags: 64, content: 'hi <@3>', mentions: [messageUser(cy)], ...answerTo(bob) }),
          removedAttachments: [],
        },
      })
      .then('messages', '100', { visible_to: [ada.id, cy.id, bob.id] }));
});

describe('messagePage: a history as each viewer sees it', () => {
  // Real ids: 19-digit snowflakes, which is what pages compare.
  const [ID101, ID102, ID103, ID104, ID105] = ['101', '102', '103', '104', '105'].map((n) => `1378704634675200${n}`);
  const history: HistoryEvent[] = [
    sent({ id: ID101, content: 'public 1' }),
    sent({ id: ID102, content: 'for bob', flags: 64, ...answerTo(bob) }),
    sent({ id: ID103, content: 'public 2' }),
    sent({ id: ID104, content: 'for cy', flags: 64, ...answerTo(cy) }),
    sent({ id: ID105, content: 'public 3' }),
  ];

  async function page(viewer: string, query: { limit: number; before?: string; after?: string; around?: string }) {
    const store = new SqliteReadStore(':memory:');
    try {
      await store.ensureIndexes(messagesProjection.indexes);
      await store.bulkWrite(history.flatMap((e, i) => messagesProjection.project(recorded(e, i))));
      return (await messagePage(store, GENERAL, viewer, query)).map((doc) => doc._id);
    } finally {
      await store.close();
    }
  }

  it('merges the viewer’s ephemeral messages into the shared ones, newest first, up to the limit', async () => {
    expect(await page(bob.id, { limit: 50 })).toEqual([ID105, ID103, ID102, ID101]);
    expect(await page(cy.id, { limit: 50 })).toEqual([ID105, ID104, ID103, ID101]);
    expect(await page(ada.id, { limit: 50 })).toEqual([ID105, ID104, ID103, ID102, ID101]);
    expect(await page(bob.id, { limit: 2 })).toEqual([ID105, ID103]);
    expect(await page(bob.id, { limit: 2, before: ID103 })).toEqual([ID102, ID101]);
    expect(await page(cy.id, { limit: 2, after: ID101 })).toEqual([ID104, ID103]);
    expect(await page(bob.id, { limit: 2, around: ID102 })).toEqual([ID102, ID101]);
  });
});
