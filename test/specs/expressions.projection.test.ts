// Projection specs of a guild's emojis and stickers: events → one document per live emoji or sticker (gone with their
// guild), the page of stickers with its total, and the audit entries they make (72-74 for emojis, 90-92 for stickers).
import { describe, expect, it } from 'vitest';
import type { GuildDeleted } from '../../domain/guild.js';
import type { Change } from '../../domain/guildState.js';
import type { EmojiData, GuildExpressionEvent, StickerData } from '../../domain/guildExpressions.js';
import { SqliteReadStore } from '../../infra/readStore/sqlite.js';
import { auditLogProjection } from '../../projections/auditLog.js';
import { AUDIT_LOG_ENTRIES, EMOJIS, STICKERS } from '../../projections/collections.js';
import { expressionsProjection } from '../../projections/expressions.js';
import { emojisOfGuild, stickersPage } from '../../projections/expressions.queries.js';
import { ada, G } from './events.js';
import { EARLIER, NOW, by, givenProjections, recorded } from './support.js';

const emoji = (id: string, over: Partial<EmojiData> = {}): EmojiData => ({
  id,
  name: `e${id}`,
  roles: [],
  user_id: ada.id,
  animated: false,
  created_at: EARLIER,
  ...over,
});
const sticker = (id: string, over: Partial<StickerData> = {}): StickerData => ({
  id,
  name: `s${id}`,
  description: 'd',
  tags: ['a', 'b'],
  format: 'webp',
  animated: false,
  image_hash: 'f'.repeat(32),
  user_id: ada.id,
  created_at: EARLIER,
  updated_at: null,
  ...over,
});
const emojiCreated = (data: EmojiData, guildId = G): GuildExpressionEvent => ({ type: 'EmojiCreated', data: { guildId, emoji: data } });
const stickerCreated = (data: StickerData, guildId = G): GuildExpressionEvent => ({ type: 'StickerCreated', data: { guildId, sticker: data } });
/** Sticker 20's tags a,b become c (with any other changes given), at NOW. */
const retagged = (...more: Change[]): GuildExpressionEvent => ({
  type: 'StickerUpdated',
  data: {
    guildId: G,
    stickerId: '20',
    changes: [{ key: 'tags', old_value: ['a', 'b'], new_value: ['c'] }, ...more, { key: 'updated_at', old_value: null, new_value: NOW }],
  },
});
const guildDeleted: GuildDeleted = { type: 'GuildDeleted', data: { guildId: G, vanityCode: null } };

const expressions = givenProjections(expressionsProjection);
const audit = givenProjections(auditLogProjection);

/** A store with the events projected, for the queries. */
async function projected(...events: GuildExpressionEvent[]) {
  const store = new SqliteReadStore(':memory:');
  await store.bulkWrite(events.flatMap((e, i) => expressionsProjection.project(recorded(e, i))));
  return store;
}

describe('emojis projection', () => {
  it('makes a created emoji a document of its guild', () =>
    expressions()
      .when(emojiCreated(emoji('10')))
      .then(EMOJIS, '10', { guild_id: G, name: 'e10', roles: [], user_id: ada.id, animated: false, created_at: EARLIER }));

  it('applies an update’s changes and removes a deleted emoji', async () => {
    await expressions(emojiCreated(emoji('10')))
      .when({ type: 'EmojiUpdated', data: { guildId: G, emojiId: '10', changes: [{ key: 'name', old_value: 'e10', new_value: 'renamed' }] } })
      .then(EMOJIS, '10', { name: 'renamed', roles: [] });
    await expressions(emojiCreated(emoji('10')))
      .when({ type: 'EmojiDeleted', data: { guildId: G, emoji: emoji('10'), purged: false } })
      .then(EMOJIS, '10', null);
  });

  it('removes a guild’s emojis and stickers with the guild, and no other guild’s', async () => {
    await expressions(emojiCreated(emoji('10')), stickerCreated(sticker('20')))
      .when(guildDeleted)
      .thenFind(EMOJIS, {}, []);
    await expressions(stickerCreated(sticker('20')), stickerCreated(sticker('21'), '501'))
      .when(guildDeleted)
      .thenFind(STICKERS, {}, [{ _id: '21' }]);
  });

  it('lists a guild’s emojis oldest first', async () => {
    const store = await projected(emojiCreated(emoji('12')), emojiCreated(emoji('11')), emojiCreated(emoji('13'), '501'));
    expect((await emojisOfGuild(store, G)).map((d) => d._id)).toEqual(['11', '12']);
    await store.close();
  });
});

describe('stickers projection', () => {
  it('makes a created sticker a document, and an update sets its changes', () =>
    expressions(stickerCreated(sticker('20')))
      .when(retagged())
      .then(STICKERS, '20', { guild_id: G, name: 's20', tags: ['c'], format: 'webp', updated_at: NOW }));

  it('pages a guild’s stickers with the total', async () => {
    const store = await projected(...Array.from({ length: 7 }, (_, i) => stickerCreated(sticker(String(30 + i)))));
    const page = await stickersPage(store, G, { limit: 3, offset: 5 });
    expect({ ids: page.stickers.map((d) => d._id), total: page.total }).toEqual({ ids: ['35', '36'], total: 7 });
    await store.close();
  });
});

describe('audit entries of expressions', () => {
  it('records emoji create, update and delete as 72, 73 and 74 with names as changes', () =>
    audit()
      .when(
        by(ada.id, emojiCreated(emoji('10'))),
        by(
          ada.id,
          { type: 'EmojiUpdated', data: { guildId: G, emojiId: '10', changes: [{ key: 'name', old_value: 'e10', new_value: 'e11' }] } },
          { reason: 'typo' },
        ),
        by(ada.id, { type: 'EmojiDeleted', data: { guildId: G, emoji: emoji('10', { name: 'e11' }), purged: true } }),
      )
      .thenFind(AUDIT_LOG_ENTRIES, { guild_id: G }, [
        { action_type: 72, target_id: '10', user_id: ada.id, changes: [{ key: 'name', new_value: 'e10' }], options: {} },
        { action_type: 73, target_id: '10', reason: 'typo', changes: [{ key: 'name', old_value: 'e10', new_value: 'e11' }] },
        { action_type: 74, target_id: '10', changes: [{ key: 'name', old_value: 'e11' }] },
      ]));

  it('records sticker entries 90-92 with tags as one string, leaving out what the service changed itself', () =>
    audit()
      .when(by(ada.id, stickerCreated(sticker('20'))), by(ada.id, retagged({ key: 'image_hash', old_value: 'f'.repeat(32), new_value: 'e'.repeat(32) })))
      .thenFind(AUDIT_LOG_ENTRIES, { guild_id: G }, [
        {
          action_type: 90,
          changes: [
            { key: 'name', new_value: 's20' },
            { key: 'description', new_value: 'd' },
            { key: 'tags', new_value: 'a,b' },
          ],
        },
        { action_type: 91, changes: [{ key: 'tags', old_value: 'a,b', new_value: 'c' }] },
      ]));
});
