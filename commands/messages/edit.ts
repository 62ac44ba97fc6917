// Editing a message: its author changes its content, embeds, components and attachments; MANAGE_MESSAGES may suppress
// its embeds. Files dropped by the edit leave the blob store once the edit is in the log (the attachment remover
// follows MessageEdited; the answer waits for it).
import { type MessageCommand, type MessageEdit, messageDecider, requireMessage } from '../../domain/message.js';
import { Permission, requirePermission } from '../../domain/permissions.js';
import { type MessageChannelAccess, messageChannelAccess } from '../access.js';
import { type ActorMeta, type Uses, metadata, settleWithFiles } from '../deps.js';
import { messageStream } from '../streams.js';
import { appendWithFiles, resolveAttachments } from './attachments.js';
import { componentsOf, mentionsOf } from './content.js';
import type { MessageInput, Sender, UploadedFile } from './input.js';
import { loadMessage, managesMessages, messageDocOf } from './state.js';
import { automodBlocked, executeActions, moderate } from './autoModeration.js';
import { userById } from '../../projections/users.queries.js';
import { toMessageUser } from '../dms.js';

export type EditDeps = Uses<'commands' | 'readStore' | 'ids' | 'blobs' | 'clock' | 'settle' | 'settleFiles'>;

/** A user's edit; new content is checked against the guild's auto-moderation rules first. */
export async function editMessage(
  deps: EditDeps,
  meta: ActorMeta,
  channelId: string,
  messageId: string,
  input: MessageInput,
  files: UploadedFile[],
  sender: Sender,
) {
  const access = await messageChannelAccess(deps, channelId, sender.userId);
  const moderation = input.content !== undefined ? moderate(deps, access, sender.userId, input.content, false) : null;
  if (!moderation?.triggers.length) return editInChannel(deps, meta, access, messageId, input, files, sender);
  const author = toMessageUser((await userById(deps.readStore, sender.userId))!);
  if (moderation.blocks) {
    // Only an edit the author may make is moderated: anyone else's is refused as it would be without rules.
    const edit: MessageCommand = {
      type: 'EditMessage',
      actorId: sender.userId,
      channelId,
      manageMessages: false,
      edit: { content: input.content },
      at: deps.clock.now(),
    };
    messageDecider.decide(edit, await loadMessage(deps, messageId));
    await executeActions(deps, meta, access, author, input.content!, moderation, messageId);
    throw automodBlocked(moderation);
  }
  const edited = await editInChannel(deps, meta, access, messageId, input, files, sender);
  await executeActions(deps, meta, access, author, input.content!, moderation, messageId);
  return edited;
}

/**
 * Edits a message of the channel of `access`, whose permissions for the editor the caller has established.
 * `beforeAppend` runs once the edit is checked whole, before anything is stored (an interaction response claims its
 * interaction there).
 */
export async function editInChannel(
  deps: EditDeps,
  meta: ActorMeta,
  access: MessageChannelAccess,
  messageId: string,
  input: MessageInput,
  files: UploadedFile[],
  sender: Sender,
  beforeAppend?: () => Promise<void>,
) {
  const { channelId } = access;
  const loaded = await loadMessage(deps, messageId);
  const current = requireMessage(loaded, channelId);
  if (files.length) requirePermission(access.permissions, Permission.ATTACH_FILES);
  const edit: MessageEdit = {};
  if (input.content !== undefined) {
    edit.content = input.content;
    // A reply keeps mentioning the replied-to author when it did.
    const replied = current.message_reference ? (await loadMessage(deps, current.message_reference.message_id)).message?.author : undefined;
    const stillReplied = replied && current.mentions.some((u) => u.id === replied.id) ? replied : null;
    edit.mentions = await mentionsOf(deps, access, input.content, input.allowed_mentions, stillReplied);
  }
  if (input.embeds !== undefined) edit.embeds = input.embeds;
  const components = componentsOf(sender.bot, input.components, current.flags | (input.flags ?? 0));
  if (components !== undefined) edit.components = components;
  if (input.flags !== undefined) edit.flags = input.flags;
  const { listed, added, uploads } = resolveAttachments(deps, input.attachments, files, current.attachments);
  if (input.attachments !== undefined) edit.attachments = listed;
  else if (files.length) edit.attachments = [...current.attachments.map((a) => a.id), ...added];

  const command: MessageCommand = {
    type: 'EditMessage',
    actorId: sender.userId,
    channelId,
    manageMessages: managesMessages(access),
    edit,
    at: deps.clock.now(),
  };
  messageDecider.decide(command, loaded);
  await beforeAppend?.();
  const { state, position } = await appendWithFiles(deps, channelId, messageId, uploads, () =>
    deps.commands.handle(messageStream(messageId), messageDecider, command, metadata(meta, deps.clock)),
  );
  await settleWithFiles(deps, position);
  return messageDocOf(deps, state);
}
