// Given/when/then on a guild's expressions stream: emojis and stickers created, changed and deleted; the per-guild
// limits (50 static and 50 animated emojis, 60 stickers); who may manage whose expressions.
import { describe, expect, it } from 'vitest';
import {
  type EmojiData,
  type ExpressionActor,
  type GuildExpressionEvent,
  type StickerData,
  expressionActor,
  guildExpressionsDecider,
} from '../../domain/guildExpressions.js';
import { Permission } from '../../domain/permissions.js';
import { given } from '../support/given.js';

const G = '500';
const T0 = '2025-01-01T00:00:00.000Z';
const T1 = '2025-02-01T00:00:00.000Z';
/** MANAGE_EMOJIS_AND_STICKERS. */
const manager: ExpressionActor = { id: '1', manageAll: true, create: true };
/** CREATE_GUILD_EXPRESSIONS only. */
const creator: ExpressionActor = { id: '2', manageAll: false, create: true };
/** Neither. */
const member: ExpressionActor = { id: '3', manageAll: false, create: false };

const emoji = (id: string, over: Partial<EmojiData> = {}): EmojiData => ({
  id,
  name: `e${id}`,
  roles: [],
  user_id: manager.id,
  animated: false,
  created_at: T0,
  ...over,
});
const sticker = (id: string, over: Partial<StickerData> = {}): StickerData => ({
  id,
  name: `s${id}`,
  description: '',
  tags: ['tag'],
  format: 'png',
  animated: false,
  image_hash: 'a'.repeat(32),
  user_id: manager.id,
  created_at: T0,
  updated_at: null,
  ...over,
});
const emojiCreated = (data: EmojiData): GuildExpressionEvent => ({ type: 'EmojiCreated', data: { guildId: G, emoji: data } });
const stickerCreated = (data: StickerData): GuildExpressionEvent => ({ type: 'StickerCreated', data: { guildId: G, sticker: data } });
const emojiDeleted = (data: EmojiData, purged: boolean): GuildExpressionEvent => ({ type: 'EmojiDeleted', data: { guildId: G, emoji: data, purged } });
const emojis = (count: number, animated: boolean) => Array.from({ length: count }, (_, i) => emojiCreated(emoji(String(1000 + i), { animated })));

describe('expressionActor', () => {
  it('reads MANAGE_EMOJIS_AND_STICKERS as managing all, CREATE_GUILD_EXPRESSIONS as creating', () => {
    expect(expressionActor('1', Permission.MANAGE_EMOJIS_AND_STICKERS)).toEqual({ id: '1', manageAll: true, create: true });
    expect(expressionActor('1', Permission.CREATE_GUILD_EXPRESSIONS)).toEqual({ id: '1', manageAll: false, create: true });
    expect(expressionActor('1', Permission.MANAGE_GUILD)).toEqual({ id: '1', manageAll: false, create: false });
  });
});

