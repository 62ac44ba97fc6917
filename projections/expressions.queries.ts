// Reads of the expressions projection: a guild's emojis and stickers.
import type { ReadStore } from '../ports/readStore.js';
import { EMOJIS, STICKERS } from './collections.js';
import type { EmojiDoc, StickerDoc } from './expressions.js';

/** A guild's emojis, oldest first. */
export const emojisOfGuild = (read: Pick<ReadStore, 'find'>, guildId: string) => read.find<EmojiDoc>(EMOJIS, { guild_id: guildId }, { sort: { _id: 1 } });

/** An emoji of this guild (null for one of another guild). */
export const emojiOfGuild = (read: Pick<ReadStore, 'findOne'>, guildId: string, emojiId: string) =>
  read.findOne<EmojiDoc>(EMOJIS, { _id: emojiId, guild_id: guildId });

/** A guild's stickers, oldest first. */
export const stickersOfGuild = (read: Pick<ReadStore, 'find'>, guildId: string) => read.find<StickerDoc>(STICKERS, { guild_id: guildId }, { sort: { _id: 1 } });

/** One page of a guild's stickers, oldest first, and how many it has in all. */
export async function stickersPage(read: Pick<ReadStore, 'find' | 'count'>, guildId: string, page: { limit: number; offset: number }) {
  const [stickers, total] = await Promise.all([
    read.find<StickerDoc>(STICKERS, { guild_id: guildId }, { sort: { _id: 1 }, limit: page.limit, skip: page.offset }),
    read.count(STICKERS, { guild_id: guildId }),
  ]);
  return { stickers, total };
}

/** A sticker of this guild (null for one of another guild). */
export const stickerOfGuild = (read: Pick<ReadStore, 'findOne'>, guildId: string, stickerId: string) =>
  read.findOne<StickerDoc>(STICKERS, { _id: stickerId, guild_id: guildId });
