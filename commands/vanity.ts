// Vanity codes are claimed in their own stream (vanity-{code}) before a guild takes one and released after it lets one
// go, so no two guilds ever hold one code. Vanity codes never shadow invite codes, nor invite codes them. A guild's code
// is read by its MANAGE_GUILD holders.
import { unknownGuild } from '../domain/guildState.js';
import { inviteDecider } from '../domain/invite.js';
import { Permission, requirePermission } from '../domain/permissions.js';
import { vanityClaimDecider, vanityCodeTaken } from '../domain/vanityClaim.js';
import { guildById } from '../projections/guilds.queries.js';
import { guildAccess } from './access.js';
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

/** A guild's vanity code (null: none) and how often it was used to join. */
export interface VanityCode {
  code: string | null;
  uses: number;
}

/** The guild's vanity code as the read model shows it: what setting the code answers. */
export async function vanityOf(deps: Uses<'readStore'>, guildId: string): Promise<VanityCode> {
  const guild = await guildById(deps.readStore, guildId);
  if (!guild) throw unknownGuild();
  return { code: guild.vanity_url_code, uses: guild.vanity_url_uses };
}

/** The guild's vanity code, to its MANAGE_GUILD holders (403 for other members, 404 for outsiders). */
export async function readVanityCode(deps: Uses<'commands' | 'readStore' | 'clock'>, guildId: string, readerId: string): Promise<VanityCode> {
  const { permissions } = await guildAccess(deps, guildId, readerId);
  requirePermission(permissions, Permission.MANAGE_GUILD);
  return vanityOf(deps, guildId);
}
