// Read models of a guild's custom emojis and stickers (its sticker pack): one document per live emoji or sticker, in
// collections of their own; they leave with their guild.
import type { Change } from '../domain/guildState.js';
import type { EmojiData, StickerData } from '../domain/guildExpressions.js';
import type { WriteOp } from '../ports/readStore.js';
import { changeSet } from './changes.js';
import { EMOJIS, STICKERS } from './collections.js';
import { projection } from './projection.js';

export interface EmojiDoc extends Omit<EmojiData, 'id'> {
  _id: string;
  guild_id: string;
  [key: string]: unknown;
}

export interface StickerDoc extends Omit<StickerData, 'id'> {
  _id: string;
  guild_id: string;
  [key: string]: unknown;
}

const created = (collection: string, guildId: string, { id, ...fields }: EmojiData | StickerData): WriteOp => ({
  replaceOne: { collection, filter: { _id: id }, replacement: { _id: id, guild_id: guildId, ...fields }, upsert: true },
});
const updated = (collection: string, id: string, changes: Change[]): WriteOp => ({
  updateOne: { collection, filter: { _id: id }, update: { $set: changeSet(changes) } },
});
const deleted = (collection: string, id: string): WriteOp => ({ deleteOne: { collection, filter: { _id: id } } });

export const expressionsProjection = projection({
  name: 'expressions',
  handles: ['EmojiCreated', 'EmojiUpdated', 'EmojiDeleted', 'StickerCreated', 'StickerUpdated', 'StickerDeleted', 'GuildDeleted'],
  collections: [EMOJIS, STICKERS],
  indexes: [
    { collection: EMOJIS, keys: { guild_id: 1 } },
    { collection: STICKERS, keys: { guild_id: 1 } },
  ],
  project(event) {
    switch (event.type) {
      case 'EmojiCreated':
        return [created(EMOJIS, event.data.guildId, event.data.emoji)];
      case 'EmojiUpdated':
        return [updated(EMOJIS, event.data.emojiId, event.data.changes)];
      case 'EmojiDeleted':
        return [deleted(EMOJIS, event.data.emoji.id)];
      case 'StickerCreated':
        return [created(STICKERS, event.data.guildId, event.data.sticker)];
      case 'StickerUpdated':
        return [updated(STICKERS, event.data.stickerId, event.data.changes)];
      case 'StickerDeleted':
        return [deleted(STICKERS, event.data.sticker.id)];
      case 'GuildDeleted':
        return [EMOJIS, STICKERS].map((collection) => ({ deleteMany: { collection, filter: { guild_id: event.data.guildId } } }));
    }
  },
});
