// A guild's roles: created, moved, changed and deleted by MANAGE_ROLES holders, within the role hierarchy. Commands on
// the guild's stream, checked by its decider (domain/role.ts).
import type { RoleFields } from '../domain/role.js';
import type { ActorMeta, Uses } from './deps.js';
import { runGuildCommand } from './guilds.js';

type RoleDeps = Uses<'commands' | 'clock' | 'settle'>;

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
