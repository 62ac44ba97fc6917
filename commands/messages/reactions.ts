// Reactions: adding one needs READ_MESSAGE_HISTORY, and being first with an emoji also ADD_REACTIONS, as in the widely
// used API; removing someone else's, or clearing, needs MANAGE_MESSAGES.
import { messageDecider, requireMessage } from '../../domain/message.js';
import { Permission, requirePermission } from '../../domain/permissions.js';
import { type ReactionEmoji, emojiKey } from '../../domain/reaction.js';
import { messageChannelAccess, requireNotTimedOutIn } from '../access.js';
import { type ActorMeta, type Uses, metadata } from '../deps.js';
import { messageStream } from '../streams.js';
import { loadMessage, managesMessages } from './state.js';

type ReactionDeps = Uses<'commands' | 'readStore' | 'clock' | 'settle'>;

export async function addReaction(deps: ReactionDeps, meta: ActorMeta, channelId: string, messageId: string, emoji: ReactionEmoji) {
  const access = await messageChannelAccess(deps, channelId, meta.actorId);
  requireNotTimedOutIn(access, meta.actorId);
  requirePermission(access.permissions, Permission.READ_MESSAGE_HISTORY);
  const state = await loadMessage(deps, messageId);
  requireMessage(state, channelId);
  if (!state.reactions.has(emojiKey(emoji))) requirePermission(access.permissions, Permission.ADD_REACTIONS);
  const { position } = await deps.commands.handle(
    messageStream(messageId),
    messageDecider,
    { type: 'AddReaction', userId: meta.actorId, channelId, emoji },
    metadata(meta, deps.clock),
  );
  await deps.settle(position);
}

/** Removes `userId`'s reaction. */
export async function removeReaction(deps: ReactionDeps, meta: ActorMeta, channelId: string, messageId: string, emoji: ReactionEmoji, userId: string) {
  const access = await messageChannelAccess(deps, channelId, meta.actorId);
  const command = { type: 'RemoveReaction' as const, actorId: meta.actorId, userId, channelId, emoji, manageMessages: managesMessages(access) };
  const { position } = await deps.commands.handle(messageStream(messageId), messageDecider, command, metadata(meta, deps.clock));
  await deps.settle(position);
}

/** Removes every reaction, or every reaction with `emoji`. */
export async function clearReactions(deps: ReactionDeps, meta: ActorMeta, channelId: string, messageId: string, emoji: ReactionEmoji | null) {
  const access = await messageChannelAccess(deps, channelId, meta.actorId);
  const command = { type: 'ClearReactions' as const, actorId: meta.actorId, channelId, emoji, manageMessages: managesMessages(access) };
  const { position } = await deps.commands.handle(messageStream(messageId), messageDecider, command, metadata(meta, deps.clock));
  await deps.settle(position);
}
