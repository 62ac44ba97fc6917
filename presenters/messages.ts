// Response shapes of the message side: message objects (with attachment URLs on the CDN, embeds' attachment:// URLs
// resolved, reaction counts with `me`) and DM channel objects. Built from read-model documents.
import { randomUUID } from 'node:crypto';
import type { APIAttachment, APIEmbed, APIThreadChannel } from 'discord-api-types/v10';
import { type Embed, attachmentReferences } from '../domain/embeds.js';
import { type Attachment, MessageFlags, type MessageUser } from '../domain/message.js';
import type { DmChannelDoc } from '../projections/dms.js';
import type { MessageDoc } from '../projections/messages.js';
import { lastPinTimestamp } from './channels.js';
import type { ParleyDMChannel, ParleyGroupDMChannel, ParleyMessage } from './differences.js';
import { NO_FLAGS } from './flags.js';
import { apiTimestamp } from './timestamps.js';

/** Where the CDN serves an attachment: {cdn_url}/attachments/{channel_id}/{attachment_id}/{filename}. */
export const attachmentUrl = (origin: string, channelId: string, attachment: Pick<Attachment, 'id' | 'filename'>) =>
  `${origin}/attachments/${channelId}/${attachment.id}/${encodeURIComponent(attachment.filename)}`;

function attachmentObject(origin: string, channelId: string, attachment: Attachment): APIAttachment {
  const url = attachmentUrl(origin, channelId, attachment);
  return { ...attachment, url, proxy_url: url };
}

/**
 * An embed as sent, with attachment://filename URLs turned into the file's CDN URL (and its size, for images), and
 * its timestamp in the API's form (senders write any RFC 3339 offset, adapters `Z`). A timestamp Date cannot read,
 * stored before sends were checked for that, stays as sent.
 */
function embedObject(origin: string, channelId: string, embed: Embed, attachments: readonly Attachment[]): APIEmbed {
  const resolved: Record<string, unknown> = { type: 'rich', ...structuredClone(embed) };
  if (typeof embed.timestamp === 'string' && Number.isFinite(Date.parse(embed.timestamp))) resolved.timestamp = apiTimestamp(embed.timestamp);
  for (const reference of attachmentReferences(embed)) {
    const file = attachments.find((a) => a.filename === reference.filename);
    if (!file) continue;
    const [field, key] = reference.path.split('.');
    const target = resolved[field] as Record<string, unknown>;
    const url = attachmentUrl(origin, channelId, file);
    target[key] = url;
    if (key === 'url') Object.assign(target, { proxy_url: url, width: file.width, height: file.height });
    else target[`proxy_${key}`] = url;
  }
  return resolved;
}

export interface MessageView {
  /** The public origin ({cdn_url}). */
  origin: string;
  /** `${message_id}:${reaction field}` of the viewer's own reactions, for `me`. */
  ownReactions?: ReadonlySet<string>;
  /** For replies: the message replied to, null when it was deleted. */
  referenced?: MessageDoc | null;
  /** The thread started from the message, when it has one. */
  thread?: APIThreadChannel;
}

/** A message object with the fields clients of the widely used API read. */
export function messageObject(doc: MessageDoc, view: MessageView): ParleyMessage {
  const { _id: id, channel_id: channelId } = doc;
  return {
    id,
    channel_id: channelId,
    ...(doc.guild_id ? { guild_id: doc.guild_id } : {}),
    author: doc.author,
    ...(doc.webhook_id ? { webhook_id: doc.webhook_id } : {}),
    type: doc.type,
    content: doc.content,
    timestamp: apiTimestamp(doc.timestamp),
    edited_timestamp: apiTimestamp(doc.edited_timestamp),
    tts: doc.tts,
    mention_everyone: doc.mention_everyone,
    mentions: doc.mentions,
    mention_roles: doc.mention_roles,
    ...(doc.mention_channels.length ? { mention_channels: doc.mention_channels } : {}),
    attachments: doc.attachments.map((a) => attachmentObject(view.origin, channelId, a)),
    embeds: doc.embeds.map((embed) => embedObject(view.origin, channelId, embed, doc.attachments)),
    reactions: Object.entries(doc.reactions).map(([field, { emoji, count }]) => {
      const me = view.ownReactions?.has(`${id}:${field}`) ?? false;
      return { emoji, count, count_details: { burst: 0, normal: count }, me, me_burst: false, burst_colors: [] };
    }),
    ...(doc.nonce !== null ? { nonce: doc.nonce } : {}),
    pinned: doc.pinned,
    flags: doc.thread_id ? doc.flags | MessageFlags.HAS_THREAD : doc.flags,
    components: doc.components,
    ...(doc.message_reference ? { message_reference: { type: 0, ...doc.message_reference } } : {}),
    ...(doc.application_id ? { application_id: doc.application_id } : {}),
    ...(doc.interaction_metadata ? { interaction_metadata: doc.interaction_metadata } : {}),
    ...(doc.interaction ? { interaction: doc.interaction } : {}),
    ...(view.thread ? { thread: view.thread } : {}),
    ...(view.referenced !== undefined ? { referenced_message: view.referenced ? messageObject(view.referenced, { origin: view.origin }) : null } : {}),
  };
}

/**
 * A frozen document's JSON (as the embedded read store shares documents: one that changes is a new object) with its
 * viewer's parts left out: the text before its reactions, each reaction's up to its `me`, and what follows, without
 * the closing brace (the thread and the message replied to, which the viewer's read brings, come last). Made once per
 * document and origin, so a page read again writes each message's bytes from its parts instead of presenting it.
 */
