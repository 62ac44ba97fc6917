// The spec's per-guild limits (emojis, stickers): counted per guild, and only once the caller is known to be a member,
// so that nobody outside a guild can spend its budget, and one guild's exhausted bucket never limits another's.
import type { Context, Next } from 'koa';
import { guildAccess } from '../commands/access.js';
import { requireAuth } from './auth.js';
import type { HttpDeps } from './context.js';
import { guildParams } from './params.js';
import type { LimitSpec } from './rateLimit.js';
import { parseBody } from './validation.js';

declare module 'koa' {
  interface DefaultState {
    /** The guild the path names, once the caller is known to be in it. */
    memberOfGuild?: string;
  }
}

/** Lets the request on only for members of the guild the path names (404 UNKNOWN_GUILD for anyone else). */
export function guildMembersOnly(deps: Pick<HttpDeps, 'commands' | 'clock'>) {
  return async function requireGuildMember(ctx: Context, next: Next) {
    const { guildId } = parseBody(guildParams, ctx.params);
    await guildAccess(deps, guildId, requireAuth(ctx).userId);
    ctx.state.memberOfGuild = guildId;
    return next();
  };
}

/** A bucket per guild, after guildMembersOnly. */
export const perGuildLimit = (bucket: string, points: number, durationSeconds: number): LimitSpec => ({
  bucket,
  points,
  durationSeconds,
  key: (ctx) => ctx.state.memberOfGuild!,
});
