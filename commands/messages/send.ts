// Sending a message: checked whole (channel access, permissions, the body, and the decider's rule for a new message) before anything is
// stored or appended, so a refused send leaves no trace; files go to the blob store before the event that names them.
import { DmChannelType, cannotSendMessagesToUser } from '../../domain/dmChannel.js';
import { badRequest, invalidForm } from '../../domain/errors.js';
import { cannotSendInForum, isForum } from '../../domain/forum.js';
import { type Attachment, type MessageFields, type MessageUser, MessageType, assertNewMessage, messageDecider, unknownMessage } from '../../domain/message.js';
import { nonceDecider } from '../../domain/messageNonce.js';
import { Permission, requirePermission } from '../../domain/permissions.js';
import { snowflakeTimestamp } from '../../domain/snowflake.js';
import { type MessageDoc, messageDoc } from '../../projections/messages.js';
import type { UserDoc } from '../../projections/users.js';
import { userById, usersByIds } from '../../projections/users.queries.js';
import { unknownChannel } from '../../domain/guildState.js';
import { type MessageChannelAccess, channelStands, messageChannelAccess, requireNotTimedOutIn } from '../access.js';
import { type ActorMeta, type Uses, metadata } from '../deps.js';
import { toMessageUser } from '../dms.js';
import { channelSendsGate, shared } from '../queue.js';
import { threadMessageSent } from '../threads.js';
import { admitSlowmode, slowmodeWindow } from '../slowmode.js';
import { messageStream, nonceStream } from '../streams.js';
import { appendWithFiles, resolveAttachments } from './attachments.js';
import { automodBlocked, executeActions, moderate, rememberSend } from './autoModeration.js';
import { componentsOf, mentionsOf } from './content.js';
import type { Sender, SendInput, UploadedFile } from './input.js';
import { has, loadMessage, messageDocOf } from './state.js';

/** Channel types that hold messages: text, DM, voice (its text chat), group DM, announcement, threads, stage. */
const TEXT_CHANNEL_TYPES = [0, 1, 2, 3, 5, 10, 11, 12, 13];

export type SendDeps = Uses<'commands' | 'readStore' | 'ids' | 'blobs' | 'clock' | 'settle'>;

async function repliedMessage(
  deps: Uses<'commands'>,
  access: MessageChannelAccess,
  reference: NonNullable<SendInput['message_reference']>,
): Promise<MessageFields | null> {
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
  /** What an interaction response says of its interaction (its type, application and metadata); none for a plain send. */
  fields?: Partial<Pick<MessageFields, 'type' | 'message_reference' | 'application_id' | 'interaction_metadata' | 'interaction'>>;
  /** Runs once the message is checked whole, before anything is stored: an interaction response claims its interaction here. */
  beforeAppend?: (message: MessageFields) => Promise<void>;
  /** The channel's slowmode window the author's send is held to, in seconds (a user's send); none when 0 or absent. */
  slowmodeSeconds?: number;
  /** A forum post's first message, which opens the post: see Opening. */
  opens?: Opening;
}

/**
 * The thread a forum post's first message opens (commands/forum.ts): the message takes the thread's id, and `open`
 * appends the thread once the message is checked whole, before the message that needs it to stand.
 */
export interface Opening {
  id: string;
  open: () => Promise<void>;
}

/**
 * Posts a message in a channel of `access`, whose permission checks for the author the caller has made. A nonce the
 * author already used in the channel within 5 minutes returns the first message instead.
 */
export async function postMessage(
  deps: SendDeps,
  meta: ActorMeta,
  access: MessageChannelAccess,
  input: SendInput,
  files: UploadedFile[],
  by: Authorship,
): Promise<MessageDoc> {
  const { channelId } = access;
  if (isForum(access.type)) throw cannotSendInForum();
  if (!TEXT_CHANNEL_TYPES.includes(access.type)) throw badRequest('CANNOT_SEND_IN_NON_TEXT_CHANNEL', 'Cannot send messages in a non-text channel');
  const components = componentsOf(by.components, input.components, input.flags ?? 0) ?? [];
  const replied = input.message_reference ? await repliedMessage(deps, access, input.message_reference) : null;
  const { listed, uploads } = resolveAttachments(deps, input.attachments, files, []);
  const content = input.content ?? '';
  const messageId = by.opens?.id ?? deps.ids.next();
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
    ...by.fields,
  };
  assertNewMessage(message);
  // Appended while the channel still stands: its deletion waits for the sends under way, and a send that comes after it
  // finds the channel gone instead of adding a message to the log behind ChannelDeleted. A prune holds the gate too: a
  // user's send that comes after it finds its author gone, instead of a pruned member's message landing behind it.
  return shared(channelSendsGate(channelId), async () => {
    if (by.opens) await by.opens.open();
    if (!(await channelStands(deps, access, by.webhookId === null ? by.author.id : null))) throw unknownChannel();
    return appendMessage(deps, meta, access, message, input, uploads, by);
  });
}

