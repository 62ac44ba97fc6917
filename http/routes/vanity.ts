// Vanity URL routes: a guild's own invite code, unique across guilds, that POST /invites/:code accepts like an invite.
import { guildAccess } from '../../commands/access.js';
import { setVanityCode } from '../../commands/guilds.js';
import { unknownGuild } from '../../domain/guildState.js';
import { Permission, requirePermission } from '../../domain/permissions.js';
import { guildById } from '../../projections/guilds.queries.js';
import { actorMeta } from '../actor.js';
import { requireAuth } from '../auth.js';
import type { HttpDeps } from '../context.js';
import { ref } from '../openapi/components.js';
import { guildParams } from '../params.js';
import { route } from '../route.js';

const vanityCode = { type: 'string', pattern: '^[a-z0-9-]{2,32}$' } as const;
export const setSchema = { type: 'object', properties: { code: vanityCode }, required: ['code'], additionalProperties: false } as const;

async function vanityObject(deps: HttpDeps, guildId: string) {
  const guild = await guildById(deps.readStore, guildId);
  if (!guild) throw unknownGuild();
  return { code: guild.vanity_url_code, uses: guild.vanity_url_uses, guild_id: guildId };
}

const vanity = { description: 'The guild’s vanity code.', schema: ref('VanityUrl') };

export const getVanityRoute = route({
  method: 'GET',
  path: '/guilds/:guildId/vanity-url',
  summary: 'Get a guild’s vanity URL',
  description: 'Needs MANAGE_GUILD.',
  tag: 'Invites',
  auth: 'any',
  params: guildParams,
  responses: { 200: vanity },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params: { guildId } }, deps) {
    const { permissions } = await guildAccess(deps, guildId, requireAuth(ctx).userId);
    requirePermission(permissions, Permission.MANAGE_GUILD);
    return vanityObject(deps, guildId);
  },
});

/** Create and update both set the code; the spec limits each to 5 per 10 seconds. */
const setVanityAt = (method: 'POST' | 'PATCH', summary: string, bucket: string) =>
  route({
    method,
    path: '/guilds/:guildId/vanity-url',
    summary,
    description: 'Needs MANAGE_GUILD. The code is unique across guilds (a taken one is refused at `code`) and is accepted by POST /invites/{code}.',
    tag: 'Invites',
    auth: 'any',
    params: guildParams,
    body: setSchema,
    limits: [{ bucket, points: 5, durationSeconds: 10 }],
    audit: 'GUILD_UPDATE',
    responses: { 200: vanity },
    errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
    async handle(ctx, { params: { guildId }, body: { code } }, deps) {
      await setVanityCode(deps, actorMeta(ctx), guildId, code);
      return vanityObject(deps, guildId);
    },
  });

export const createVanityRoute = setVanityAt('POST', 'Set a guild’s vanity URL', 'vanity:create');
export const updateVanityRoute = setVanityAt('PATCH', 'Change a guild’s vanity URL', 'vanity:update');

export const deleteVanityRoute = route({
  method: 'DELETE',
  path: '/guilds/:guildId/vanity-url',
  summary: 'Remove a guild’s vanity URL',
  description: 'Needs MANAGE_GUILD.',
  tag: 'Invites',
  auth: 'any',
  params: guildParams,
  audit: 'GUILD_UPDATE',
  responses: { 204: { description: 'Removed.' } },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  handle: (ctx, { params }, deps) => setVanityCode(deps, actorMeta(ctx), params.guildId, null),
});

export const vanityRoutes = [getVanityRoute, createVanityRoute, updateVanityRoute, deleteVanityRoute];
