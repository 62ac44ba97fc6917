// Read models of messages: one document per message (its API fields, pinned, and reaction counts by emoji) and one
// document per reaction (who reacted with what, for reactor lists and `me`). Channel documents of any kind get their
// last_message_id and last_pin_timestamp from here.
import { type EditableFields, MessageFlags, type MessageFields, ephemeralAudience } from '../domain/message.js';
import type { PinEvent } from '../domain/pins.js';
import { type ReactionEmoji, emojiKey } from '../domain/reaction.js';
import type { WriteOp } from '../ports/readStore.js';
import { CHANNELS, MESSAGES, REACTIONS } from './collections.js';
import { projection } from './projection.js';
import { deletedMessageUser } from './users.js';
import { endsDmChannel } from '../domain/groupDm.js';

export interface ReactionCount {
  emoji: ReactionEmoji;
  count: number;
}

export interface MessageDoc extends Omit<MessageFields, 'id'> {
  /** The message id; ids are 19-digit snowflakes, so sorting by _id is sorting by time. */
  _id: string;
  pinned: boolean;
  pinned_at: string | null;
  /** By reactionField(emoji), in the order each emoji was first added. */
  reactions: Record<string, ReactionCount>;
  /** Ephemeral messages only: marked (what history pages filter on, by index), with the users who see them (ephemeralAudience). */
  ephemeral?: true;
  visible_to?: string[];
  /** The thread started from this message (whose id is the message's), while it stands. */
  thread_id?: string;
  /** The ids of `mentions`: what a deleted account's mentions are found by, to show it as Deleted User there too. */
  mention_ids: string[];
  [key: string]: unknown;
}

export interface ReactionDoc {
  /** `${message_id}:${emoji field}:${user_id}` */
  _id: string;
  message_id: string;
  channel_id: string;
  emoji_field: string;
  user_id: string;
  [key: string]: unknown;
}

/** Emojis are not valid field names; their key in hex is. */
export const reactionField = (emoji: ReactionEmoji) => `r${Buffer.from(emojiKey(emoji)).toString('hex')}`;

const EDITABLE = [
  'content',
  'embeds',
  'attachments',
  'components',
  'flags',
  'mentions',
  'mention_roles',
  'mention_everyone',
  'mention_channels',
  'edited_timestamp',
] as const satisfies readonly (keyof EditableFields)[];

const editedFields = (message: MessageFields): Pick<MessageFields, (typeof EDITABLE)[number]> =>
  Object.fromEntries(EDITABLE.map((field) => [field, message[field]])) as Pick<MessageFields, (typeof EDITABLE)[number]>;

/** Who an ephemeral message is for; nothing for the others. */
const visibility = (message: MessageFields): Pick<MessageDoc, 'ephemeral' | 'visible_to'> =>
  message.flags & MessageFlags.EPHEMERAL ? { ephemeral: true, visible_to: ephemeralAudience(message) } : {};

/** The document a created message starts as; the gateway can build the same from the event. */
export function messageDoc(message: MessageFields): MessageDoc {
  const { id, ...fields } = message;
  return { _id: id, ...fields, pinned: false, pinned_at: null, reactions: {}, ...visibility(message), mention_ids: mentionIds(message) };
}

const mentionIds = (message: Pick<MessageFields, 'mentions'>) => message.mentions.map((user) => user.id);

/** Whether the user may read the message: everyone in the channel may, unless it is ephemeral and not for them. */
export const isVisibleTo = (doc: Pick<MessageDoc, 'visible_to'>, userId: string) => !doc.visible_to || doc.visible_to.includes(userId);

const updateMessage = (messageId: string, update: Extract<WriteOp, { updateOne: unknown }>['updateOne']['update']): WriteOp => ({
  updateOne: { collection: MESSAGES, filter: { _id: messageId }, update },
});

/** Sets the channel's last_message_id to `messageId` unless a later message already holds it (projection order is log order, not id order). */
const lastMessage = (channelId: string, messageId: string): WriteOp => ({
  updateOne: { collection: CHANNELS, filter: { _id: channelId }, update: { $max: { last_message_id: messageId } } },
});

function reactionCount(messageId: string, emoji: ReactionEmoji, count: number): WriteOp {
  const path = `reactions.${reactionField(emoji)}`;
  return updateMessage(messageId, count > 0 ? { $set: { [path]: { emoji, count } } } : { $unset: { [path]: '' } });
}

/** `pinnedAt` null unpins. */
function pinChange(pin: PinEvent['data'], pinnedAt: string | null): WriteOp[] {
  return [
    updateMessage(pin.messageId, { $set: { pinned: pinnedAt !== null, pinned_at: pinnedAt } }),
    { updateOne: { collection: CHANNELS, filter: { _id: pin.channelId }, update: { $set: { last_pin_timestamp: pin.lastPinTimestamp } } } },
  ];
}