interface MessageParts {
  origin: string;
  head: string;
  reactions: { field: string; beforeMe: string; afterMe: string }[];
  tail: string;
}

const parts = new WeakMap<MessageDoc, MessageParts>();

/** Stands for a viewer's part while the rest is serialized; text that happens to hold it is not split, only presented. */
const HOLE = `\u0000parley-viewer-part-${randomUUID()}`;
const HOLE_JSON = JSON.stringify(HOLE);

/** `json` around the one place HOLE was serialized, or null if the text holds it elsewhere too. */
function around(json: string): [string, string] | null {
  const pieces = json.split(HOLE_JSON);
  return pieces.length === 2 ? [pieces[0], pieces[1]] : null;
}

function partsOf(doc: MessageDoc, origin: string): MessageParts | null {
  const object = messageObject(doc, { origin });
  const fields = Object.keys(doc.reactions);
  const reactions = object.reactions!.map((reaction, i) => {
    const split = around(JSON.stringify({ ...reaction, me: HOLE }));
    return split && { field: fields[i], beforeMe: split[0], afterMe: split[1] };
  });
  const split = around(JSON.stringify({ ...object, reactions: HOLE }));
  if (!split || reactions.some((r) => r === null)) return null;
  return { origin, head: split[0], reactions: reactions as MessageParts['reactions'], tail: split[1].slice(0, -1) };
}

/** JSON.stringify(messageObject(doc, view)), written from the document's parts where it is frozen. */
export function messageJson(doc: MessageDoc, view: MessageView): string {
  let known = parts.get(doc);
  if (known?.origin !== view.origin) {
    known = Object.isFrozen(doc) ? (partsOf(doc, view.origin) ?? undefined) : undefined;
    if (!known) return JSON.stringify(messageObject(doc, view));
    parts.set(doc, known);
  }
  let json = `${known.head}[`;
  for (let i = 0; i < known.reactions.length; i++) {
    const { field, beforeMe, afterMe } = known.reactions[i];
    json += `${i ? ',' : ''}${beforeMe}${view.ownReactions?.has(`${doc._id}:${field}`) ? 'true' : 'false'}${afterMe}`;
  }
  json += `]${known.tail}`;
  if (view.thread) json += `,"thread":${JSON.stringify(view.thread)}`;
  if (view.referenced !== undefined) json += `,"referenced_message":${view.referenced ? messageJson(view.referenced, { origin: view.origin }) : 'null'}`;
  return `${json}}`;
}

/** Whether a message's object is the same for every viewer: no reactions to mark `me` on, no thread, no reply. */
export function viewerFree(doc: MessageDoc): boolean {
  if (doc.message_reference || doc.thread_id) return false;
  // A loop rather than Object.keys: a page asks this of every message on every read.
  for (const _field in doc.reactions) return false;
  return true;
}

/**
 * The last page written from each first message, with (weakly) the documents it was written from: a page whose messages
 * are the same frozen documents and the same for every viewer is the same bytes, whoever reads it. The page holds the
 * text of all its messages, so it goes once any of them is collected (the read store drops a document an edit, a
 * deletion or an erasure changed), as each message's parts go with it: no erased text is kept for its page's sake.
 */
interface KeptPage {
  origin: string;
  docs: WeakRef<MessageDoc>[];
  bytes: Buffer;
}

const pages = new WeakMap<MessageDoc, KeptPage>();
const pageDropper = new FinalizationRegistry<WeakRef<MessageDoc>>((first) => {
  const doc = first.deref();
  if (doc) pages.delete(doc);
});

function keeps(page: KeptPage, origin: string, docs: readonly MessageDoc[]): boolean {
  if (page.origin !== origin || page.docs.length !== docs.length) return false;
  for (let i = 0; i < docs.length; i++) if (page.docs[i].deref() !== docs[i]) return false;
  return true;
}

/** A page's bytes, `[` the messages' JSON `]`; `views` (each message's, by index) only where some message needs one. */
export function messagePageBytes(docs: readonly MessageDoc[], origin: string, views?: readonly MessageView[]): Buffer {
  // Only pages of frozen documents are kept: the same documents again are frozen too.
  const known = !views && docs.length > 0 ? pages.get(docs[0]) : undefined;
  if (known && keeps(known, origin, docs)) return known.bytes;
  const shared = !views && docs.length > 0 && docs.every((doc) => Object.isFrozen(doc));
  let json = '[';
  for (let i = 0; i < docs.length; i++) json += `${i ? ',' : ''}${messageJson(docs[i], views?.[i] ?? { origin })}`;
  const bytes = Buffer.from(`${json}]`);
  if (shared) {
    const first = new WeakRef(docs[0]);
    pages.set(docs[0], { origin, docs: docs.map((doc) => new WeakRef(doc)), bytes });
    for (const doc of docs.slice(1)) pageDropper.register(doc, first);
  }
  return bytes;
}

/** A DM (type 1) or group DM (type 3) channel object; `recipients` are the participants other than the viewer. */
export function dmChannelObject(doc: DmChannelDoc, viewerId: string): ParleyDMChannel | ParleyGroupDMChannel {
  const recipients = doc.recipients.filter((user: MessageUser) => user.id !== viewerId);
  const channel = { id: doc._id, type: doc.type, last_message_id: doc.last_message_id, ...lastPinTimestamp(doc), flags: NO_FLAGS, recipients };
  // `type` again, narrowed (it keeps its place among the keys).
  return doc.type === 3 ? { ...channel, type: doc.type, name: doc.name, icon: doc.icon, owner_id: doc.owner_id } : { ...channel, type: doc.type };
}
