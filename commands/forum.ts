// Posts in forum and media channels: a public thread opened with its first message, which takes the thread's id. The
// post is checked whole before anything is appended: the thread by its decider (tags, SEND_MESSAGES in the forum),
// the message as any send is (content, attachments, auto-moderation); the thread is appended only then, just before
// its message. Members open posts here; webhooks executed with thread_name through commands/webhooks.ts.
import type { ChannelData, GuildState } from '../domain/guildState.js';
import { type ThreadCommand, type ThreadData, type ThreadState, ThreadType, threadDecider } from '../domain/thread.js';
import { isoNow } from '../ports/clock.js';
import type { MessageDoc } from '../projections/messages.js';
import type { MessageChannelAccess } from './access.js';
import type { ActorMeta, Uses } from './deps.js';
import type { Sender, SendInput, UploadedFile } from './messages/input.js';
import { type Opening, type SendDeps, sendIn } from './messages/send.js';
import { admitSlowmode, slowmodeWindow } from './slowmode.js';
import { run, whileParentStands } from './threads.js';

export interface NewPost {
  name: string;
  auto_archive_duration?: number;
  rate_limit_per_user?: number;
  applied_tags?: string[];
}

/** The forum as the caller sees it: its guild, the channel, and the caller's permissions there. */
export interface Forum {
  guild: GuildState;
  channel: ChannelData;
  permissions: bigint;
}

/** A post about to be opened: where its first message is sent, and the opening that appends the thread before it. */
export interface PreparedPost {
  access: MessageChannelAccess;
  opening: Opening;
}

/**
 * Decides a post in the forum now, so a refused one appends nothing: the thread inherits the forum's default slowmode
 * and archive duration unless the post names its own. A member who opens it joins it; a webhook (`byWebhook`) does not.
 */
export function preparePost(
  deps: Uses<'commands' | 'ids' | 'clock' | 'settle'>,
  meta: ActorMeta,
  { guild, channel: forum, permissions }: Forum,
  openerId: string,
  input: NewPost,
  byWebhook = false,
): PreparedPost {
  const at = isoNow(deps.clock);
  const threadId = deps.ids.next();
  const thread: ThreadData = {
    id: threadId,
    type: ThreadType.PUBLIC_THREAD,
    guild_id: guild.id,
    parent_id: forum.id,
    owner_id: openerId,
    name: input.name,
    rate_limit_per_user: input.rate_limit_per_user ?? forum.default_thread_rate_limit_per_user ?? 0,
    archived: false,
    auto_archive_duration: input.auto_archive_duration ?? forum.default_auto_archive_duration ?? 4320,
    archive_timestamp: at,
    locked: false,
    create_timestamp: at,
    applied_tags: input.applied_tags ?? [],
  };
  const actor = { id: openerId, parentPermissions: permissions };
  const command: ThreadCommand = {
    type: 'CreateThread',
    actor,
    parentType: forum.type,
    fromMessage: false,
    thread,
    forumTags: forum.available_tags,
    forumFlags: forum.flags ?? 0,
    ...(byWebhook ? { byWebhook: true as const } : {}),
  };
  // Refused here, before the message's checks (auto-moderation appends what its rules do).
  threadDecider.decide(command, threadDecider.initialState());
  const members = new Map(byWebhook ? [] : [[openerId, at]]);
  const opened: ThreadState = { status: 'active', thread, members };
  // The first message is sent with the forum's permissions: opening a post takes SEND_MESSAGES there, not in threads.
  const access: MessageChannelAccess = { channelId: threadId, guildId: guild.id, type: thread.type, permissions, guild, dm: null, thread: opened };
  const open = async () => void (await whileParentStands(deps, guild.id, forum.id, () => run(deps, meta, threadId, command, true)));
  return { access, opening: { id: threadId, open } };
}

/**
 * A member opens a post: its thread and first message, sent as any of their sends is. The forum's rate_limit_per_user
 * spaces out the posts a member opens there, as a channel's spaces out the threads started in it (bots, and those who
 * manage threads, messages or the channel, are exempt): admitted once the post is checked whole, just before its thread is appended. Answers both.
 */
export async function createForumPost(
  deps: SendDeps,
  meta: ActorMeta,
  forum: Forum,
  input: NewPost & { message: SendInput },
  files: UploadedFile[],
  sender: Sender,
): Promise<{ threadId: string; message: MessageDoc }> {
  const { access, opening } = preparePost(deps, meta, forum, sender.userId, input);
  const window = slowmodeWindow(forum.channel.rate_limit_per_user ?? 0, { permissions: forum.permissions, bot: sender.bot }, true);
  const open = async () => {
    if (window > 0) await admitSlowmode(deps, meta, 'thread', forum.channel.id, sender.userId, window);
    await opening.open();
  };
  const message = await sendIn(deps, meta, access, input.message, files, sender, { ...opening, open });
  return { threadId: opening.id, message };
}
