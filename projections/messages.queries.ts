// Reads of the messages projection's collections: messages and reactions.
import { snowflakeSortKey } from '../domain/snowflake.js';
import type { ReactionEmoji } from '../domain/reaction.js';
import type { Filter, ReadStore } from '../ports/readStore.js';
import { MESSAGES, REACTIONS } from './collections.js';
import { type MessageDoc, type ReactionDoc, reactionField } from './messages.js';

export const messageById = (read: Pick<ReadStore, 'findOne'>, messageId: string) => read.findOne<MessageDoc>(MESSAGES, { _id: messageId });

/** The message if it is in this channel (null for a message of another channel). */
export const messageInChannel = (read: Pick<ReadStore, 'findOne'>, channelId: string, messageId: string) =>
  read.findOne<MessageDoc>(MESSAGES, { _id: messageId, channel_id: channelId });

export const messagesByIds = (read: Pick<ReadStore, 'find'>, messageIds: string[]) => read.find<MessageDoc>(MESSAGES, { _id: { $in: messageIds } });

/**
 * The first `limit` messages in `range` the viewer sees, in `direction` of id: those everyone sees and the viewer's
 * ephemeral ones, each the first `limit` of its kind, merged. A function of the module rather than a closure of each
 * page read: a page is read on nearly every request of a busy client.
 */
async function visibleInRange(
  read: Pick<ReadStore, 'find'>,
  channelId: string,
  viewerId: string,
  range: Filter[string],
  direction: 1 | -1,
  limit: number,
): Promise<MessageDoc[]> {
  if (limit <= 0) return [];
  const options = { sort: { _id: direction }, limit };
  const [shared, own] = await Promise.all([
    read.find<MessageDoc>(MESSAGES, { channel_id: channelId, ephemeral: { $exists: false }, _id: range }, options),
    read.find<MessageDoc>(MESSAGES, { channel_id: channelId, ephemeral: true, visible_to: { $all: [viewerId] }, _id: range }, options),
  ]);
  // Each query comes sorted; with no ephemeral message for the viewer (the usual case) there is nothing to merge.
  if (own.length === 0) return shared;
  return [...shared, ...own].sort((a, b) => (snowflakeSortKey(a._id) < snowflakeSortKey(b._id) ? -direction : direction)).slice(0, limit);
}

/**
 * One page of a channel's messages as `viewerId` sees them (ephemeral messages only if they are for the viewer), newest
 * first, as the widely used API answers every page; `around` takes half the page from each side.
 */
export async function messagePage(
  read: Pick<ReadStore, 'find'>,
  channelId: string,
  viewerId: string,
  query: { limit: number; before?: string; after?: string; around?: string },
): Promise<MessageDoc[]> {
  if (query.after) return (await visibleInRange(read, channelId, viewerId, { $gt: snowflakeSortKey(query.after) }, 1, query.limit)).reverse();
  if (query.around) {
    const key = snowflakeSortKey(query.around);
    const older = await visibleInRange(read, channelId, viewerId, { $lt: key }, -1, Math.floor(query.limit / 2));
    const newer = await visibleInRange(read, channelId, viewerId, { $gte: key }, 1, query.limit - older.length);
    return [...newer.reverse(), ...older];
  }
  return visibleInRange(read, channelId, viewerId, query.before ? { $lt: snowflakeSortKey(query.before) } : { $exists: true }, -1, query.limit);
}

/** A channel's pinned messages, most recently pinned first, pinned before `before` (an ISO time) if given. */
export function pinnedMessages(read: Pick<ReadStore, 'find'>, channelId: string, before: string | undefined, limit: number) {
  const filter: Filter = { channel_id: channelId, pinned: true, ...(before ? { pinned_at: { $lt: before } } : {}) };
  return read.find<MessageDoc>(MESSAGES, filter, { sort: { pinned_at: -1 }, limit });
}

/** A member's messages in a guild since an ISO time (what a ban's delete_message_seconds removes). */
export const messagesByAuthorSince = (read: Pick<ReadStore, 'find'>, guildId: string, authorId: string, since: string) =>
  read.find<MessageDoc>(MESSAGES, { guild_id: guildId, 'author.id': authorId, timestamp: { $gte: since } });

/** The user's own reactions on these messages (for `me`). */
export const reactionsByUserOn = (read: Pick<ReadStore, 'find'>, messageIds: string[], userId: string) =>
  read.find<ReactionDoc>(REACTIONS, { message_id: { $in: messageIds }, user_id: userId });

/** Who reacted to a message with an emoji, in user id order, after a user id if given. */
export function reactorsOf(read: Pick<ReadStore, 'find'>, messageId: string, emoji: ReactionEmoji, after: string | undefined, limit: number) {
  const filter: Filter = { message_id: messageId, emoji_field: reactionField(emoji), ...(after ? { user_id: { $gt: snowflakeSortKey(after) } } : {}) };
  return read.find<ReactionDoc>(REACTIONS, filter, { sort: { user_id: 1 }, limit });
}