describe('emojis', () => {
  it('creates an emoji', () =>
    given(guildExpressionsDecider, [])
      .when({ type: 'CreateEmoji', guildId: G, actor: creator, emoji: emoji('10', { user_id: creator.id }) })
      .then([emojiCreated(emoji('10', { user_id: creator.id }))]));

  it('refuses a member who may not create', () =>
    given(guildExpressionsDecider, [])
      .when({ type: 'CreateEmoji', guildId: G, actor: member, emoji: emoji('10') })
      .thenRefuses('MISSING_PERMISSIONS'));

  it('refuses a 51st static emoji but takes an animated one beside 50 static ones, and the other way round', () => {
    given(guildExpressionsDecider, emojis(50, false))
      .when({ type: 'CreateEmoji', guildId: G, actor: manager, emoji: emoji('10') })
      .thenRefuses('MAXIMUM_EMOJIS_REACHED');
    given(guildExpressionsDecider, emojis(50, false))
      .when({ type: 'CreateEmoji', guildId: G, actor: manager, emoji: emoji('10', { animated: true }) })
      .then([emojiCreated(emoji('10', { animated: true }))]);
    given(guildExpressionsDecider, emojis(50, true))
      .when({ type: 'CreateEmoji', guildId: G, actor: manager, emoji: emoji('10', { animated: true }) })
      .thenRefuses('MAXIMUM_EMOJIS_REACHED');
  });

  it('counts deleted emojis out of the limit', () =>
    given(guildExpressionsDecider, [...emojis(50, false), emojiDeleted(emoji('1000'), false)])
      .when({ type: 'CreateEmoji', guildId: G, actor: manager, emoji: emoji('10') })
      .then([emojiCreated(emoji('10'))]));

  it('records only what changes, roles without repeats', () =>
    given(guildExpressionsDecider, [emojiCreated(emoji('10'))])
      .when({ type: 'UpdateEmoji', guildId: G, actor: manager, emojiId: '10', name: 'e10', roles: ['7', '7'] })
      .then([{ type: 'EmojiUpdated', data: { guildId: G, emojiId: '10', changes: [{ key: 'roles', old_value: [], new_value: ['7'] }] } }]));

  it('records nothing for a change to the same values', () =>
    given(guildExpressionsDecider, [emojiCreated(emoji('10'))])
      .when({ type: 'UpdateEmoji', guildId: G, actor: manager, emojiId: '10', name: 'e10' })
      .then([]));

  it('answers UNKNOWN_EMOJI for an emoji that is not (or no longer) there', () => {
    given(guildExpressionsDecider, []).when({ type: 'UpdateEmoji', guildId: G, actor: manager, emojiId: '10', name: 'x' }).thenRefuses('UNKNOWN_EMOJI');
    given(guildExpressionsDecider, [emojiCreated(emoji('10')), emojiDeleted(emoji('10'), true)])
      .when({ type: 'DeleteEmoji', guildId: G, actor: manager, emojiId: '10', purge: false })
      .thenRefuses('UNKNOWN_EMOJI');
  });

  it('lets a creator manage their own emoji only', () => {
    const own = emoji('10', { user_id: creator.id });
    given(guildExpressionsDecider, [emojiCreated(own)])
      .when({ type: 'DeleteEmoji', guildId: G, actor: creator, emojiId: '10', purge: true })
      .then([emojiDeleted(own, true)]);
    given(guildExpressionsDecider, [emojiCreated(emoji('11'))])
      .when({ type: 'UpdateEmoji', guildId: G, actor: creator, emojiId: '11', name: 'mine' })
      .thenRefuses('MISSING_PERMISSIONS');
    given(guildExpressionsDecider, [emojiCreated(own)])
      .when({ type: 'UpdateEmoji', guildId: G, actor: member, emojiId: '10', name: 'x' })
      .thenRefuses('MISSING_PERMISSIONS');
  });
});

describe('stickers', () => {
  it('creates stickers in order', () =>
    given(guildExpressionsDecider, [])
      .when({ type: 'CreateStickers', guildId: G, actor: manager, stickers: [sticker('20'), sticker('21')] })
      .then([stickerCreated(sticker('20')), stickerCreated(sticker('21'))]));

  it('creates only as many as fit under 60, and refuses when none does', () => {
    const full = Array.from({ length: 59 }, (_, i) => stickerCreated(sticker(String(2000 + i))));
    given(guildExpressionsDecider, full)
      .when({ type: 'CreateStickers', guildId: G, actor: manager, stickers: [sticker('20'), sticker('21')] })
      .then([stickerCreated(sticker('20'))]);
    given(guildExpressionsDecider, [...full, stickerCreated(sticker('20'))])
      .when({ type: 'CreateStickers', guildId: G, actor: manager, stickers: [sticker('21')] })
      .thenRefuses('MAXIMUM_STICKERS_REACHED');
  });

  it('records the changes with the time of the update', () =>
    given(guildExpressionsDecider, [stickerCreated(sticker('20'))])
      .when({
        type: 'UpdateSticker',
        guildId: G,
        actor: manager,
        stickerId: '20',
        changes: { name: 's20', tags: ['new'], description: undefined },
        updatedAt: T1,
      })
      .then([
        {
          type: 'StickerUpdated',
          data: {
            guildId: G,
            stickerId: '20',
            changes: [
              { key: 'tags', old_value: ['tag'], new_value: ['new'] },
              { key: 'updated_at', old_value: null, new_value: T1 },
            ],
          },
        },
      ]));

  it('records nothing, not even the time, when nothing changes', () =>
    given(guildExpressionsDecider, [stickerCreated(sticker('20'))])
      .when({ type: 'UpdateSticker', guildId: G, actor: manager, stickerId: '20', changes: { name: 's20' }, updatedAt: T1 })
      .then([]));

  it('refuses to delete another’s sticker without MANAGE_EMOJIS_AND_STICKERS, and an unknown one', () => {
    given(guildExpressionsDecider, [stickerCreated(sticker('20'))])
      .when({ type: 'DeleteSticker', guildId: G, actor: creator, stickerId: '20', purge: false })
      .thenRefuses('MISSING_PERMISSIONS');
    given(guildExpressionsDecider, [])
      .when({ type: 'DeleteSticker', guildId: G, actor: manager, stickerId: '20', purge: false })
      .thenRefuses('UNKNOWN_STICKER');
  });
});
