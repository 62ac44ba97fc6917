// A guild's custom emojis and stickers (stream guild-expressions-{guildId}): one stream per guild beside the guild's
// own, so the per-guild limits are decided on one state while the guild aggregate, which every message and member
// command loads, stays as it is. Who may manage expressions is the guild's to say: the command layer reads it from
// the guild aggregate and hands the decider the actor's standing (ExpressionActor).
import type { Decider, DomainEvent } from './decider.js';
import { forbidden, missingPermissions, notFound } from './errors.js';
import { type Change, applyChanges, diff, withEntry, withoutEntry } from './guildState.js';
import { Permission, hasPermission } from './permissions.js';

/** The widely used API's limits without boosts for emojis (each kind counted apart); its largest for stickers. */
export const MAX_STATIC_EMOJIS = 50;
export const MAX_ANIMATED_EMOJIS = 50;
export const MAX_STICKERS = 60;

export interface EmojiData {
  id: string;
  name: string;
  /** Roles allowed to use it; empty: everyone. */
  roles: string[];
  /** The uploader. */
  user_id: string;
  animated: boolean;
  created_at: string;
}

export type StickerFormat = 'png' | 'webp';

export interface StickerData {
  id: string;
  name: string;
  description: string;
  tags: string[];
  /** The stored image: PNG or WebP, animated or not, and its content hash (it changes when the image is replaced). */
  format: StickerFormat;
  animated: boolean;
  image_hash: string;
  user_id: string;
  created_at: string;
  updated_at: string | null;
}

/** The actor as the guild sees them: whether they manage every expression, or may add and manage their own. */
export interface ExpressionActor {
  id: string;
  manageAll: boolean;
  create: boolean;
}

/** What an actor's guild permissions let them do with expressions: MANAGE_EMOJIS_AND_STICKERS, or CREATE_GUILD_EXPRESSIONS for their own. */
export function expressionActor(id: string, permissions: bigint): ExpressionActor {
  const manageAll = hasPermission(permissions, Permission.MANAGE_EMOJIS_AND_STICKERS);
  return { id, manageAll, create: manageAll || hasPermission(permissions, Permission.CREATE_GUILD_EXPRESSIONS) };
}

export type EmojiCreated = DomainEvent<'EmojiCreated', { guildId: string; emoji: EmojiData }>;
export type EmojiUpdated = DomainEvent<'EmojiUpdated', { guildId: string; emojiId: string; changes: Change[] }>;
/** `purged`: the stored image was deleted too, so its CDN address stops answering. */
export type EmojiDeleted = DomainEvent<'EmojiDeleted', { guildId: string; emoji: EmojiData; purged: boolean }>;
export type StickerCreated = DomainEvent<'StickerCreated', { guildId: string; sticker: StickerData }>;
export type StickerUpdated = DomainEvent<'StickerUpdated', { guildId: string; stickerId: string; changes: Change[] }>;
export type StickerDeleted = DomainEvent<'StickerDeleted', { guildId: string; sticker: StickerData; purged: boolean }>;
export type EmojiEvent = EmojiCreated | EmojiUpdated | EmojiDeleted;
export type StickerEvent = StickerCreated | StickerUpdated | StickerDeleted;
export type GuildExpressionEvent = EmojiEvent | StickerEvent;

export type StickerChanges = Partial<Pick<StickerData, 'name' | 'description' | 'tags' | 'format' | 'animated' | 'image_hash'>>;

export type GuildExpressionCommand =
  | { type: 'CreateEmoji'; guildId: string; actor: ExpressionActor; emoji: EmojiData }
  | { type: 'UpdateEmoji'; guildId: string; actor: ExpressionActor; emojiId: string; name?: string; roles?: string[] }
  | { type: 'DeleteEmoji'; guildId: string; actor: ExpressionActor; emojiId: string; purge: boolean }
  /** Creates those that fit under the limit, in order; the rest are left out (the caller reports them). */
  | { type: 'CreateStickers'; guildId: string; actor: ExpressionActor; stickers: StickerData[] }
  | { type: 'UpdateSticker'; guildId: string; actor: ExpressionActor; stickerId: string; changes: StickerChanges; updatedAt: string }
  | { type: 'DeleteSticker'; guildId: string; actor: ExpressionActor; stickerId: string; purge: boolean };

export interface GuildExpressionsState {
  emojis: ReadonlyMap<string, EmojiData>;
  stickers: ReadonlyMap<string, StickerData>;
}

export const unknownEmoji = () => notFound('UNKNOWN_EMOJI', 'Unknown Emoji');
export const unknownSticker = () => notFound('UNKNOWN_STICKER', 'Unknown Sticker');
export const maxStickersReached = () => forbidden('MAXIMUM_STICKERS_REACHED', `Maximum number of stickers reached (${MAX_STICKERS})`);

function requireCreator(actor: ExpressionActor): void {
  if (!actor.create) throw missingPermissions();
}

/** Managing an existing expression: every one with MANAGE_EMOJIS_AND_STICKERS, one's own with CREATE_GUILD_EXPRESSIONS. */
function requireManager(actor: ExpressionActor, uploaderId: string): void {
  if (!actor.manageAll && !(actor.create && uploaderId === actor.id)) throw missingPermissions();
}

function existing<T>(map: ReadonlyMap<string, T>, id: string, unknown: () => Error): T {
  const found = map.get(id);
  if (!found) throw unknown();
  return found;
}

