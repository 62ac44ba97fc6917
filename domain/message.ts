// The message aggregate: one stream per message (message-{id}), created with expected revision no_stream. A busy
// channel then never has a stream every send contends on, and message order in a channel is the order of the
// snowflake ids, sorted by the read model. The stream also holds the message's reactions (reaction.ts): one message
// is the consistency boundary a "remove all reactions" needs.
// Events carry the message in the shape of the widely used API's message object, so the read model and the
// gateway's dispatches (MESSAGE_CREATE, MESSAGE_UPDATE, MESSAGE_DELETE) are built from them without lookups.
import { type Component, IS_COMPONENTS_V2, componentAttachmentErrors } from './components.js';
import type { Decider, DomainEvent } from './decider.js';
import { type Embed, embedErrors } from './embeds.js';
import { DomainError, type FieldError, badRequest, forbidden, invalidForm, notFound } from './errors.js';
import {
  type ReactionCommand,
  type ReactionEntry,
  type ReactionEvent,
  decideReaction,
  evolveReaction,
  isReactionCommand,
  isReactionEvent,
} from './reaction.js';
import { isBlank } from './text.js';

/** LOADING marks a deferred interaction response ("the bot is thinking") until its first edit fills it. */
export const MessageFlags = {
  SUPPRESS_EMBEDS: 1 << 2,
  /** A thread was started from it; the read model marks it, never a sender. */
  HAS_THREAD: 1 << 5,
  EPHEMERAL: 1 << 6,
  LOADING: 1 << 7,
  SUPPRESS_NOTIFICATIONS: 1 << 12,
  IS_COMPONENTS_V2,
} as const;
/**
 * CHAT_INPUT_COMMAND: a bot's response to a slash command, as the widely used API types it; AUTO_MODERATION_ACTION:
 * an auto-moderation rule's alert in its alert channel.
 */
export const MessageType = { DEFAULT: 0, REPLY: 19, CHAT_INPUT_COMMAND: 20, AUTO_MODERATION_ACTION: 24 } as const;
/** The widely used API's limit on content, in characters (Unicode code points). */
export const MAX_CONTENT_LENGTH = 2000;
export const MAX_ATTACHMENTS = 10;

/** The user (or webhook) shown as a message's author, or in its mentions, as it was when the message was sent. */
export interface MessageUser {
  id: string;
  username: string;
  discriminator: string;
  global_name: string | null;
  avatar: string | null;
  bot: boolean;
  public_flags: number;
  /** A webhook execution's avatar_url override, shown instead of the webhook's avatar. */
  avatar_url?: string;
}

/** A stored file; its URL is built from the public origin when presented (attachments/{channel}/{id}/{filename}). */
export interface Attachment {
  id: string;
  filename: string;
  description?: string;
  content_type: string;
  size: number;
  width?: number;
  height?: number;
}

export interface MessageReference {
  message_id: string;
  channel_id: string;
  guild_id?: string;
}

export interface MentionedChannel {
  id: string;
  guild_id: string;
  type: number;
  name: string;
}

/** What a message made in response to an interaction says of it (the widely used API's interaction_metadata). */
export interface InteractionMetadata {
  id: string;
  type: number;
  /** Who invoked the command or clicked the component. */
  user: MessageUser;
  authorizing_integration_owners: Record<string, string>;
  /** The command's name and type, for command interactions. */
  name?: string;
  command_type?: number;
  /** For follow-ups: the interaction's first response. */
  original_response_message_id?: string;
  /** For component interactions: the message whose component was used. */
  interacted_message_id?: string;
}

/** The older summary of the same interaction, which clients still read beside interaction_metadata. */
export interface MessageInteraction {
  id: string;
  type: number;
  /** The command's name (a component's custom_id for component interactions). */
  name: string;
  user: MessageUser;
}

