// Dispatches of a guild's emojis and stickers: the whole current list on every change, as the widely used API sends
// GUILD_EMOJIS_UPDATE and GUILD_STICKERS_UPDATE, to the guild's sessions with the GUILD_EXPRESSIONS intent.
import { emojiObject } from '../../presenters/emojis.js';
import { stickerObject } from '../../presenters/stickers.js';
import { emojisOfGuild, stickersOfGuild } from '../../projections/expressions.queries.js';
import type { Dispatch } from '../dispatch.js';
import { deriver } from './deriver.js';
import { Intent } from '../protocol.js';

export const expressionDispatches = deriver({
  handles: ['EmojiCreated', 'EmojiUpdated', 'EmojiDeleted', 'StickerCreated', 'StickerUpdated', 'StickerDeleted'],
  async derive(event, runtime) {
    const origin = runtime.config.publicBaseUrl;
    const guildId = event.data.guildId;
    const toGuild = (t: string, d: object): Dispatch[] => [{ t, d: { guild_id: guildId, ...d }, intent: Intent.GUILD_EXPRESSIONS, audience: { guildId } }];
    switch (event.type) {
      case 'EmojiCreated':
      case 'EmojiUpdated':
      case 'EmojiDeleted':
        return toGuild('GUILD_EMOJIS_UPDATE', { emojis: (await emojisOfGuild(runtime.readStore, guildId)).map((doc) => emojiObject(doc, origin)) });
      case 'StickerCreated':
      case 'StickerUpdated':
      case 'StickerDeleted':
        return toGuild('GUILD_STICKERS_UPDATE', { stickers: (await stickersOfGuild(runtime.readStore, guildId)).map((doc) => stickerObject(doc, origin)) });
    }
  },
});
