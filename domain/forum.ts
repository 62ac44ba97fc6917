// Forum (15) and media (16) channels: they hold no messages of their own, only posts (public threads, each opened with
// its first message), which may carry up to 5 of the channel's tags. The tags live on the channel (guild stream); the
// tags a post carries live on the thread (thread stream), checked against its parent's when they are set.
import { type FieldError, badRequest, invalidForm } from './errors.js';
import { Permission, requirePermission } from './permissions.js';

/** Forum (15) and media (16) channels (ChannelType in channel.ts, which builds on this module). */
export const isForum = (type: number) => type === 15 || type === 16;

export const MAX_FORUM_TAGS = 20;

/** The channel flags of forums and their posts, as the widely used API numbers them. */
export const ChannelFlag = { PINNED: 1 << 1, REQUIRE_TAG: 1 << 4, HIDE_MEDIA_DOWNLOAD_OPTIONS: 1 << 15 } as const;
/** The flags a channel of each type may carry: REQUIRE_TAG on forums and media channels, media download options on the latter. */
export const CHANNEL_FLAGS_BY_TYPE: Readonly<Record<number, number>> = {
  15: ChannelFlag.REQUIRE_TAG,
  16: ChannelFlag.REQUIRE_TAG | ChannelFlag.HIDE_MEDIA_DOWNLOAD_OPTIONS,
};
/** The most posts a forum pins at once, as the widely used API has it. */
export const MAX_PINNED_POSTS = 1;
export const MAX_APPLIED_TAGS = 5;

/** A tag a forum's posts may carry; `moderated` ones are set and removed only by MANAGE_THREADS holders. */
export interface ForumTag {
  id: string;
  name: string;
  moderated: boolean;
  emoji_id: string | null;
  emoji_name: string | null;
}
/** A tag as a request names it: a tag of the channel keeps its id, any other is new. */
export type ForumTagInput = { id?: string; name: string; moderated?: boolean; emoji_id?: string | null; emoji_name?: string | null };
export interface ReactionEmoji {
  emoji_id: string | null;
  emoji_name: string | null;
}

export const cannotSendInForum = () => badRequest('CANNOT_SEND_IN_FORUM_CHANNEL', 'Cannot send messages in a forum channel');
/** A webhook executed into a forum opens a post (`thread_name`) or posts in one (`thread_id`): the widely used API's 220001 and 220002. */
export const webhookNeedsThread = () => badRequest('WEBHOOK_FORUM_THREAD_REQUIRED', 'Webhooks posted to forum channels must have a thread_name or thread_id');
export const webhookThreadNameAndId = () =>
  badRequest('WEBHOOK_FORUM_THREAD_NAME_AND_ID', 'Webhooks posted to forum channels cannot have both a thread_name and thread_id');
/** `thread_name` outside a forum (220003): a webhook opens posts, not threads of a text channel. */
export const webhookThreadOutsideForum = () => badRequest('WEBHOOK_THREADS_ONLY_IN_FORUMS', 'Webhooks can only create threads in forum channels');
/** The code-host and chat-service adapters render one message and can name no post (220004). */
export const webhookServiceInForum = () => badRequest('WEBHOOK_SERVICES_NOT_IN_FORUMS', 'Webhook services cannot be used in forum channels');

/** A forum with REQUIRE_TAG takes posts with at least one tag (the widely used API's 40067). */
export const tagRequired = () => badRequest('TAG_REQUIRED', 'A tag is required to create a forum post in this channel');
/** The forum has its pinned post already (30047): unpin it first. */
export const maxPinnedPosts = () => badRequest('MAX_PINNED_THREADS', `Maximum number of pinned threads in a forum has been reached (${MAX_PINNED_POSTS})`);

/** Flags a channel of this type cannot carry, at `flags`. */
export function channelFlagErrors(type: number, flags: number | undefined): FieldError[] {
  return flags !== undefined && (flags & ~(CHANNEL_FLAGS_BY_TYPE[type] ?? 0)) !== 0
    ? [{ path: 'flags', message: `Not flags channels of type ${type} can carry` }]
    : [];
}

/** The tags as the channel will keep them: an id naming one of its tags stays, anything else gets a new id. */
export function withTagIds(tags: readonly ForumTagInput[], current: readonly ForumTag[], mint: () => string): ForumTag[] {
  return tags.map((tag) => ({
    id: tag.id !== undefined && current.some((t) => t.id === tag.id) ? tag.id : mint(),
    name: tag.name,
    moderated: tag.moderated ?? false,
    emoji_id: tag.emoji_id ?? null,
    emoji_name: tag.emoji_name ?? null,
  }));
}

/** An emoji is a custom one (emoji_id) or a unicode one (emoji_name), not both. */
export function emojiErrors(emoji: ReactionEmoji | null | undefined, path: string): FieldError[] {
  return emoji?.emoji_id && emoji.emoji_name ? [{ path, message: 'Only one of emoji_id and emoji_name may be set' }] : [];
}

/**
 * A custom emoji a tag or the default reaction newly names must be one of the guild's (`emojiIds`). One the channel
 * already carries there stays valid once its emoji is deleted, as the widely used API leaves the id in place, so a
 * client resending the channel's tags unchanged is not refused.
 */
export function unknownEmojiErrors(
  fields: { available_tags?: readonly ForumTag[]; default_reaction_emoji?: ReactionEmoji | null },
  current: { available_tags?: readonly ForumTag[]; default_reaction_emoji?: ReactionEmoji | null } | undefined,
  emojiIds: ReadonlySet<string>,
): FieldError[] {
  const unknown = (id: string | null | undefined, kept: boolean, path: string) =>
    id && !kept && !emojiIds.has(id) ? [{ path, message: 'Unknown emoji' }] : [];
  const reaction = fields.default_reaction_emoji?.emoji_id;
  return [
    ...(fields.available_tags ?? []).flatMap((tag, i) =>
      unknown(tag.emoji_id, current?.available_tags?.some((t) => t.id === tag.id && t.emoji_id === tag.emoji_id) ?? false, `available_tags.${i}.emoji_id`),
    ),
    ...unknown(reaction, current?.default_reaction_emoji?.emoji_id === reaction, 'default_reaction_emoji.emoji_id'),
  ];
}

/** Tag names are unique within a channel; each tag's emoji is one or the other. */
export function tagErrors(tags: readonly ForumTag[]): FieldError[] {
  return tags.flatMap((tag, i) => [
    ...(tags.findIndex((t) => t.name === tag.name) !== i ? [{ path: `available_tags.${i}.name`, message: 'Tag names must be unique' }] : []),
    ...emojiErrors(tag, `available_tags.${i}`),
  ]);
}

/**
 * Tags applied to a post: each one of its forum's, once. Changing which moderated tags a post carries takes
 * MANAGE_THREADS in the post (`permissions`).
 */
export function requireAppliedTags(applied: readonly string[], before: readonly string[], available: readonly ForumTag[], permissions: bigint): void {
  const errors = applied.flatMap((id, i) => {
    if (!available.some((tag) => tag.id === id)) return [{ path: `applied_tags.${i}`, message: 'Unknown tag of this channel' }];
    return applied.indexOf(id) !== i ? [{ path: `applied_tags.${i}`, message: 'A tag is applied once' }] : [];
  });
  if (errors.length) throw invalidForm(errors);
  const toggled = [...applied.filter((id) => !before.includes(id)), ...before.filter((id) => !applied.includes(id))];
  if (available.some((tag) => tag.moderated && toggled.includes(tag.id))) requirePermission(permissions, Permission.MANAGE_THREADS);
}
