// The role routes (http/routes/roles.ts).
import { guildParams } from '../params.js';
import { positionsSchema, roleParams, roleSchema } from '../routes/roles.js';
import { listOf, ref } from './components.js';
import type { RouteDoc } from './entry.js';

const role = { description: 'The role.', schema: ref('Role') };
const roles = { description: 'The guild’s roles.', schema: listOf('Role') };
const MANAGE = 'Needs MANAGE_ROLES, and the role below the caller’s highest; may not grant permissions the caller lacks.';

export const roleDocs: RouteDoc[] = [
  { method: 'GET', path: '/guilds/:guildId/roles', summary: 'List a guild’s roles', tag: 'Roles', auth: 'any', params: guildParams, responses: { 200: roles }, errors: ['UNKNOWN_GUILD'] },
  { method: 'GET', path: '/guilds/:guildId/roles/:roleId', summary: 'Get a role', tag: 'Roles', auth: 'any', params: roleParams, responses: { 200: role }, errors: ['UNKNOWN_GUILD', 'UNKNOWN_ROLE'] },
  {
    method: 'POST',
    path: '/guilds/:guildId/roles',
    summary: 'Create a role',
    description: MANAGE,
    tag: 'Roles',
    auth: 'any',
    params: guildParams,
    body: roleSchema,
    responses: { 200: role },
    errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  },
  {
    method: 'PATCH',
    path: '/guilds/:guildId/roles',
    summary: 'Move roles',
    description: 'Needs MANAGE_ROLES; only roles below the caller’s highest move. The @everyone role stays at 0.',
    tag: 'Roles',
    auth: 'any',
    params: guildParams,
    body: positionsSchema,
    responses: { 200: roles },
    errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  },
  {
    method: 'PATCH',
    path: '/guilds/:guildId/roles/:roleId',
    summary: 'Change a role',
    description: MANAGE,
    tag: 'Roles',
    auth: 'any',
    params: roleParams,
    body: roleSchema,
    responses: { 200: role },
    errors: ['UNKNOWN_GUILD', 'UNKNOWN_ROLE', 'MISSING_PERMISSIONS'],
  },
  {
    method: 'DELETE',
    path: '/guilds/:guildId/roles/:roleId',
    summary: 'Delete a role',
    description: MANAGE,
    tag: 'Roles',
    auth: 'any',
    params: roleParams,
    responses: { 204: { description: 'Deleted.' } },
    errors: ['UNKNOWN_GUILD', 'UNKNOWN_ROLE', 'INVALID_ROLE', 'MISSING_PERMISSIONS'],
  },
];
