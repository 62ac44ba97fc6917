// Moderation over many members at once: prunes of inactive members and bulk bans (domain/moderation.ts), on the
// guild's stream like every member command.
import { type GuildEvent, guildDecider } from '../domain/guild.js';
import type { ModerationCommand } from '../domain/moderation.js';
import { isoNow } from '../ports/clock.js';
import { membersInactiveSince } from '../projections/memberActivity.queries.js';
import { usersByIds } from '../projections/users.queries.js';
import { loadGuild } from './access.js';
import { type ActorMeta, type Uses } from './deps.js';
import { runGuildCommand } from './guilds.js';
import { purgeMessagesOfBan } from './members.js';
import { channelSendsGate, exclusiveAll } from './queue.js';
import { guildStream } from './streams.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface PruneInput {
  days: number;
  includeRoles: string[];
}

/** The prune as the guild's activity read model stands now: the members it shows inactive for `days`, for the decider to judge. */
async function pruneCommand(deps: Uses<'readStore' | 'clock'>, meta: ActorMeta, guildId: string, input: PruneInput): Promise<ModerationCommand> {
  const inactiveSince = new Date(deps.clock.now() - input.days * DAY_MS).toISOString();
  const inactive = await membersInactiveSince(deps.readStore, guildId, inactiveSince);
  return { type: 'PruneMembers', actorId: meta.actorId, days: input.days, inactiveSince, includeRoles: input.includeRoles, inactive };
}

/** Every event of a prune carries the prune's whole count. */
function prunedCount(events: GuildEvent[]): number {
  const [first] = events;
  return first?.type === 'MembersPruned' ? first.data.total : 0;
}

/** How many members a prune would remove now: the prune decided on the guild as it stands, and nothing appended. */
export async function countPrunable(deps: Uses<'commands' | 'readStore' | 'clock'>, meta: ActorMeta, guildId: string, input: PruneInput): Promise<number> {
  const { state } = await deps.commands.load(guildStream(guildId), guildDecider);
  return prunedCount(guildDecider.decide(await pruneCommand(deps, meta, guildId, input), state, deps.clock.now()));
}

/**
 * Removes the members inactive for `days` and answers how many. What the prune reads: roles and membership from the
 * guild stream, decided and appended at the revision read (a role given meanwhile makes it decide again); activity
 * from the read model, read while the prune holds the sends of every channel of the guild, as a guild's deletion
 * does. The sends under way in this process are then appended and projected before the activity is read, and those
 * that come after find their author gone: a member who sends during the prune is either seen active or refused, never
 * pruned with their message kept. Reactions, voice joins and session starts are not held: those projected when the
 * activity is read count, later ones come after the prune.
 */
export async function pruneMembers(
  deps: Uses<'commands' | 'readStore' | 'clock' | 'settle'>,
  meta: ActorMeta,
  guildId: string,
  input: PruneInput,
): Promise<number> {
  const guild = await loadGuild(deps, guildId);
  const { events } = await exclusiveAll([...guild.channels.keys()].map(channelSendsGate), async () =>
    runGuildCommand(deps, meta, guildId, await pruneCommand(deps, meta, guildId, input)),
  );
  return prunedCount(events);
}

/**
 * Bans each of the users that can be banned, with the single ban's message deletion for each; answers who was banned
 * and who was not (unknown users, the owner, members not below the actor, users already banned).
 */
export async function banUsers(
  deps: Uses<'commands' | 'readStore' | 'clock' | 'settle' | 'settleFiles'>,
  meta: ActorMeta,
  guildId: string,
  input: { userIds: string[]; deleteMessageSeconds: number },
): Promise<{ banned: string[]; failed: string[] }> {
  const requested = [...new Set(input.userIds)];
  const known = new Set((await usersByIds(deps.readStore, requested)).map((user) => user._id));
  const command: ModerationCommand = {
    type: 'BanMembers',
    actorId: meta.actorId,
    userIds: requested.filter((id) => known.has(id)),
    deleteMessageSeconds: input.deleteMessageSeconds,
    bannedAt: isoNow(deps.clock),
  };
  const { state, events } = await runGuildCommand(deps, meta, guildId, command);
  const bans = events.flatMap((event) => (event.type === 'MemberBanned' ? [event.data] : []));
  for (const ban of bans) await purgeMessagesOfBan(deps, meta, state, ban);
  const banned = new Set(bans.map((ban) => ban.userId));
  return { banned: requested.filter((id) => banned.has(id)), failed: requested.filter((id) => !banned.has(id)) };
}