/** A message object's own fields, in the API's shape (reactions and pinned come from their own events). */
export interface MessageFields {
  id: string;
  channel_id: string;
  guild_id: string | null;
  author: MessageUser;
  /** Set for messages a webhook posted; author is then the webhook's name and avatar. */
  webhook_id: string | null;
  type: number;
  content: string;
  tts: boolean;
  embeds: Embed[];
  attachments: Attachment[];
  components: Component[];
  /** Unknown bits are kept as sent. */
  flags: number;
  nonce: string | number | null;
  mentions: MessageUser[];
  mention_roles: string[];
  mention_everyone: boolean;
  mention_channels: MentionedChannel[];
  message_reference: MessageReference | null;
  timestamp: string;
  edited_timestamp: string | null;
  /** Set on an application's responses to an interaction (webhook_id is then the application's id). */
  application_id?: string;
  interaction_metadata?: InteractionMetadata;
  interaction?: MessageInteraction;
}

/** The fields an edit may change. */
export type EditableFields = Pick<
  MessageFields,
  'content' | 'embeds' | 'attachments' | 'components' | 'flags' | 'mentions' | 'mention_roles' | 'mention_everyone' | 'mention_channels' | 'edited_timestamp'
>;

type MessageIds = {
  messageId: string;
  channelId: string;
  guildId: string | null;
  authorId: string;
};

export type MessageCreated = DomainEvent<'MessageCreated', MessageIds & { message: MessageFields }>;
/**
 * `changes` holds the new values of the fields that changed, `message` the whole message after them (MESSAGE_UPDATE's
 * payload), `removedAttachments` the files no longer listed.
 */
export type MessageEdited = DomainEvent<
  'MessageEdited',
  MessageIds & { editorId: string; changes: Partial<EditableFields>; message: MessageFields; removedAttachments: Attachment[] }
>;
/** `bulk` marks a deletion that is part of a bulk delete, announced once for all by MessagesBulkDeleted. */
export type MessageDeleted = DomainEvent<'MessageDeleted', MessageIds & { deletedBy: string; bulk: boolean; attachments: Attachment[] }>;
export type MessageEvent = MessageCreated | MessageEdited | MessageDeleted | ReactionEvent;

export interface MessageState {
  status: 'none' | 'active' | 'deleted';
  message: MessageFields | null;
  /** By emoji key, in the order each emoji was first added. */
  reactions: ReadonlyMap<string, ReactionEntry>;
}

/**
 * An edit. `attachments`, when given, is the whole list after the edit: an id keeps that existing attachment, an
 * object is a newly uploaded file (the spec's rule: unlisted attachments are removed; an omitted list keeps all).
 */
export interface MessageEdit {
  content?: string;
  embeds?: Embed[];
  attachments?: (string | Attachment)[];
  components?: Component[];
  flags?: number;
  /** Mentions parsed from the new content; given together with `content`. */
  mentions?: Pick<EditableFields, 'mentions' | 'mention_roles' | 'mention_everyone' | 'mention_channels'>;
}

export type MessageCommand =
  | { type: 'CreateMessage'; message: MessageFields }
  | { type: 'EditMessage'; actorId: string; channelId: string; manageMessages: boolean; edit: MessageEdit; at: number }
  | { type: 'DeleteMessage'; actorId: string; channelId: string; manageMessages: boolean; bulk: boolean }
  | ReactionCommand;

export const unknownMessage = () => notFound('UNKNOWN_MESSAGE', 'Unknown Message');
export const emptyMessage = () => badRequest('CANNOT_SEND_EMPTY_MESSAGE', 'Cannot send an empty message');

/** The message, when it exists in `channelId` and is not deleted; otherwise 404 UNKNOWN_MESSAGE. */
export function requireMessage(state: MessageState, channelId: string): MessageFields {
  if (state.status !== 'active' || state.message!.channel_id !== channelId) throw unknownMessage();
  return state.message!;
}

/**
 * Who sees an ephemeral message: its author, the users it mentions, and the user whose interaction it answers. Nobody
 * else reads it, over the gateway or in the channel's history.
 */
export function ephemeralAudience(message: Pick<MessageFields, 'author' | 'mentions' | 'interaction_metadata'>): string[] {
  const ids = [message.author.id, ...message.mentions.map((u) => u.id), ...(message.interaction_metadata ? [message.interaction_metadata.user.id] : [])];
  return [...new Set(ids)];
}

