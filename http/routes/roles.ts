// Role routes: list, create, reorder, update and delete a guild's roles, within the role hierarchy.
import Router from '@koa/router';
import { guildAccess } from '../../commands/access.js';
import { runGuildCommand } from '../../commands/guilds.js';
import { unknownRole } from '../../domain/guildState.js';
import { normalizePermissions } from '../../domain/permissions.js';
import type { RoleFields } from '../../domain/role.js';
import { roleOfGuild, rolesOfGuild } from '../../projections/guilds.queries.js';
import { actorMeta } from '../actor.js';
import { requireAuth } from '../auth.js';
import { type HttpDeps, noContent } from '../context.js';
import { guildParams } from '../params.js';
import { roleObject } from '../../presenters/roles.js';
import { bitfieldSchema, type FromSchema, MAX_INT32, nameSchema, parseBody, snowflakeSchema } from '../validation.js';

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

export function roleRoutes(deps: HttpDeps): Router {
  const router = new Router();

  const listRoles = (guildId: string) => rolesOfGuild(deps.readStore, guildId);
  async function fetchRole(guildId: string, roleId: string) {
    const role = await roleOfGuild(deps.readStore, guildId, roleId);
    if (!role) throw unknownRole();
    return roleObject(role);
  }

  router.get('/guilds/:guildId/roles', async (ctx) => {
    const { guildId } = parseBody(guildParams, ctx.params);
    await guildAccess(deps, guildId, requireAuth(ctx).userId);
    ctx.body = (await listRoles(guildId)).map(roleObject);
  });

  router.get('/guilds/:guildId/roles/:roleId', async (ctx) => {
    const { guildId, roleId } = parseBody(roleParams, ctx.params);
    await guildAccess(deps, guildId, requireAuth(ctx).userId);
    ctx.body = await fetchRole(guildId, roleId);
  });

  router.post('/guilds/:guildId/roles', async (ctx) => {
    const meta = actorMeta(ctx);
    const { guildId } = parseBody(guildParams, ctx.params);
    const fields = roleFields(parseBody(roleSchema, ctx.request.body));
    const roleId = deps.ids.next();
    await runGuildCommand(deps, meta, guildId, { type: 'CreateRole', actorId: meta.actorId, roleId, fields });
    ctx.body = await fetchRole(guildId, roleId);
  });

  router.patch('/guilds/:guildId/roles', async (ctx) => {
    const meta = actorMeta(ctx);
    const { guildId } = parseBody(guildParams, ctx.params);
    const body = parseBody(positionsSchema, ctx.request.body);
    const positions = body.flatMap((p) => (typeof p.position === 'number' ? [{ id: p.id, position: p.position }] : []));
    await runGuildCommand(deps, meta, guildId, { type: 'MoveRoles', actorId: meta.actorId, positions });
    ctx.body = (await listRoles(guildId)).map(roleObject);
  });

  router.patch('/guilds/:guildId/roles/:roleId', async (ctx) => {
    const meta = actorMeta(ctx);
    const { guildId, roleId } = parseBody(roleParams, ctx.params);
    const fields = roleFields(parseBody(roleSchema, ctx.request.body));
    await runGuildCommand(deps, meta, guildId, { type: 'UpdateRole', actorId: meta.actorId, roleId, fields });
    ctx.body = await fetchRole(guildId, roleId);
  });

  router.delete('/guilds/:guildId/roles/:roleId', async (ctx) => {
    const meta = actorMeta(ctx);
    const { guildId, roleId } = parseBody(roleParams, ctx.params);
    await runGuildCommand(deps, meta, guildId, { type: 'DeleteRole', actorId: meta.actorId, roleId });
    noContent(ctx);
  });

  return router;
}
