// Vanity codes are claimed in their own stream (vanity-{code}) before a guild takes one and released after it lets one
// go, so no two guilds ever hold one code. Vanity codes never shadow invite codes, nor invite codes them.
import { inviteDecider } from '../domain/invite.js';
import { vanityClaimDecider, vanityCodeTaken } from '../domain/vanityClaim.js';
import { type RequestMeta, type Uses, metadata } from './deps.js';
import { inviteStream, vanityStream } from './streams.js';

/** The guild holding a vanity code, or null. */
export async function vanityHolder(deps: Uses<'commands'>, code: string): Promise<string | null> {
  return (await deps.commands.load(vanityStream(code), vanityClaimDecider)).state.holder;
}

export async function claimVanityCode(deps: Uses<'commands' | 'clock'>, meta: RequestMeta, guildId: string, code: string) {
  if ((await deps.commands.load(inviteStream(code), inviteDecider)).state.status !== 'none') throw vanityCodeTaken();
  await deps.commands.handle(vanityStream(code), vanityClaimDecider, { type: 'ClaimVanityCode', code, guildId }, metadata(meta, deps.clock));
}

export async function releaseVanityCode(deps: Uses<'commands' | 'clock'>, meta: RequestMeta, guildId: string, code: string) {
  await deps.commands.handle(vanityStream(code), vanityClaimDecider, { type: 'ReleaseVanityCode', code, guildId }, metadata(meta, deps.clock));
}