const idsOf = (message: MessageFields): MessageIds => ({
  messageId: message.id,
  channelId: message.channel_id,
  guildId: message.guild_id,
  authorId: message.author.id,
});

/**
 * A message needs content, an embed, an attachment or a component; a deferred interaction response waits for them.
 * Content of only whitespace and zero-width characters shows nothing: it counts as none, as in the widely used API.
 */
function assertNotEmpty(message: Pick<MessageFields, 'content' | 'embeds' | 'attachments' | 'components' | 'flags'>): void {
  if (message.flags & MessageFlags.LOADING) return;
  if (isBlank(message.content) && !message.embeds.length && !message.attachments.length && !message.components.length) throw emptyMessage();
}

function assertContentLength(content: string, path = 'content'): void {
  // A string has no more code points than UTF-16 units: only a long one needs counting.
  if (content.length > MAX_CONTENT_LENGTH && [...content].length > MAX_CONTENT_LENGTH)
    throw invalidForm([{ path, message: `Must be ${MAX_CONTENT_LENGTH} or fewer in length.`, code: 'BASE_TYPE_MAX_LENGTH' }]);
}

const legacyFieldError = (field: 'content' | 'embeds'): FieldError => ({
  path: field,
  message: `The '${field}' field cannot be used when using MessageFlags.IS_COMPONENTS_V2`,
  code: 'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2',
});

/**
 * A Components V2 message says everything with its components: content and embeds are refused, as the widely used API
 * does. The files its components and embeds name must be its own attachments, and its embeds keep to their total
 * length. Every problem is refused at once.
 */
function assertLayout(message: Pick<MessageFields, 'content' | 'embeds' | 'attachments' | 'components' | 'flags'>): void {
  const errors: FieldError[] = [];
  if (message.flags & MessageFlags.IS_COMPONENTS_V2) {
    if (message.content !== '') errors.push(legacyFieldError('content'));
    if (message.embeds.length) errors.push(legacyFieldError('embeds'));
  }
  if (message.components.length) errors.push(...componentAttachmentErrors(message.components, message.attachments));
  if (message.embeds.length) errors.push(...embedErrors(message.embeds, message.attachments));
  if (errors.length) throw invalidForm(errors);
}

/**
 * What a new message must be, whatever its stream holds: the rule `CreateMessage` decides by, which a send also checks
 * before it stores the message's files or claims its nonce, so that a refused send leaves no trace.
 */
export function assertNewMessage(message: MessageFields): void {
  assertContentLength(message.content);
  if (message.flags & MessageFlags.LOADING && !message.interaction_metadata) {
    throw invalidForm([{ path: 'flags', message: 'Only a deferred interaction response is loading (flag 128)' }]);
  }
  assertNotEmpty(message);
  if (message.attachments.length > MAX_ATTACHMENTS) throw invalidForm([{ path: 'attachments', message: `Must have at most ${MAX_ATTACHMENTS} attachments` }]);
  assertLayout(message);
}

function create(command: Extract<MessageCommand, { type: 'CreateMessage' }>, state: MessageState): MessageEvent[] {
  const { message } = command;
  if (state.status !== 'none') {
    // A retried send that claimed the same nonce: the first one stands.
    const first = state.message!;
    if (message.nonce !== null && String(first.nonce) === String(message.nonce) && first.author.id === message.author.id) return [];
    throw new DomainError('conflict', 'MESSAGE_EXISTS', 'Message already exists');
  }
  assertNewMessage(message);
  return [{ type: 'MessageCreated', data: { ...idsOf(message), message } }];
}

/** The attachments after an edit: listed ids keep existing files, objects add new ones. */
function editedAttachments(current: readonly Attachment[], listed: (string | Attachment)[]): Attachment[] {
  const errors = listed.flatMap((entry, i) =>
    typeof entry === 'string' && !current.some((a) => a.id === entry) ? [{ path: `attachments.${i}.id`, message: 'Unknown attachment' }] : [],
  );
  if (errors.length) throw invalidForm(errors);
  const attachments = listed.map((entry) => (typeof entry === 'string' ? current.find((a) => a.id === entry)! : entry));
  if (attachments.length > MAX_ATTACHMENTS) throw invalidForm([{ path: 'attachments', message: `Must have at most ${MAX_ATTACHMENTS} attachments` }]);
  return attachments;
}