const deciders = {
  CreateEmoji(command: Extract<GuildExpressionCommand, { type: 'CreateEmoji' }>, state: GuildExpressionsState): GuildExpressionEvent[] {
    requireCreator(command.actor);
    const { animated } = command.emoji;
    const limit = animated ? MAX_ANIMATED_EMOJIS : MAX_STATIC_EMOJIS;
    const count = [...state.emojis.values()].filter((e) => e.animated === animated).length;
    if (count >= limit) throw forbidden('MAXIMUM_EMOJIS_REACHED', `Maximum number of ${animated ? 'animated' : 'static'} emojis reached (${limit})`);
    return [{ type: 'EmojiCreated', data: { guildId: command.guildId, emoji: command.emoji } }];
  },

  UpdateEmoji(command: Extract<GuildExpressionCommand, { type: 'UpdateEmoji' }>, state: GuildExpressionsState): GuildExpressionEvent[] {
    const emoji = existing(state.emojis, command.emojiId, unknownEmoji);
    requireManager(command.actor, emoji.user_id);
    const roles = command.roles && [...new Set(command.roles)];
    const changes = diff(emoji, { name: command.name, roles });
    return changes.length ? [{ type: 'EmojiUpdated', data: { guildId: command.guildId, emojiId: emoji.id, changes } }] : [];
  },

  DeleteEmoji(command: Extract<GuildExpressionCommand, { type: 'DeleteEmoji' }>, state: GuildExpressionsState): GuildExpressionEvent[] {
    const emoji = existing(state.emojis, command.emojiId, unknownEmoji);
    requireManager(command.actor, emoji.user_id);
    return [{ type: 'EmojiDeleted', data: { guildId: command.guildId, emoji, purged: command.purge } }];
  },

  CreateStickers(command: Extract<GuildExpressionCommand, { type: 'CreateStickers' }>, state: GuildExpressionsState): GuildExpressionEvent[] {
    requireCreator(command.actor);
    const room = Math.max(0, MAX_STICKERS - state.stickers.size);
    if (room === 0 && command.stickers.length > 0) throw maxStickersReached();
    return command.stickers.slice(0, room).map((sticker) => ({ type: 'StickerCreated', data: { guildId: command.guildId, sticker } }));
  },

  UpdateSticker(command: Extract<GuildExpressionCommand, { type: 'UpdateSticker' }>, state: GuildExpressionsState): GuildExpressionEvent[] {
    const sticker = existing(state.stickers, command.stickerId, unknownSticker);
    requireManager(command.actor, sticker.user_id);
    const changes = diff(sticker, command.changes);
    if (!changes.length) return [];
    changes.push({ key: 'updated_at', old_value: sticker.updated_at, new_value: command.updatedAt });
    return [{ type: 'StickerUpdated', data: { guildId: command.guildId, stickerId: sticker.id, changes } }];
  },

  DeleteSticker(command: Extract<GuildExpressionCommand, { type: 'DeleteSticker' }>, state: GuildExpressionsState): GuildExpressionEvent[] {
    const sticker = existing(state.stickers, command.stickerId, unknownSticker);
    requireManager(command.actor, sticker.user_id);
    return [{ type: 'StickerDeleted', data: { guildId: command.guildId, sticker, purged: command.purge } }];
  },
};

const evolvers = {
  EmojiCreated: (state: GuildExpressionsState, { data }: EmojiCreated) => ({ ...state, emojis: withEntry(state.emojis, data.emoji.id, data.emoji) }),
  EmojiUpdated: (state: GuildExpressionsState, { data }: EmojiUpdated) => ({
    ...state,
    emojis: withEntry(state.emojis, data.emojiId, applyChanges(state.emojis.get(data.emojiId)!, data.changes)),
  }),
  EmojiDeleted: (state: GuildExpressionsState, { data }: EmojiDeleted) => ({ ...state, emojis: withoutEntry(state.emojis, data.emoji.id) }),
  StickerCreated: (state: GuildExpressionsState, { data }: StickerCreated) => ({
    ...state,
    stickers: withEntry(state.stickers, data.sticker.id, data.sticker),
  }),
  StickerUpdated: (state: GuildExpressionsState, { data }: StickerUpdated) => ({
    ...state,
    stickers: withEntry(state.stickers, data.stickerId, applyChanges(state.stickers.get(data.stickerId)!, data.changes)),
  }),
  StickerDeleted: (state: GuildExpressionsState, { data }: StickerDeleted) => ({ ...state, stickers: withoutEntry(state.stickers, data.sticker.id) }),
};

type Deciders = {
  [K in GuildExpressionCommand['type']]: (command: Extract<GuildExpressionCommand, { type: K }>, state: GuildExpressionsState) => GuildExpressionEvent[];
};
type Evolvers = {
  [K in GuildExpressionEvent['type']]: (state: GuildExpressionsState, event: Extract<GuildExpressionEvent, { type: K }>) => GuildExpressionsState;
};

const typedDeciders: Deciders = deciders;
const typedEvolvers: Evolvers = evolvers;

export const guildExpressionsDecider: Decider<GuildExpressionsState, GuildExpressionCommand, GuildExpressionEvent> = {
  initialState: () => ({ emojis: new Map(), stickers: new Map() }),
  decide: (command, state) => (typedDeciders[command.type] as (c: GuildExpressionCommand, s: GuildExpressionsState) => GuildExpressionEvent[])(command, state),
  evolve: (state, event) => (typedEvolvers[event.type] as (s: GuildExpressionsState, e: GuildExpressionEvent) => GuildExpressionsState)(state, event),
};
