// Vanity URL routes: a guild's own invite code, unique across guilds, that POST /invites/:code accepts like an invite.
import { VanityUrl } from '../../contracts/invites.js';
import { setVanityCode } from '../../commands/guilds.js';
import { readVanityCode, vanityOf } from '../../commands/vanity.js';
import { actorMeta } from '../actor.js';
import { requireAuth } from '../auth.js';
import { guildParams } from '../params.js';
import { route } from '../route.js';

const vanityCode = { type: 'string', pattern: '^[a-z0-9-]{2,32}$' } as const;
export const setSchema = { type: 'object', properties: { code: vanityCode }, required: ['code'], additionalProperties: false } as const;

const vanity = { description: 'The guild’s vanity code.', schema: VanityUrl };

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
    return { ...(await readVanityCode(deps, guildId, requireAuth(ctx).userId)), guild_id: guildId };
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
      return { ...(await vanityOf(deps, guildId)), guild_id: guildId };
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
