// Messages: send, edit, delete, bulk delete, reactions and pins. Every request is checked whole (channel access,
// permissions, the body, and the decider run dry on the current state) before anything is stored or appended, so a
// refused request leaves no trace; files go to the blob store before the event that names them.
import { type Component, validateComponents } from '../domain/components.js';
import type { Decider, DomainEvent } from '../domain/decider.js';
import type { Embed } from '../domain/embeds.js';
import { DomainError, badRequest, invalidForm } from '../domain/errors.js';
import type { GuildState } from '../domain/guildState.js';
import { type AllowedMentions, allowMentions, parseMentions } from '../domain/mentions.js';
import {
  type Attachment,
  type MessageCommand,
  type MessageEdit,
  type MessageFields,
  type MessageState,
  type MessageUser,
  MessageType,
  messageDecider,
  requireMessage,
  unknownMessage,
} from '../domain/message.js';
import { assertBulkDeletable, bulkDeleteDecider } from '../domain/messageBulkDelete.js';
import { nonceDecider } from '../domain/messageNonce.js';
import { Permission, hasPermission, requirePermission } from '../domain/permissions.js';
import { type PinCommand, pinDecider } from '../domain/pins.js';
import { type ReactionEmoji, emojiKey } from '../domain/reaction.js';
import { snowflakeTimestamp } from '../domain/snowflake.js';
import type { ImageInfo } from '../ports/images.js';
import { type MessageDoc, messageDoc } from '../projections/messages.js';
import { messageById, messagesByAuthorSince } from '../projections/messages.queries.js';
import { userById, usersByIds } from '../projections/users.queries.js';
import { type ActorMeta, type CommandDeps, lastPosition, metadata } from './deps.js';
import { type MessageChannelAccess, messageChannelAccess } from './access.js';
import { toMessageUser } from './dms.js';
import { bulkDeleteStream, messageStream, nonceStream, pinStream } from './streams.js';

export const attachmentKey = (channelId: string, attachment: Pick<Attachment, 'id' | 'filename'>) => `attachments/${channelId}/${attachment.id}/${attachment.filename}`;

/** Channel types that hold messages: text, DM, voice (its text chat), group DM, announcement, threads, stage. */
const TEXT_CHANNEL_TYPES = [0, 1, 2, 3, 5, 10, 11, 12, 13];

/** Who sends: a user (a person's session or a bot), as authenticated. */
export interface Sender {
  userId: string;
  bot: boolean;
}

/** A file of a multipart send or edit. */
export interface UploadedFile {
  /** n of the part files[n]; the attachments entry with id n describes this file. */
  index: number;
  filename: string;
  contentType: string;
  data: Buffer;
  /** What the file's header says when it is a PNG, JPEG, WebP or GIF image: read by the edge through the images port. */
  image?: ImageInfo;
}

/** An attachments entry of a send or edit: `id` is a file's index for a new upload, or an existing attachment's id. */
export interface AttachmentEntry {
  id: string | number;
  filename?: string | null;
  description?: string | null;
}

export interface MessageInput {
  content?: string;
  tts?: boolean;
  embeds?: Embed[];
  components?: unknown[];
  flags?: number;
  allowed_mentions?: AllowedMentions;
  attachments?: AttachmentEntry[];
}

export interface SendInput extends MessageInput {
  nonce?: string | number;
  message_reference?: { message_id: string; channel_id?: string; guild_id?: string; fail_if_not_exists?: boolean };
}

// In this process, commands on one message stream queue behind each other instead of racing for the same revision
// (a popular message takes many reactions at once); between processes the command handler's retry still decides.
const queues = new Map<string, Promise<unknown>>();
function queued<T>(key: string, run: () => Promise<T>): Promise<T> {
  const next = (queues.get(key) ?? Promise.resolve()).catch(() => undefined).then(run);
  queues.set(key, next);
  const forget = () => {
    if (queues.get(key) === next) queues.delete(key);
  };
  next.then(forget, forget);
  return next;
}

/** Runs a command on one of this file's streams, queued behind the process's other commands on that stream. */
function run<State, Command, Event extends DomainEvent>(deps: CommandDeps, meta: ActorMeta, streamId: string, decider: Decider<State, Command, Event>, command: Command) {
  return queued(streamId, () => deps.commands.handle(streamId, decider, command, metadata(meta)));
}

async function loadMessage(deps: CommandDeps, messageId: string): Promise<MessageState> {
  return (await deps.commands.load(messageStream(messageId), messageDecider)).state;
}

