// Roles of a guild (in the guild stream). Positions are kept dense: @everyone is 0 and the other roles are 1..n, a new
// role enters at 1 (so whoever made it stays above it), and a deleted role's place closes up.
import type { DomainEvent } from './decider.js';
import { badRequest, invalidForm } from './errors.js';
import {
  type Change,
  type GuildState,
  type RoleData,
  applyChanges,
  diff,
  requireAboveRole,
  requireGrantable,
  requireGuildPermission,
  unknownRole,
  withEntry,
  withoutEntry,
} from './guildState.js';
import { Permission } from './permissions.js';

export type RoleCreated = DomainEvent<'RoleCreated', { guildId: string; role: RoleData }>;
export type RoleUpdated = DomainEvent<'RoleUpdated', { guildId: string; roleId: string; changes: Change[] }>;
/** Carries the deleted role as it was, for the audit log's old values. */
export type RoleDeleted = DomainEvent<'RoleDeleted', { guildId: string; role: RoleData }>;
export type RoleEvent = RoleCreated | RoleUpdated | RoleDeleted;

export type RoleFields = Partial<Pick<RoleData, 'name' | 'color' | 'hoist' | 'mentionable' | 'permissions'>>;

export type RoleCommand =
  | { type: 'CreateRole'; actorId: string; roleId: string; fields: RoleFields }
  | { type: 'UpdateRole'; actorId: string; roleId: string; fields: RoleFields }
  | { type: 'DeleteRole'; actorId: string; roleId: string }
  /** Moves each listed role to its position, in list order, the others closing up around it. */
  | { type: 'MoveRoles'; actorId: string; positions: { id: string; position: number }[] };

function existingRole(state: GuildState, roleId: string): RoleData {
  const role = state.roles.get(roleId);
  if (!role) throw unknownRole();
  return role;
}

/** Non-@everyone roles from the bottom up. */
function orderedRoles(state: GuildState): RoleData[] {
  return [...state.roles.values()].filter((r) => r.id !== state.id).sort((a, b) => a.position - b.position);
}

export const roleDeciders = {
  CreateRole(command: Extract<RoleCommand, { type: 'CreateRole' }>, state: GuildState): RoleEvent[] {
    const held = requireGuildPermission(state, command.actorId, Permission.MANAGE_ROLES);
    const everyone = state.roles.get(state.id)!;
    const role: RoleData = {
      id: command.roleId,
      name: command.fields.name ?? 'new role',
      color: command.fields.color ?? 0,
      hoist: command.fields.hoist ?? false,
      mentionable: command.fields.mentionable ?? false,
      permissions: command.fields.permissions ?? everyone.permissions,
      position: 1,
    };
    requireGrantable(held, BigInt(role.permissions));
    return [{ type: 'RoleCreated', data: { guildId: state.id, role } }];
  },

  UpdateRole(command: Extract<RoleCommand, { type: 'UpdateRole' }>, state: GuildState): RoleEvent[] {
    const held = requireGuildPermission(state, command.actorId, Permission.MANAGE_ROLES);
    const role = existingRole(state, command.roleId);
    requireAboveRole(state, command.actorId, role.position);
    if (role.id === state.id && command.fields.name !== undefined && command.fields.name !== role.name) {
      throw invalidForm([{ path: 'name', message: 'The @everyone role cannot be renamed' }]);
    }
    if (command.fields.permissions !== undefined) requireGrantable(held, BigInt(command.fields.permissions) & ~BigInt(role.permissions));
    const changes = diff(role, command.fields);
    return changes.length ? [{ type: 'RoleUpdated', data: { guildId: state.id, roleId: role.id, changes } }] : [];
  },

  DeleteRole(command: Extract<RoleCommand, { type: 'DeleteRole' }>, state: GuildState): RoleEvent[] {
    requireGuildPermission(state, command.actorId, Permission.MANAGE_ROLES);
    const role = existingRole(state, command.roleId);
    if (role.id === state.id) throw badRequest('INVALID_ROLE', 'The @everyone role cannot be deleted');
    if (role.tags && state.members.has(role.tags.bot_id)) throw badRequest('MANAGED_ROLE', 'This role belongs to a bot in the guild: remove the bot first');
    requireAboveRole(state, command.actorId, role.position);
    return [{ type: 'RoleDeleted', data: { guildId: state.id, role } }];
  },

  MoveRoles(command: Extract<RoleCommand, { type: 'MoveRoles' }>, state: GuildState): RoleEvent[] {
    requireGuildPermission(state, command.actorId, Permission.MANAGE_ROLES);
    const order = orderedRoles(state);
    command.positions.forEach(({ id }, index) => {
      if (!state.roles.has(id) || id === state.id)
        throw invalidForm([{ path: `${index}.id`, message: 'Unknown role, or the @everyone role, which cannot move' }]);
    });
    for (const { id, position } of command.positions) {
      const role = state.roles.get(id)!;
      requireAboveRole(state, command.actorId, role.position);
      requireAboveRole(state, command.actorId, position);
      const from = order.findIndex((r) => r.id === id);
      order.splice(from, 1);
      order.splice(Math.min(Math.max(position, 1), order.length + 1) - 1, 0, role);
    }
    return order.flatMap((role, index): RoleEvent[] =>
      role.position === index + 1
        ? []
        : [
            {
              type: 'RoleUpdated',
              data: { guildId: state.id, roleId: role.id, changes: [{ key: 'position', old_value: role.position, new_value: index + 1 }] },
            },
          ],
    );
  },
};

export const roleEvolvers = {
  RoleCreated(state: GuildState, event: RoleCreated): GuildState {
    const roles = new Map(state.roles);
    for (const role of roles.values()) if (role.position >= event.data.role.position) roles.set(role.id, { ...role, position: role.position + 1 });
    roles.set(event.data.role.id, event.data.role);
    return { ...state, roles };
  },

  RoleUpdated(state: GuildState, event: RoleUpdated): GuildState {
    const role = state.roles.get(event.data.roleId)!;
    return { ...state, roles: withEntry(state.roles, role.id, applyChanges(role, event.data.changes)) };
  },

  RoleDeleted(state: GuildState, event: RoleDeleted): GuildState {
    const deleted = event.data.role;
    const roles = withoutEntry(state.roles, deleted.id);
    for (const role of roles.values()) if (role.position > deleted.position) roles.set(role.id, { ...role, position: role.position - 1 });
    const members = new Map(state.members);
    for (const member of members.values()) {
      if (member.roles.includes(deleted.id)) members.set(member.user_id, { ...member, roles: member.roles.filter((id) => id !== deleted.id) });
    }
    const channels = new Map(state.channels);
    for (const channel of channels.values()) {
      if (channel.permission_overwrites.some((o) => o.type === 0 && o.id === deleted.id)) {
        channels.set(channel.id, { ...channel, permission_overwrites: channel.permission_overwrites.filter((o) => !(o.type === 0 && o.id === deleted.id)) });
      }
    }
    return { ...state, roles, members, channels };
  },
};
