// Slowmode's window for one user's message or thread in a channel, and its admission (domain/slowmode.ts): shared by
// sends (commands/messages/send.ts), threads started in a channel (commands/threads.ts) and forum posts
// (commands/forum.ts), each admitted once it is checked whole, just before it is appended, so one refused for anything
// else counts for nothing.
import { Permission, hasPermission } from '../domain/permissions.js';
import { type SlowmodeAction, slowmodeDecider } from '../domain/slowmode.js';
import { type ActorMeta, type Uses, metadata } from './deps.js';
import { slowmodeStream } from './streams.js';

/** Who is held to a channel's slowmode: their permissions there, and whether they are a bot. */
export interface SlowmodeHolder {
  permissions: bigint;
  bot: boolean;
}

/**
 * The slowmode window, in seconds, of a channel whose rate_limit_per_user is `seconds` for `holder`: 0, as on the widely
 * used API, for bots and for those who may manage messages or the channel, or threads where threads are concerned (a
 * thread's own sends, a forum's posts).
 */
export function slowmodeWindow(seconds: number, holder: SlowmodeHolder, threads: boolean): number {
  const exempt =
    holder.bot ||
    hasPermission(holder.permissions, Permission.MANAGE_MESSAGES) ||
    hasPermission(holder.permissions, Permission.MANAGE_CHANNELS) ||
    (threads && hasPermission(holder.permissions, Permission.MANAGE_THREADS));
  return seconds > 0 && !exempt ? seconds : 0;
}

/**
 * Lets a user's message (or thread) through the channel's slowmode, or refuses it with 429 SLOWMODE_RATE_LIMITED and
 * the seconds left. Messages and threads are tracked apart: one of each per window.
 */
export async function admitSlowmode(
  deps: Uses<'commands' | 'clock'>,
  meta: ActorMeta,
  action: SlowmodeAction,
  channelId: string,
  userId: string,
  windowSeconds: number,
): Promise<void> {
  const command = { type: 'AdmitSlowmode' as const, action, channelId, userId, at: deps.clock.now(), windowSeconds };
  await deps.commands.handle(slowmodeStream(channelId, userId, action), slowmodeDecider, command, metadata(meta, deps.clock));
}