/** The read model's document, once the projection has it (it does after settle); the aggregate's state otherwise. */
async function messageDocOf(deps: CommandDeps, state: MessageState): Promise<MessageDoc> {
  return (await messageById(deps.readStore, state.message!.id)) ?? messageDoc(state.message!);
}

const has = (access: MessageChannelAccess, permission: bigint) => hasPermission(access.permissions, permission);

/** Sanitized for storage keys and URLs: letters, digits, dot, dash and underscore, as the widely used API does. */
function safeFilename(name: string): string {
  const base = name.split(/[\\/]/).pop()!.replace(/\s+/g, '_').replace(/[^\w.-]/g, '');
  return (base.replace(/^\.+$/, '') || 'file').slice(0, 128);
}

/** A new attachment: images are recognized by their bytes (and measured); other files keep their declared type. */
async function attachmentOf(deps: CommandDeps, file: UploadedFile, entry: AttachmentEntry | undefined): Promise<Attachment> {
  const attachment: Attachment = {
    id: deps.ids.next(),
    filename: safeFilename(entry?.filename ?? file.filename),
    content_type: file.contentType || 'application/octet-stream',
    size: file.data.length,
  };
  if (entry?.description) attachment.description = entry.description;
  // Measured from its header alone (http/multipart.ts): an image too large to render is still a file to keep.
  const { image } = file;
  if (image) Object.assign(attachment, { content_type: image.contentType, width: image.width, height: image.height });
  return attachment;
}

/**
 * The attachments of a send or edit. Each file becomes a new attachment, described by the entry whose id is its index.
 * `listed` follows the entries (an edit's entries may also name existing attachments by id), then the files no entry
 * names; `added` are the new attachments, `uploads` pairs them with their files.
 */
async function resolveAttachments(deps: CommandDeps, entries: AttachmentEntry[] | undefined, files: UploadedFile[], existing: readonly Attachment[]) {
  const errors = files.flatMap((file, i) => (files.findIndex((f) => f.index === file.index) !== i ? [{ path: `files[${file.index}]`, message: 'Duplicate file index' }] : []));
  const uploads = new Map<UploadedFile, Attachment>();
  for (const file of files) uploads.set(file, await attachmentOf(deps, file, entries?.find((e) => String(e.id) === String(file.index))));
  const listed: (string | Attachment)[] = [];
  (entries ?? []).forEach((entry, i) => {
    const id = String(entry.id);
    const file = files.find((f) => String(f.index) === id);
    if (existing.some((a) => a.id === id)) listed.push(id);
    else if (file) listed.push(uploads.get(file)!);
    else errors.push({ path: `attachments.${i}.id`, message: 'No file or attachment has this id' });
  });
  if (errors.length) throw invalidForm(errors);
  const added = [...uploads.values()];
  return { listed: [...listed, ...added.filter((attachment) => !listed.includes(attachment))], added, uploads };
}

async function storeFiles(deps: CommandDeps, channelId: string, uploads: ReadonlyMap<UploadedFile, Attachment>) {
  await Promise.all([...uploads].map(([file, attachment]) => deps.blobs.put(attachmentKey(channelId, attachment), { data: file.data, contentType: attachment.content_type })));
}

async function deleteFiles(deps: CommandDeps, channelId: string, attachments: readonly Attachment[]) {
  await Promise.all(attachments.map((a) => deps.blobs.delete(attachmentKey(channelId, a))));
}

type Mentions = Pick<MessageFields, 'mentions' | 'mention_roles' | 'mention_everyone' | 'mention_channels'>;

/** Whom `content` mentions, among the users, roles and channels that exist; @everyone only with MENTION_EVERYONE. */
async function mentionsOf(deps: CommandDeps, access: MessageChannelAccess, content: string, allowed: AllowedMentions | undefined, replied: MessageUser | null): Promise<Mentions> {
  const parsed = allowMentions(parseMentions(content), allowed);
  const users = parsed.users.length ? await usersByIds(deps.readStore, parsed.users) : [];
  const mentions = parsed.users.flatMap((id) => users.filter((u) => u._id === id).map(toMessageUser));
  // A reply mentions the replied-to author unless allowed_mentions says otherwise.
  if (replied && (allowed ? allowed.replied_user === true : true) && !mentions.some((u) => u.id === replied.id)) mentions.push(replied);
  const guild = access.guild;
  return {
    mentions,
    mention_roles: guild ? parsed.roles.filter((id) => id !== guild.id && guild.roles.has(id)) : [],
    mention_everyone: parsed.everyone && has(access, Permission.MENTION_EVERYONE),
    mention_channels: guild
      ? parsed.channels.flatMap((id) => {
          const channel = guild.channels.get(id);
          return channel ? [{ id, guild_id: guild.id, type: channel.type, name: channel.name }] : [];
        })
      : [],
  };
}

