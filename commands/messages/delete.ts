// Deleting messages: one, a bulk delete of 2-100, and a ban's purge. A deleted message's files leave the blob store
// (the attachment remover follows MessageDeleted; the answer waits for it) and its pin is dropped, so it no longer
// counts toward the channel's 50 pins.
import { DomainError, badRequest } from '../../domain/errors.js';
import type { GuildState } from '../../domain/guildState.js';
import { type MessageCommand, messageDecider } from '../../domain/message.js';
import { assertBulkDeletable, bulkDeleteDecider } from '../../domain/messageBulkDelete.js';
import { Permission, requirePermission } from '../../domain/permissions.js';
import { type PinCommand, pinDecider } from '../../domain/pins.js';
import { messagesByAuthorSince } from '../../projections/messages.queries.js';
import { type MessageChannelAccess, messageChannelAccess } from '../access.js';
import { type ActorMeta, type Uses, lastPosition, metadata, settleWithFiles } from '../deps.js';
import { bulkDeleteStream, messageStream, pinStream } from '../streams.js';
import { managesMessages } from './state.js';

type DeleteDeps = Uses<'commands' | 'readStore' | 'clock' | 'settle' | 'settleFiles'>;

async function unpinDeleted(deps: Uses<'commands' | 'clock'>, meta: ActorMeta, access: MessageChannelAccess, messageId: string) {
  const { state } = await deps.commands.load(pinStream(access.channelId), pinDecider);
  if (!state.has(messageId)) return null;
  const command: PinCommand = { type: 'UnpinMessage', channelId: access.channelId, guildId: access.guildId, messageId, actorId: null };
  return (await deps.commands.handle(pinStream(access.channelId), pinDecider, command, metadata(meta, deps.clock))).position;
}

/** Deletes one message (in a bulk delete, `bulk`); returns where its events landed, or null for one already gone. */
async function deleteOne(deps: Uses<'commands' | 'clock'>, meta: ActorMeta, access: MessageChannelAccess, messageId: string, bulk: boolean) {
  const command: MessageCommand = { type: 'DeleteMessage', actorId: meta.actorId, channelId: access.channelId, manageMessages: managesMessages(access), bulk };
  const { position } = await deps.commands.handle(messageStream(messageId), messageDecider, command, metadata(meta, deps.clock));
  return lastPosition(position, await unpinDeleted(deps, meta, access, messageId));
}

/** deleteOne, or undefined for a message that does not exist (bulk deletes and purges skip those). */
async function deleteIfExists(deps: Uses<'commands' | 'clock'>, meta: ActorMeta, access: MessageChannelAccess, messageId: string, bulk: boolean) {
  try {
    return await deleteOne(deps, meta, access, messageId, bulk);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'UNKNOWN_MESSAGE') return undefined;
    throw error;
  }
}

export async function deleteMessage(deps: DeleteDeps, meta: ActorMeta, channelId: string, messageId: string) {
  await deleteInChannel(deps, meta, await messageChannelAccess(deps, channelId, meta.actorId), messageId);
}

/** Deletes a message of the channel of `access`, whose permissions for the actor the caller has established. */
export async function deleteInChannel(deps: DeleteDeps, meta: ActorMeta, access: MessageChannelAccess, messageId: string) {
  await settleWithFiles(deps, await deleteOne(deps, meta, access, messageId, false));
}

/**
 * A ban's delete_message_days: removes the user's messages in the guild sent since `since` (ISO 8601). The ban was
 * already allowed (BAN_MEMBERS), which is what the widely used API asks for this, so the deletes act with
 * MANAGE_MESSAGES on the guild's behalf rather than with the banner's own channel permissions.
 */
export async function purgeMessagesOf(deps: DeleteDeps, meta: ActorMeta, guild: GuildState, userId: string, since: string) {
  const doomed = await messagesByAuthorSince(deps.readStore, guild.id, userId, since);
  const positions = [];
  for (const message of doomed) {
    const access: MessageChannelAccess = {
      channelId: message.channel_id,
      guildId: guild.id,
      type: 0,
      permissions: Permission.MANAGE_MESSAGES | Permission.VIEW_CHANNEL,
      guild,
      dm: null,
    };
    positions.push((await deleteIfExists(deps, meta, access, message._id, false)) ?? null);
  }
  await settleWithFiles(deps, lastPosition(...positions));
}

/** Deletes 2-100 messages under 14 days old at once (MANAGE_MESSAGES); ids of unknown messages count but are skipped. */
export async function bulkDeleteMessages(deps: DeleteDeps, meta: ActorMeta, channelId: string, messageIds: string[]) {
  const access = await messageChannelAccess(deps, channelId, meta.actorId);
  if (!access.guild) throw badRequest('CANNOT_BULK_DELETE_IN_DM', 'Messages in DMs cannot be bulk deleted');
  requirePermission(access.permissions, Permission.MANAGE_MESSAGES);
  assertBulkDeletable(messageIds, deps.clock.now());
  const deleted: string[] = [];
  const positions = await Promise.all(
    messageIds.map(async (messageId) => {
      const position = await deleteIfExists(deps, meta, access, messageId, true);
      if (position !== undefined) deleted.push(messageId);
      return position ?? null;
    }),
  );
  const command = {
    type: 'RecordBulkDelete' as const,
    channelId,
    guildId: access.guildId,
    messageIds: messageIds.filter((id) => deleted.includes(id)),
    actorId: meta.actorId,
  };
  const recorded = await deps.commands.handle(bulkDeleteStream(channelId), bulkDeleteDecider, command, metadata(meta, deps.clock));
  await settleWithFiles(deps, lastPosition(...positions, recorded.position));
}