async function appendMessage(
  deps: SendDeps,
  meta: ActorMeta,
  access: MessageChannelAccess,
  message: MessageFields,
  input: SendInput,
  uploads: ReturnType<typeof resolveAttachments>['uploads'],
  by: Authorship,
): Promise<MessageDoc> {
  const channelId = message.channel_id;
  let messageId = message.id;
  // Each step awaited only when it applies: a plain send skips them without a turn of the microtask queue for each.
  if (by.beforeAppend) await by.beforeAppend(message);
  if (by.slowmodeSeconds) await admitSlowmode(deps, meta, 'message', channelId, by.author.id, by.slowmodeSeconds);
  // In a thread, the message joins its author (and those it mentions) and reopens it, once the send is admitted.
  if (access.thread) await threadMessageSent(deps, meta, access, message);

  if (input.nonce !== undefined) {
    const authorId = by.author.id;
    const nonce = String(input.nonce);
    const claim = { type: 'ClaimNonce' as const, channelId, authorId, nonce, messageId, at: deps.clock.now(), windowMs: by.nonceWindowMs };
    const claimed = await deps.commands.handle(nonceStream(channelId, authorId, nonce), nonceDecider, claim, metadata(meta, deps.clock));
    messageId = claimed.state!.messageId;
    const first = await loadMessage(deps, messageId);
    // The first send's message, or the id it claimed: a retry completes a send that failed after its claim.
    if (first.status === 'active') return messageDocOf(deps, first);
    if (first.status === 'deleted') throw unknownMessage();
    message.id = messageId;
    message.timestamp = new Date(snowflakeTimestamp(messageId)).toISOString();
  }
  const { state, position } = await appendWithFiles(deps, channelId, messageId, uploads, () =>
    deps.commands.handle(messageStream(messageId), messageDecider, { type: 'CreateMessage', message }, metadata(meta, deps.clock), { newStream: true }),
  );
  await deps.settle(position);
  // The message as decided: nothing has reacted to it or pinned it yet, so it needs no reading back.
  return messageDoc(state.message!);
}

/** The window of a sender's send in the channel (or thread) of `access`: none in DMs. */
function sendWindow(access: MessageChannelAccess, sender: Sender): number {
  const seconds = (access.thread ? access.thread.thread?.rate_limit_per_user : access.guild?.channels.get(access.channelId)?.rate_limit_per_user) ?? 0;
  return slowmodeWindow(seconds, { permissions: access.permissions, bot: sender.bot }, access.thread !== undefined);
}

/**
 * A user's send: SEND_MESSAGES, ATTACH_FILES for files, not while timed out; the guild's auto-moderation rules (a
 * blocked send appends only what the rules did); then spaced out by the channel's slowmode.
 */
export async function sendMessage(
  deps: SendDeps,
  meta: ActorMeta,
  channelId: string,
  input: SendInput,
  files: UploadedFile[],
  sender: Sender,
): Promise<MessageDoc> {
  return sendIn(deps, meta, await messageChannelAccess(deps, channelId, sender.userId), input, files, sender);
}

/**
 * The sender's user document. In a DM, whose other side may have deleted their account meanwhile, both are read in
 * one query and a deleted one takes nothing, as on the widely used API.
 */
async function authorIn(deps: Uses<'readStore'>, access: MessageChannelAccess, userId: string): Promise<UserDoc> {
  const other = access.dm?.type === DmChannelType.DM ? access.dm.recipient_ids.find((id) => id !== userId) : undefined;
  if (other === undefined) return (await userById(deps.readStore, userId))!;
  const users = await usersByIds(deps.readStore, [userId, other]);
  if (users.find((user) => user._id === other)?.deleted) throw cannotSendMessagesToUser();
  return users.find((user) => user._id === userId)!;
}

/** sendMessage in a channel the caller resolved: a forum post's thread about to be opened (`opens`) among them. */
export async function sendIn(
  deps: SendDeps,
  meta: ActorMeta,
  access: MessageChannelAccess,
  input: SendInput,
  files: UploadedFile[],
  sender: Sender,
  opens?: Opening,
): Promise<MessageDoc> {
  requireNotTimedOutIn(access, sender.userId);
  requirePermission(access.permissions, Permission.SEND_MESSAGES);
  if (files.length) requirePermission(access.permissions, Permission.ATTACH_FILES);
  const author = toMessageUser(await authorIn(deps, access, sender.userId));
  const content = input.content ?? '';
  const moderation = moderate(deps, access, sender.userId, content, true);
  if (moderation.blocks) {
    await executeActions(deps, meta, access, author, content, moderation, null);
    throw automodBlocked(moderation);
  }
  const message = await postMessage(deps, meta, access, input, files, {
    author,
    webhookId: null,
    components: sender.bot,
    slowmodeSeconds: sendWindow(access, sender),
    opens,
  });
  if (moderation.triggers.length) await executeActions(deps, meta, access, author, content, moderation, message._id);
  rememberSend(deps, access, sender.userId, content);
  return message;
}