/** Validated components, when the author's components count and some were sent. */
const componentsOf = (count: boolean, components: unknown[] | undefined): Component[] | undefined =>
  count && components !== undefined ? validateComponents(components) : undefined;

async function repliedMessage(deps: CommandDeps, access: MessageChannelAccess, reference: NonNullable<SendInput['message_reference']>): Promise<MessageFields | null> {
  requirePermission(access.permissions, Permission.READ_MESSAGE_HISTORY);
  const state = await loadMessage(deps, reference.message_id);
  const sameChannel = (reference.channel_id ?? access.channelId) === access.channelId;
  if (state.status === 'active' && sameChannel && state.message!.channel_id === access.channelId) return state.message;
  if (reference.fail_if_not_exists === false) return null;
  throw invalidForm([{ path: 'message_reference.message_id', message: 'Unknown message' }]);
}

/** Who a new message is by: a user, or (for webhook executions) a webhook shown with its own name and avatar. */
export interface Authorship {
  author: MessageUser;
  webhookId: string | null;
  /** Components count only from bots and webhooks; a person's session sends none, as the spec says. */
  components: boolean;
  /** How long the nonce names its first message, when not the usual 5 minutes. */
  nonceWindowMs?: number;
}

/**
 * Posts a message in a channel of `access`, whose permission checks for the author the caller has made. A nonce the
 * author already used in the channel within 5 minutes returns the first message instead.
 */
export async function postMessage(deps: CommandDeps, meta: ActorMeta, access: MessageChannelAccess, input: SendInput, files: UploadedFile[], by: Authorship): Promise<MessageDoc> {
  const { channelId } = access;
  if (!TEXT_CHANNEL_TYPES.includes(access.type)) throw badRequest('CANNOT_SEND_IN_NON_TEXT_CHANNEL', 'Cannot send messages in a non-text channel');
  const components = componentsOf(by.components, input.components) ?? [];
  const replied = input.message_reference ? await repliedMessage(deps, access, input.message_reference) : null;
  const { listed, uploads } = await resolveAttachments(deps, input.attachments, files, []);
  const content = input.content ?? '';
  let messageId = deps.ids.next();
  const message: MessageFields = {
    id: messageId,
    channel_id: channelId,
    guild_id: access.guildId,
    author: by.author,
    webhook_id: by.webhookId,
    type: replied ? MessageType.REPLY : MessageType.DEFAULT,
    content,
    tts: (input.tts ?? false) && has(access, Permission.SEND_TTS_MESSAGES),
    embeds: input.embeds ?? [],
    attachments: listed as Attachment[],
    components,
    flags: input.flags ?? 0,
    nonce: input.nonce ?? null,
    ...(await mentionsOf(deps, access, content, input.allowed_mentions, replied?.author ?? null)),
    message_reference: replied ? { message_id: replied.id, channel_id: channelId, ...(access.guildId ? { guild_id: access.guildId } : {}) } : null,
    timestamp: new Date(snowflakeTimestamp(messageId)).toISOString(),
    edited_timestamp: null,
  };
  messageDecider.decide({ type: 'CreateMessage', message }, messageDecider.initialState());

  if (input.nonce !== undefined) {
    const authorId = by.author.id;
    const nonce = String(input.nonce);
    const claim = await deps.commands.handle(nonceStream(channelId, authorId, nonce), nonceDecider, { type: 'ClaimNonce', channelId, authorId, nonce, messageId, at: Date.now(), windowMs: by.nonceWindowMs }, metadata(meta));
    messageId = claim.state!.messageId;
    const first = await loadMessage(deps, messageId);
    // The first send's message, or the id it claimed: a retry completes a send that failed after its claim.
    if (first.status === 'active') return messageDocOf(deps, first);
    if (first.status === 'deleted') throw unknownMessage();
    message.id = messageId;
    message.timestamp = new Date(snowflakeTimestamp(messageId)).toISOString();
  }
  await storeFiles(deps, channelId, uploads);
  const { state, position } = await deps.commands.handle(messageStream(messageId), messageDecider, { type: 'CreateMessage', message }, metadata(meta));
  await deps.settle(position);
  return messageDocOf(deps, state);
}

