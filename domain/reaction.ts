// Reactions of a message (in the message stream, see message.ts). The route's :emoji is a URL-encoded unicode emoji
// or name:id (a:name:id when animated) for a custom one. Each event carries the emoji's count after it, so the read
// model sets counts instead of incrementing them, and the gateway has every field of the MESSAGE_REACTION_* payloads.
import type { DomainEvent } from './decider.js';
import { badRequest, forbidden, notFound } from './errors.js';

/** The widely used API's limit on distinct emojis per message. */
export const MAX_REACTION_EMOJIS = 20;

export interface ReactionEmoji {
  id: string | null;
  name: string;
  animated: boolean;
}

export interface ReactionEntry {
  emoji: ReactionEmoji;
  users: ReadonlySet<string>;
}

/** What deciding on reactions needs of the message they are on (message.ts's MessageFields has these). */
export interface ReactedMessage {
  id: string;
  channel_id: string;
  guild_id: string | null;
  author: { id: string };
}

/** The reactions part of a message's state (message.ts's MessageState). */
export interface ReactionsState {
  /** By emoji key, in the order each emoji was first added. */
  reactions: ReadonlyMap<string, ReactionEntry>;
}

/** A custom emoji is known by its id, a unicode one by itself. */
export const emojiKey = (emoji: ReactionEmoji) => emoji.id ?? emoji.name;

const unknownEmoji = () => notFound('UNKNOWN_EMOJI', 'Unknown Emoji');
const CUSTOM = /^(a:)?([\w~-]{1,32}):(\d{1,20})$/;
/** One emoji: pictographs with their modifiers and joiners, flags (regional indicator pairs) or keycaps. */
const UNICODE =
  /^(?:\p{Regional_Indicator}{2}|[#*0-9]\uFE0F?\u20E3|\p{Extended_Pictographic}(?:\p{Emoji_Modifier}|\uFE0F|\u200D\p{Extended_Pictographic}|\uFE0F?\u200D\p{Extended_Pictographic})*\uFE0F?)$/u;

/** Reads the route's :emoji (already URL-decoded); anything that is not an emoji answers 404 UNKNOWN_EMOJI. */
export function parseEmoji(text: string): ReactionEmoji {
  const custom = CUSTOM.exec(text);
  if (custom) return { id: custom[3], name: custom[2], animated: Boolean(custom[1]) };
  if (UNICODE.test(text)) return { id: null, name: text, animated: false };
  throw unknownEmoji();
}

type ReactionIds = {
  messageId: string;
  channelId: string;
  guildId: string | null;
  messageAuthorId: string;
  emoji: ReactionEmoji;
};

export type ReactionAdded = DomainEvent<'ReactionAdded', ReactionIds & { userId: string; count: number }>;
export type ReactionRemoved = DomainEvent<'ReactionRemoved', ReactionIds & { userId: string; removedBy: string; count: number }>;
/** `emoji` null clears every reaction (MESSAGE_REACTION_REMOVE_ALL); otherwise one emoji's (REMOVE_EMOJI). */
export type ReactionsCleared = DomainEvent<'ReactionsCleared', Omit<ReactionIds, 'emoji'> & { emoji: ReactionEmoji | null; clearedBy: string }>;
export type ReactionEvent = ReactionAdded | ReactionRemoved | ReactionsCleared;

export type ReactionCommand =
  | { type: 'AddReaction'; userId: string; channelId: string; emoji: ReactionEmoji }
  /** `userId` is whose reaction goes; removing someone else's needs MANAGE_MESSAGES. */
  | { type: 'RemoveReaction'; actorId: string; userId: string; channelId: string; emoji: ReactionEmoji; manageMessages: boolean }
  | { type: 'ClearReactions'; actorId: string; channelId: string; emoji: ReactionEmoji | null; manageMessages: boolean };

const REACTION_COMMANDS: readonly string[] = ['AddReaction', 'RemoveReaction', 'ClearReactions'];
const REACTION_EVENTS: readonly string[] = ['ReactionAdded', 'ReactionRemoved', 'ReactionsCleared'];
export const isReactionCommand = (command: { type: string }): command is ReactionCommand => REACTION_COMMANDS.includes(command.type);
export const isReactionEvent = (event: { type: string }): event is ReactionEvent => REACTION_EVENTS.includes(event.type);

const missingPermissions = () => forbidden('MISSING_PERMISSIONS', 'Missing Permissions');

/** Decides on the reactions of `message`, which the caller has found in the command's channel. */
export function decideReaction(command: ReactionCommand, message: ReactedMessage, state: ReactionsState): ReactionEvent[] {
  const ids = { messageId: message.id, channelId: message.channel_id, guildId: message.guild_id, messageAuthorId: message.author.id };
  switch (command.type) {
    case 'AddReaction': {
      const entry = state.reactions.get(emojiKey(command.emoji));
      if (entry?.users.has(command.userId)) return [];
      if (!entry && state.reactions.size >= MAX_REACTION_EMOJIS)
        throw badRequest('MAX_REACTIONS', `Maximum number of reactions reached (${MAX_REACTION_EMOJIS})`);
      // A custom emoji keeps the name and animation it was first reacted with.
      const emoji = entry?.emoji ?? command.emoji;
      return [{ type: 'ReactionAdded', data: { ...ids, emoji, userId: command.userId, count: (entry?.users.size ?? 0) + 1 } }];
    }
    case 'RemoveReaction': {
      if (command.userId !== command.actorId && !command.manageMessages) throw missingPermissions();
      const entry = state.reactions.get(emojiKey(command.emoji));
      if (!entry?.users.has(command.userId)) return [];
      return [
        { type: 'ReactionRemoved', data: { ...ids, emoji: entry.emoji, userId: command.userId, removedBy: command.actorId, count: entry.users.size - 1 } },
      ];
    }
    case 'ClearReactions': {
      if (!command.manageMessages) throw missingPermissions();
      const entry = command.emoji ? state.reactions.get(emojiKey(command.emoji)) : undefined;
      if (command.emoji ? !entry : state.reactions.size === 0) return [];
      return [{ type: 'ReactionsCleared', data: { ...ids, emoji: entry?.emoji ?? null, clearedBy: command.actorId } }];
    }
  }
}

export function evolveReaction<State extends ReactionsState>(state: State, event: ReactionEvent): State {
  const reactions = new Map(state.reactions);
  if (event.type === 'ReactionsCleared') {
    if (event.data.emoji) reactions.delete(emojiKey(event.data.emoji));
    else reactions.clear();
    return { ...state, reactions };
  }
  const key = emojiKey(event.data.emoji);
  const users = new Set(reactions.get(key)?.users);
  if (event.type === 'ReactionAdded') users.add(event.data.userId);
  else users.delete(event.data.userId);
  if (users.size) reactions.set(key, { emoji: event.data.emoji, users });
  else reactions.delete(key);
  return { ...state, reactions };
}
