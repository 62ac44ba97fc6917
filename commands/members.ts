// A guild's members: kicked, given and taken roles, and unbanned, by those the guild's decider allows (domain/member.ts:
// the permission, and a target below the actor's highest role). Commands on the guild's stream; a member's own changes,
// timeouts and bans are commands/guilds.ts's.
import type { ActorMeta, Uses } from './deps.js';
import { runGuildCommand } from './guilds.js';

type MemberDeps = Uses<'commands' | 'clock' | 'settle'>;

/** Needs KICK_MEMBERS. */
export async function kickMember(deps: MemberDeps, meta: ActorMeta, guildId: string, userId: string): Promise<void> {
  await runGuildCommand(deps, meta, guildId, { type: 'KickMember', actorId: meta.actorId, userId });
}

/** Needs MANAGE_ROLES, and the role below the actor's highest. */
export async function addMemberRole(deps: MemberDeps, meta: ActorMeta, guildId: string, userId: string, roleId: string): Promise<void> {
  await runGuildCommand(deps, meta, guildId, { type: 'AddMemberRole', actorId: meta.actorId, userId, roleId });
}

/** Needs MANAGE_ROLES, and the role below the actor's highest. */
export async function removeMemberRole(deps: MemberDeps, meta: ActorMeta, guildId: string, userId: string, roleId: string): Promise<void> {
  await runGuildCommand(deps, meta, guildId, { type: 'RemoveMemberRole', actorId: meta.actorId, userId, roleId });
}

/** Needs BAN_MEMBERS. */
export async function unbanUser(deps: MemberDeps, meta: ActorMeta, guildId: string, userId: string): Promise<void> {
  await runGuildCommand(deps, meta, guildId, { type: 'UnbanMember', actorId: meta.actorId, userId });
}