/** A user's send: SEND_MESSAGES, and ATTACH_FILES for files. */
export async function sendMessage(deps: CommandDeps, meta: ActorMeta, channelId: string, input: SendInput, files: UploadedFile[], sender: Sender): Promise<MessageDoc> {
  const access = await messageChannelAccess(deps, channelId, sender.userId);
  requirePermission(access.permissions, Permission.SEND_MESSAGES);
  if (files.length) requirePermission(access.permissions, Permission.ATTACH_FILES);
  const author = await userById(deps.readStore, sender.userId);
  return postMessage(deps, meta, access, input, files, { author: toMessageUser(author!), webhookId: null, components: sender.bot });
}

/** Edits a message: its author changes its content, embeds, components and attachments; MANAGE_MESSAGES may suppress its embeds. */
export async function editMessage(deps: CommandDeps, meta: ActorMeta, channelId: string, messageId: string, input: MessageInput, files: UploadedFile[], sender: Sender) {
  const access = await messageChannelAccess(deps, channelId, sender.userId);
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
  const components = componentsOf(sender.bot, input.components);
  if (components !== undefined) edit.components = components;
  if (input.flags !== undefined) edit.flags = input.flags;
  const { listed, added, uploads } = await resolveAttachments(deps, input.attachments, files, current.attachments);
  if (input.attachments !== undefined) edit.attachments = listed;
  else if (files.length) edit.attachments = [...current.attachments.map((a) => a.id), ...added];

  const command: MessageCommand = {
    type: 'EditMessage',
    actorId: sender.userId,
    channelId,
    manageMessages: access.guild !== null && has(access, Permission.MANAGE_MESSAGES),
    edit,
    editedAt: new Date().toISOString(),
  };
  messageDecider.decide(command, loaded);
  await storeFiles(deps, channelId, uploads);
  const { state, events, position } = await run(deps, meta, messageStream(messageId), messageDecider, command);
  await deps.settle(position);
  for (const event of events) if (event.type === 'MessageEdited') await deleteFiles(deps, channelId, event.data.removedAttachments);
  return messageDocOf(deps, state);
}

/** Unpins a message that went away, so it no longer counts toward the channel's 50 pins. */
async function unpinDeleted(deps: CommandDeps, meta: ActorMeta, access: MessageChannelAccess, messageId: string) {
  const { state } = await deps.commands.load(pinStream(access.channelId), pinDecider);
  if (!state.has(messageId)) return null;
  const command: PinCommand = { type: 'UnpinMessage', channelId: access.channelId, guildId: access.guildId, messageId, actorId: null };
  return (await run(deps, meta, pinStream(access.channelId), pinDecider, command)).position;
}

/** Deletes one message (in a bulk delete, `bulk`); returns where its events landed, or null for one already gone. */
async function deleteOne(deps: CommandDeps, meta: ActorMeta, access: MessageChannelAccess, messageId: string, bulk: boolean) {
  const manageMessages = access.guild !== null && has(access, Permission.MANAGE_MESSAGES);
  const command: MessageCommand = { type: 'DeleteMessage', actorId: meta.actorId, channelId: access.channelId, manageMessages, bulk };
  const { events, position } = await run(deps, meta, messageStream(messageId), messageDecider, command);
  for (const event of events) if (event.type === 'MessageDeleted') await deleteFiles(deps, access.channelId, event.data.attachments);
  return lastPosition(position, await unpinDeleted(deps, meta, access, messageId));
}

export async function deleteMessage(deps: CommandDeps, meta: ActorMeta, channelId: string, messageId: string) {
  const access = await messageChannelAccess(deps, channelId, meta.actorId);
  await deps.settle(await deleteOne(deps, meta, access, messageId, false));
}

/**
 * A ban's delete_message_days: removes the user's messages in the guild sent since `since` (ISO 8601). The ban was
 * already allowed (BAN_MEMBERS), which is what the widely used API asks for this, so the deletes act with
 * MANAGE_MESSAGES on the guild's behalf rather than with the banner's own channel permissions.
 */
export async function purgeMessagesOf(deps: CommandDeps, meta: ActorMeta, guild: GuildState, userId: string, since: string) {
  const doomed = await messagesByAuthorSince(deps.readStore, guild.id, userId, since);
  const positions = [];
  for (const message of doomed) {
    const access: MessageChannelAccess = { channelId: message.channel_id, guildId: guild.id, type: 0, permissions: Permission.MANAGE_MESSAGES | Permission.VIEW_CHANNEL, guild, dm: null };
    try {
      positions.push(await deleteOne(deps, meta, access, message._id, false));
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'UNKNOWN_MESSAGE')) throw error;
    }
  }
  await deps.settle(lastPosition(...positions));
}