function edit(command: Extract<MessageCommand, { type: 'EditMessage' }>, state: MessageState): MessageEvent[] {
  const message = requireMessage(state, command.channelId);
  const { edit: requested } = command;
  const isAuthor = message.author.id === command.actorId;
  const onlyFlags = Object.keys(requested).every((key) => key === 'flags');
  // Others may only toggle SUPPRESS_EMBEDS, and only with MANAGE_MESSAGES, as in the widely used API.
  if (!isAuthor && !(onlyFlags && command.manageMessages)) throw forbidden('CANNOT_EDIT_MESSAGE_BY_OTHER', 'Cannot edit a message authored by another user');

  const next: Partial<EditableFields> = {};
  if (requested.content !== undefined) {
    assertContentLength(requested.content);
    next.content = requested.content;
    Object.assign(next, requested.mentions);
  }
  if (requested.embeds !== undefined) next.embeds = requested.embeds;
  if (requested.components !== undefined) next.components = requested.components;
  if (requested.attachments !== undefined) next.attachments = editedAttachments(message.attachments, requested.attachments);
  // Only SUPPRESS_EMBEDS can be set or cleared by an edit, and IS_COMPONENTS_V2 set (never cleared, as in the widely
  // used API); every other bit stays as sent.
  if (requested.flags !== undefined)
    next.flags = (message.flags & ~MessageFlags.SUPPRESS_EMBEDS) | (requested.flags & (MessageFlags.SUPPRESS_EMBEDS | MessageFlags.IS_COMPONENTS_V2));
  // The first edit of a deferred interaction response is its answer: it stops loading.
  if (message.flags & MessageFlags.LOADING && Object.keys(next).length) next.flags = (next.flags ?? message.flags) & ~MessageFlags.LOADING;

  const changes = Object.fromEntries(
    Object.entries(next).filter(([key, value]) => JSON.stringify(value) !== JSON.stringify(message[key as keyof MessageFields])),
  ) as Partial<EditableFields>;
  if (Object.keys(changes).length === 0) return [];
  // A flags-only change (suppressing embeds) is not an edit of the text: edited_timestamp stays.
  if (Object.keys(changes).some((key) => key !== 'flags')) changes.edited_timestamp = new Date(command.at).toISOString();
  const after = { ...message, ...changes };
  assertNotEmpty(after);
  assertLayout(after);
  const removedAttachments = changes.attachments ? message.attachments.filter((a) => !changes.attachments!.some((b) => b.id === a.id)) : [];
  return [{ type: 'MessageEdited', data: { ...idsOf(message), editorId: command.actorId, changes, message: after, removedAttachments } }];
}

function remove(command: Extract<MessageCommand, { type: 'DeleteMessage' }>, state: MessageState): MessageEvent[] {
  const message = requireMessage(state, command.channelId);
  if (message.author.id !== command.actorId && !command.manageMessages) throw forbidden('MISSING_PERMISSIONS', 'Missing Permissions');
  return [{ type: 'MessageDeleted', data: { ...idsOf(message), deletedBy: command.actorId, bulk: command.bulk, attachments: message.attachments } }];
}

export const messageDecider: Decider<MessageState, MessageCommand, MessageEvent> = {
  initialState: () => ({ status: 'none', message: null, reactions: new Map() }),

  decide(command, state) {
    if (isReactionCommand(command)) return decideReaction(command, requireMessage(state, command.channelId), state);
    switch (command.type) {
      case 'CreateMessage':
        return create(command, state);
      case 'EditMessage':
        return edit(command, state);
      case 'DeleteMessage':
        return remove(command, state);
    }
  },

  evolve(state, event) {
    if (isReactionEvent(event)) return evolveReaction(state, event);
    switch (event.type) {
      case 'MessageCreated':
        return { ...state, status: 'active', message: event.data.message };
      case 'MessageEdited':
        return { ...state, message: event.data.message };
      case 'MessageDeleted':
        return { ...state, status: 'deleted', reactions: new Map() };
    }
  },
};
