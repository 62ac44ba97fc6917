// Dispatches of a guild's emojis and stickers: the whole current list on every change, as the widely used API sends
// GUILD_EMOJIS_UPDATE and GUILD_STICKERS_UPDATE, to the guild's sessions with the GUILD_EXPRESSIONS intent.
import { emojiObject } from '../../presenters/emojis.js';
import { stickerObject } from '../../presenters/stickers.js';
import { emojisOfGuild, stickersOfGuild } from '../../projections/expressions.queries.js';
import { deriver, dispatch } from './deriver.js';
import { Intent } from '../protocol.js';

export const expressionDispatches = deriver({
  handles: ['EmojiCreated', 'EmojiUpdated', 'EmojiDeleted', 'StickerCreated', 'StickerUpdated', 'StickerDeleted'],
  async derive(event, runtime) {
    const origin = runtime.config.publicBaseUrl;
    const guildId = event.data.guildId;
    const routing = { intent: Intent.GUILD_EXPRESSIONS, audience: { guildId } };
    switch (event.type) {
      case 'EmojiCreated':
      case 'EmojiUpdated':
      case 'EmojiDeleted':
        return [
          dispatch(
            'GUILD_EMOJIS_UPDATE',
            { guild_id: guildId, emojis: (await emojisOfGuild(runtime.readStore, guildId)).map((doc) => emojiObject(doc, origin)) },
            routing,
          ),
        ];
      case 'StickerCreated':
      case 'StickerUpdated':
      case 'StickerDeleted':
        return [
          dispatch(
            'GUILD_STICKERS_UPDATE',
            { guild_id: guildId, stickers: (await stickersOfGuild(runtime.readStore, guildId)).map((doc) => stickerObject(doc, origin)) },
            routing,
          ),
        ];
    }
  },
});
