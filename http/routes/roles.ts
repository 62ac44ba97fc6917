// Role routes: list, create, reorder, update and delete a guild's roles, within the role hierarchy.
import { Role } from '../../contracts/roles.js';
import { list } from '../../contracts/schema.js';
import { createRole, deleteRole, moveRoles, readRole, readRoles, updateRole } from '../../commands/roles.js';
import { normalizePermissions } from '../../domain/permissions.js';
import type { RoleFields } from '../../domain/role.js';
import { actorMeta } from '../actor.js';
import { requireAuth } from '../auth.js';
import { guildParams } from '../params.js';
import { roleObject } from '../../presenters/roles.js';
import { route } from '../route.js';
import { bitfieldSchema, type FromSchema, MAX_INT32, nameSchema, snowflakeSchema } from '../validation.js';

const rgb = { type: 'integer', minimum: 0, maximum: 0xffffff } as const;
export const roleSchema = {
  type: 'object',
  properties: {
    name: nameSchema(1, 100),
    permissions: bitfieldSchema,
    color: rgb,
    // The widely used API's newer form of the colour; gradients need a feature this service does not have.
    colors: {
      type: 'object',
      properties: { primary_color: rgb, secondary_color: { type: 'null' }, tertiary_color: { type: 'null' } },
      required: ['primary_color'],
      additionalProperties: false,
    },
    hoist: { type: 'boolean' },
    mentionable: { type: 'boolean' },
    // Role icons need a feature this service does not have: accepted only as null.
    icon: { type: 'null' },
    unicode_emoji: { type: 'null' },
  },
  additionalProperties: false,
} as const;

export const positionsSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: { id: snowflakeSchema, position: { type: ['integer', 'null'], minimum: 1, maximum: MAX_INT32 } },
    required: ['id'],
    additionalProperties: false,
  },
  maxItems: 250,
} as const;

export const roleParams = { type: 'object', properties: { guildId: snowflakeSchema, roleId: snowflakeSchema }, required: ['guildId', 'roleId'] } as const;

/** Only the fields a role keeps; bitfields normalized to their decimal form. */
function roleFields(body: FromSchema<typeof roleSchema>): RoleFields {
  const { name, permissions, hoist, mentionable } = body;
  const color = body.colors?.primary_color ?? body.color;
  return { name, permissions: permissions === undefined ? undefined : normalizePermissions(permissions), color, hoist, mentionable };
}

const role = { description: 'The role.', schema: Role };
const roles = { description: 'The guild’s roles.', schema: list(Role) };
const MANAGE = 'Needs MANAGE_ROLES, and the role below the caller’s highest; may not grant permissions the caller lacks.';

export const listRolesRoute = route({
  method: 'GET',
  path: '/guilds/:guildId/roles',
  summary: 'List a guild’s roles',
  tag: 'Roles',
  auth: 'any',
  params: guildParams,
  responses: { 200: roles },
  errors: ['UNKNOWN_GUILD'],
  async handle(ctx, { params: { guildId } }, deps) {
    return (await readRoles(deps, guildId, requireAuth(ctx).userId)).map(roleObject);
  },
});

export const getRoleRoute = route({
  method: 'GET',
  path: '/guilds/:guildId/roles/:roleId',
  summary: 'Get a role',
  tag: 'Roles',
  auth: 'any',
  params: roleParams,
  responses: { 200: role },
  errors: ['UNKNOWN_GUILD', 'UNKNOWN_ROLE'],
  async handle(ctx, { params: { guildId, roleId } }, deps) {
    return roleObject(await readRole(deps, guildId, roleId, requireAuth(ctx).userId));
  },
});

export const createRoleRoute = route({
  method: 'POST',
  path: '/guilds/:guildId/roles',
  summary: 'Create a role',
  description: MANAGE,
  tag: 'Roles',
  auth: 'any',
  params: guildParams,
  body: roleSchema,
  audit: 'ROLE_CREATE',
  responses: { 200: role },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params: { guildId }, body }, deps) {
    const meta = actorMeta(ctx);
    const roleId = await createRole(deps, meta, guildId, roleFields(body));
    return roleObject(await readRole(deps, guildId, roleId, meta.actorId));
  },
});

export const moveRolesRoute = route({
  method: 'PATCH',
  path: '/guilds/:guildId/roles',
  summary: 'Move roles',
  description: 'Needs MANAGE_ROLES; only roles below the caller’s highest move. The @everyone role stays at 0.',
  tag: 'Roles',
  auth: 'any',
  params: guildParams,
  body: positionsSchema,
  audit: 'ROLE_UPDATE',
  responses: { 200: roles },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params: { guildId }, body }, deps) {
    const positions = body.flatMap((p) => (typeof p.position === 'number' ? [{ id: p.id, position: p.position }] : []));
    const meta = actorMeta(ctx);
    await moveRoles(deps, meta, guildId, positions);
    return (await readRoles(deps, guildId, meta.actorId)).map(roleObject);
  },
});

export const updateRoleRoute = route({
  method: 'PATCH',
  path: '/guilds/:guildId/roles/:roleId',
  summary: 'Change a role',
  description: MANAGE,
  tag: 'Roles',
  auth: 'any',
  params: roleParams,
  body: roleSchema,
  audit: 'ROLE_UPDATE',
  responses: { 200: role },
  errors: ['UNKNOWN_GUILD', 'UNKNOWN_ROLE', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params: { guildId, roleId }, body }, deps) {
    const meta = actorMeta(ctx);
    await updateRole(deps, meta, guildId, roleId, roleFields(body));
    return roleObject(await readRole(deps, guildId, roleId, meta.actorId));
  },
});

export const deleteRoleRoute = route({
  method: 'DELETE',
  path: '/guilds/:guildId/roles/:roleId',
  summary: 'Delete a role',
  description: MANAGE,
  tag: 'Roles',
  auth: 'any',
  params: roleParams,
  audit: 'ROLE_DELETE',
  responses: { 204: { description: 'Deleted.' } },
  errors: ['UNKNOWN_GUILD', 'UNKNOWN_ROLE', 'INVALID_ROLE', 'MISSING_PERMISSIONS'],
  handle: (ctx, { params: { guildId, roleId } }, deps) => deleteRole(deps, actorMeta(ctx), guildId, roleId),
});

export const roleRoutes = [listRolesRoute, getRoleRoute, createRoleRoute, moveRolesRoute, updateRoleRoute, deleteRoleRoute];
