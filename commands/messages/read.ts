// Reading a channel's messages: a page of them, one message, the pins and the users who reacted with an emoji, each as
// far as the reader's permissions in the channel let them see. Without READ_MESSAGE_HISTORY a page and the pins are
// empty (as in the widely used API) and one message, or its reactions, is refused.
import { unknownMessage } from '../../domain/message.js';
import { Permission, hasPermission, requirePermission } from '../../domain/permissions.js';
import type { ReactionEmoji } from '../../domain/reaction.js';
import { type MessageDoc, isVisibleTo } from '../../projections/messages.js';
import { messageInChannel, messagePage, pinnedMessages as pinnedMessageDocs, reactorsOf } from '../../projections/messages.queries.js';
import type { UserDoc } from '../../projections/users.js';
import { usersByIds } from '../../projections/users.queries.js';
import { messageChannelAccess } from '../access.js';
import type { Uses } from '../deps.js';

type ReadDeps = Uses<'commands' | 'readStore' | 'clock'>;

/** A page of the channel's messages, newest first, as the reader sees them (their own ephemeral ones among them). */
export async function readMessages(
  deps: ReadDeps,
  channelId: string,
  userId: string,
  query: { limit: number; before?: string; after?: string; around?: string },
): Promise<MessageDoc[]> {
  const access = await messageChannelAccess(deps, channelId, userId);
  return hasPermission(access.permissions, Permission.READ_MESSAGE_HISTORY) ? messagePage(deps.readStore, channelId, userId, query) : [];
}

/** One message of the channel; READ_MESSAGE_HISTORY is needed, and a message of another channel is unknown. */
export async function readMessage(deps: ReadDeps, channelId: string, messageId: string, userId: string): Promise<MessageDoc> {
  const access = await messageChannelAccess(deps, channelId, userId);
  requirePermission(access.permissions, Permission.READ_MESSAGE_HISTORY);
  const doc = await messageInChannel(deps.readStore, channelId, messageId);
  if (!doc || !isVisibleTo(doc, userId)) throw unknownMessage();
  return doc;
}

/** Pinned messages, most recently pinned first, pinned before `before` if given. */
export async function readPins(deps: ReadDeps, channelId: string, userId: string, query: { limit: number; before?: string }): Promise<MessageDoc[]> {
  const access = await messageChannelAccess(deps, channelId, userId);
  if (!hasPermission(access.permissions, Permission.READ_MESSAGE_HISTORY)) return [];
  const before = query.before ? new Date(query.before).toISOString() : undefined;
  return pinnedMessageDocs(deps.readStore, channelId, before, query.limit);
}

/**
 * The users who reacted to a message the reader can read with the emoji, by user id after `after`. Every reaction here
 * is a normal one (type 0): super (burst) reactions do not exist in this service, so their list is empty.
 */
export async function readReactors(
  deps: ReadDeps,
  channelId: string,
  messageId: string,
  userId: string,
  emoji: ReactionEmoji,
  query: { type: number; after?: string; limit: number },
): Promise<UserDoc[]> {
  await readMessage(deps, channelId, messageId, userId);
  if (query.type === 1) return [];
  const reactors = await reactorsOf(deps.readStore, messageId, emoji, query.after, query.limit);
  if (!reactors.length) return [];
  const users = new Map((await usersByIds(deps.readStore, [...new Set(reactors.map((r) => r.user_id))])).map((u) => [u._id, u]));
  return reactors.flatMap((r) => users.get(r.user_id) ?? []);
}
