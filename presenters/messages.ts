// Response shapes of the message side: message objects (with attachment URLs on the CDN, embeds' attachment:// URLs
// resolved, reaction counts with `me`) and DM channel objects. Built from read-model documents.
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
 * The JSON of messages whose object depends on the document and the origin alone (no reactions to mark `me` on, no
 * message replied to), by document: a frozen document (as the embedded read store shares them) never changes, so a page
 * read again presents and serializes only the messages that are new to it.
 */
const presented = new WeakMap<MessageDoc, { origin: string; json: string }>();

/** JSON.stringify(messageObject(doc, view)), made once per frozen document where the view cannot change it. */
export function messageJson(doc: MessageDoc, view: MessageView): string {
  const shared = Object.isFrozen(doc) && view.referenced === undefined && view.thread === undefined && Object.keys(doc.reactions).length === 0;
  const known = shared ? presented.get(doc) : undefined;
  if (known?.origin === view.origin) return known.json;
  const json = JSON.stringify(messageObject(doc, view));
  if (shared) presented.set(doc, { origin: view.origin, json });
  return json;
}

/** A DM (type 1) or group DM (type 3) channel object; `recipients` are the participants other than the viewer. */
export function dmChannelObject(doc: DmChannelDoc, viewerId: string): ParleyDMChannel | ParleyGroupDMChannel {
  const recipients = doc.recipients.filter((user: MessageUser) => user.id !== viewerId);
  const channel = { id: doc._id, type: doc.type, last_message_id: doc.last_message_id, ...lastPinTimestamp(doc), flags: NO_FLAGS, recipients };
  // `type` again, narrowed (it keeps its place among the keys).
  return doc.type === 3 ? { ...channel, type: doc.type, name: doc.name, icon: doc.icon, owner_id: doc.owner_id } : { ...channel, type: doc.type };
}
