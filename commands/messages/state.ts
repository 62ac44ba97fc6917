// Reading a message for the message use cases: the aggregate's state for decisions, the read model for answers.
import { type MessageState, messageDecider } from '../../domain/message.js';
import { Permission, hasPermission } from '../../domain/permissions.js';
import { type MessageDoc, messageDoc } from '../../projections/messages.js';
import { messageById } from '../../projections/messages.queries.js';
import type { MessageChannelAccess } from '../access.js';
import type { Uses } from '../deps.js';
import { messageStream } from '../streams.js';

export async function loadMessage(deps: Uses<'commands'>, messageId: string): Promise<MessageState> {
  return (await deps.commands.load(messageStream(messageId), messageDecider)).state;
}

/** The read model's document, once the projection has it (it does after settle); the aggregate's state otherwise. */
export async function messageDocOf(deps: Uses<'readStore'>, state: MessageState): Promise<MessageDoc> {
  return (await messageById(deps.readStore, state.message!.id)) ?? messageDoc(state.message!);
}

export const has = (access: MessageChannelAccess, permission: bigint) => hasPermission(access.permissions, permission);

/** MANAGE_MESSAGES counts only in guilds: in a DM nobody manages another's messages. */
export const managesMessages = (access: MessageChannelAccess) => access.guild !== null && has(access, Permission.MANAGE_MESSAGES);
