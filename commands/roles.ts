// A guild's roles: read by its members; created, moved, changed and deleted by MANAGE_ROLES holders, within the role
// hierarchy, by commands on the guild's stream, checked by its decider (domain/role.ts).
import { unknownRole } from '../domain/guildState.js';
import type { RoleFields } from '../domain/role.js';
import type { RoleDoc } from '../projections/guilds.js';
import { roleOfGuild, rolesOfGuild } from '../projections/guilds.queries.js';
import { guildAccess } from './access.js';
import type { ActorMeta, Uses } from './deps.js';
import { runGuildCommand } from './guilds.js';

type RoleDeps = Uses<'commands' | 'clock' | 'settle'>;
type ReadDeps = Uses<'commands' | 'readStore' | 'clock'>;

/** The guild's roles by position, to its members (404 for anyone else). */
export async function readRoles(deps: ReadDeps, guildId: string, readerId: string): Promise<RoleDoc[]> {
  await guildAccess(deps, guildId, readerId);
  return rolesOfGuild(deps.readStore, guildId);
}

/** One of the guild's roles, to its members (404 for anyone else). */
export async function readRole(deps: ReadDeps, guildId: string, roleId: string, readerId: string): Promise<RoleDoc> {
  await guildAccess(deps, guildId, readerId);
  const role = await roleOfGuild(deps.readStore, guildId, roleId);
  if (!role) throw unknownRole();
  return role;
}

/** Answers the new role's id. */
export async function createRole(deps: RoleDeps & Uses<'ids'>, meta: ActorMeta, guildId: string, fields: RoleFields): Promise<string> {
  const roleId = deps.ids.next();
  await runGuildCommand(deps, meta, guildId, { type: 'CreateRole', actorId: meta.actorId, roleId, fields });
  return roleId;
}

/** Only roles below the actor's highest move; @everyone stays at 0. */
export async function moveRoles(deps: RoleDeps, meta: ActorMeta, guildId: string, positions: { id: string; position: number }[]): Promise<void> {
  await runGuildCommand(deps, meta, guildId, { type: 'MoveRoles', actorId: meta.actorId, positions });
}

export async function updateRole(deps: RoleDeps, meta: ActorMeta, guildId: string, roleId: string, fields: RoleFields): Promise<void> {
  await runGuildCommand(deps, meta, guildId, { type: 'UpdateRole', actorId: meta.actorId, roleId, fields });
}

export async function deleteRole(deps: RoleDeps, meta: ActorMeta, guildId: string, roleId: string): Promise<void> {
  await runGuildCommand(deps, meta, guildId, { type: 'DeleteRole', actorId: meta.actorId, roleId });
}