export const messagesProjection = projection({
  name: 'messages',
  handles: [
    'MessageCreated',
    'MessageEdited',
    'MessageDeleted',
    'ReactionAdded',
    'ReactionRemoved',
    'ReactionsCleared',
    'UserErased',
    'ChannelDeleted',
    'ThreadCreated',
    'ThreadDeleted',
    'GuildDeleted',
    'RecipientRemoved',
    'DmRecipientLeft',
    'MessagePinned',
    'MessageUnpinned',
  ],
  collections: [MESSAGES, REACTIONS],
  // Pages (everyone's messages and a viewer's ephemeral ones) by the first, pins by the second, a channel's deletion by
  // either's prefix: an index of channel and id alone would only cost every send and rebuild its upkeep.
  indexes: [
    { collection: MESSAGES, keys: { channel_id: 1, ephemeral: 1, _id: -1 } },
    { collection: MESSAGES, keys: { channel_id: 1, pinned_at: -1 } },
    { collection: MESSAGES, keys: { 'author.id': 1 } },
    { collection: REACTIONS, keys: { message_id: 1, emoji_field: 1, user_id: 1 } },
    { collection: REACTIONS, keys: { user_id: 1, message_id: 1 } },
  ],
  project(e) {
    switch (e.type) {
      case 'MessageCreated': {
        const doc = messageDoc(e.data.message);
        return [
          { replaceOne: { collection: MESSAGES, filter: { _id: doc._id }, replacement: doc, upsert: true } },
          lastMessage(e.data.channelId, e.data.messageId),
        ];
      }
      // An edit may change whom an ephemeral message mentions, and so who sees it.
      // The fields from the message after the edit, not from `changes`: the version an edit replaced is erased (its key
      // destroyed), so a rebuild must not lean on it for a field the edit left alone.
      case 'MessageEdited':
        return [
          updateMessage(e.data.messageId, {
            $set: { ...editedFields(e.data.message), ...visibility(e.data.message), mention_ids: mentionIds(e.data.message) },
          }),
        ];
      case 'MessageDeleted':
        return [
          { deleteOne: { collection: MESSAGES, filter: { _id: e.data.messageId } } },
          { deleteMany: { collection: REACTIONS, filter: { message_id: e.data.messageId } } },
        ];
      case 'ReactionAdded': {
        const { messageId, channelId, emoji, userId, count } = e.data;
        const reaction: ReactionDoc = {
          _id: `${messageId}:${reactionField(emoji)}:${userId}`,
          message_id: messageId,
          channel_id: channelId,
          emoji_field: reactionField(emoji),
          user_id: userId,
        };
        return [
          reactionCount(messageId, emoji, count),
          { replaceOne: { collection: REACTIONS, filter: { _id: reaction._id }, replacement: reaction, upsert: true } },
        ];
      }
      case 'ReactionRemoved': {
        const { messageId, emoji, userId, count } = e.data;
        return [
          reactionCount(messageId, emoji, count),
          { deleteOne: { collection: REACTIONS, filter: { _id: `${messageId}:${reactionField(emoji)}:${userId}` } } },
        ];
      }
      case 'ReactionsCleared': {
        const { messageId, emoji } = e.data;
        if (!emoji)
          return [updateMessage(messageId, { $set: { reactions: {} } }), { deleteMany: { collection: REACTIONS, filter: { message_id: messageId } } }];
        return [
          reactionCount(messageId, emoji, 0),
          { deleteMany: { collection: REACTIONS, filter: { message_id: messageId, emoji_field: reactionField(emoji) } } },
        ];
      }
      // A deleted account's messages stay, authored by Deleted User with the same id, as on the widely used API.
      // Where its messages mention it or answer its interactions, too (those snapshots were sealed with its key).
      case 'UserErased': {
        const { userId } = e.data;
        const deleted = deletedMessageUser(userId);
        const mentioning = { mention_ids: { $all: [userId] } };
        const set = (path: string): WriteOp => ({
          updateMany: { collection: MESSAGES, filter: { [`${path}.id`]: userId }, update: { $set: { [path]: deleted } } },
        });
        return [
          set('author'),
          { updateMany: { collection: MESSAGES, filter: mentioning, update: { $pull: { mentions: { id: userId } } } } },
          { updateMany: { collection: MESSAGES, filter: mentioning, update: { $push: { mentions: deleted } } } },
          set('interaction_metadata.user'),
          set('interaction.user'),
        ];
      }
      // A deleted channel's or guild's messages go with it, and an ended DM's or group DM's (its last participant gone):
      // their keys are destroyed, and a rebuild would not see their text.
      case 'RecipientRemoved':
      case 'DmRecipientLeft':
        if (!endsDmChannel(e)) return [];
        return [
          { deleteMany: { collection: MESSAGES, filter: { channel_id: e.data.channelId } } },
          { deleteMany: { collection: REACTIONS, filter: { channel_id: e.data.channelId } } },
        ];
      case 'ChannelDeleted':
      case 'ThreadDeleted': {
        const channelId = e.type === 'ChannelDeleted' ? e.data.channel.id : e.data.thread.id;
        return [
          { deleteMany: { collection: MESSAGES, filter: { channel_id: channelId } } },
          { deleteMany: { collection: REACTIONS, filter: { channel_id: channelId } } },
          // The message a deleted thread was started from (its id is the thread's) no longer has one.
          ...(e.type === 'ThreadDeleted' ? [updateMessage(channelId, { $unset: { thread_id: '' } })] : []),
        ];
      }
      case 'ThreadCreated':
        return e.data.fromMessage ? [updateMessage(e.data.thread.id, { $set: { thread_id: e.data.thread.id } })] : [];
      case 'GuildDeleted':
        return [{ deleteMany: { collection: MESSAGES, filter: { guild_id: e.data.guildId } } }];
      case 'MessagePinned':
        return pinChange(e.data, e.data.pinnedAt);
      case 'MessageUnpinned':
        return pinChange(e.data, null);
    }
  },
});