/** Deletes 2-100 messages under 14 days old at once (MANAGE_MESSAGES); ids of unknown messages count but are skipped. */
export async function bulkDeleteMessages(deps: CommandDeps, meta: ActorMeta, channelId: string, messageIds: string[]) {
  const access = await messageChannelAccess(deps, channelId, meta.actorId);
  if (!access.guild) throw badRequest('CANNOT_BULK_DELETE_IN_DM', 'Messages in DMs cannot be bulk deleted');
  requirePermission(access.permissions, Permission.MANAGE_MESSAGES);
  assertBulkDeletable(messageIds, Date.now());
  const deleted: string[] = [];
  const positions = await Promise.all(
    messageIds.map(async (messageId) => {
      try {
        const position = await deleteOne(deps, meta, access, messageId, true);
        deleted.push(messageId);
        return position;
      } catch (error) {
        if (error instanceof DomainError && error.code === 'UNKNOWN_MESSAGE') return null;
        throw error;
      }
    }),
  );
  const command = { type: 'RecordBulkDelete' as const, channelId, guildId: access.guildId, messageIds: messageIds.filter((id) => deleted.includes(id)), actorId: meta.actorId };
  const recorded = await deps.commands.handle(bulkDeleteStream(channelId), bulkDeleteDecider, command, metadata(meta));
  await deps.settle(lastPosition(...positions, recorded.position));
}

/** Reacting needs READ_MESSAGE_HISTORY; being first with an emoji also needs ADD_REACTIONS, as in the widely used API. */
export async function addReaction(deps: CommandDeps, meta: ActorMeta, channelId: string, messageId: string, emoji: ReactionEmoji) {
  const access = await messageChannelAccess(deps, channelId, meta.actorId);
  requirePermission(access.permissions, Permission.READ_MESSAGE_HISTORY);
  const state = await loadMessage(deps, messageId);
  requireMessage(state, channelId);
  if (!state.reactions.has(emojiKey(emoji))) requirePermission(access.permissions, Permission.ADD_REACTIONS);
  const { position } = await run(deps, meta, messageStream(messageId), messageDecider, { type: 'AddReaction', userId: meta.actorId, channelId, emoji });
  await deps.settle(position);
}

/** Removes `userId`'s reaction (someone else's needs MANAGE_MESSAGES). */
export async function removeReaction(deps: CommandDeps, meta: ActorMeta, channelId: string, messageId: string, emoji: ReactionEmoji, userId: string) {
  const access = await messageChannelAccess(deps, channelId, meta.actorId);
  const manageMessages = access.guild !== null && has(access, Permission.MANAGE_MESSAGES);
  const { position } = await run(deps, meta, messageStream(messageId), messageDecider, { type: 'RemoveReaction', actorId: meta.actorId, userId, channelId, emoji, manageMessages });
  await deps.settle(position);
}

/** Removes every reaction, or every reaction with `emoji` (MANAGE_MESSAGES). */
export async function clearReactions(deps: CommandDeps, meta: ActorMeta, channelId: string, messageId: string, emoji: ReactionEmoji | null) {
  const access = await messageChannelAccess(deps, channelId, meta.actorId);
  const manageMessages = access.guild !== null && has(access, Permission.MANAGE_MESSAGES);
  const { position } = await run(deps, meta, messageStream(messageId), messageDecider, { type: 'ClearReactions', actorId: meta.actorId, channelId, emoji, manageMessages });
  await deps.settle(position);
}

/** Pins and unpins need MANAGE_MESSAGES in a guild; in a DM every participant may. */
async function changePin(deps: CommandDeps, meta: ActorMeta, channelId: string, messageId: string, pin: boolean) {
  const access = await messageChannelAccess(deps, channelId, meta.actorId);
  if (access.guild) requirePermission(access.permissions, Permission.MANAGE_MESSAGES);
  requireMessage(await loadMessage(deps, messageId), channelId);
  const ids = { channelId, guildId: access.guildId, messageId, actorId: meta.actorId };
  const command: PinCommand = pin ? { type: 'PinMessage', ...ids, pinnedAt: new Date().toISOString() } : { type: 'UnpinMessage', ...ids };
  const { position } = await run(deps, meta, pinStream(channelId), pinDecider, command);
  await deps.settle(position);
}

export const pinMessage = (deps: CommandDeps, meta: ActorMeta, channelId: string, messageId: string) => changePin(deps, meta, channelId, messageId, true);
export const unpinMessage = (deps: CommandDeps, meta: ActorMeta, channelId: string, messageId: string) => changePin(deps, meta, channelId, messageId, false);
