// Vanity URL routes: a guild's own invite code, unique across guilds, that POST /invites/:code accepts like an invite.
import Router from '@koa/router';
import type { Context } from 'koa';
import { guildAccess } from '../../commands/access.js';
import { setVanityCode } from '../../commands/guilds.js';
import { unknownGuild } from '../../domain/guildState.js';
import { Permission, requirePermission } from '../../domain/permissions.js';
import { guildById } from '../../projections/guilds.queries.js';
import { actorMeta } from '../actor.js';
import { requireAuth } from '../auth.js';
import { type HttpDeps, noContent } from '../context.js';
import { guildParams } from '../params.js';
import { rateLimit } from '../rateLimit.js';
import { parseBody, snowflakeSchema } from '../validation.js';

const vanityCode = { type: 'string', pattern: '^[a-z0-9-]{2,32}$' } as const;
export const setSchema = { type: 'object', properties: { code: vanityCode }, required: ['code'], additionalProperties: false } as const;

async function vanityObject(deps: HttpDeps, guildId: string) {
  const guild = await guildById(deps.readStore, guildId);
  if (!guild) throw unknownGuild();
  return { code: guild.vanity_url_code, uses: guild.vanity_url_uses, guild_id: guildId };
}

export function vanityRoutes(deps: HttpDeps): Router {
  const router = new Router();

  router.get('/guilds/:guildId/vanity-url', async (ctx) => {
    const { guildId } = parseBody(guildParams, ctx.params);
    const { permissions } = await guildAccess(deps, guildId, requireAuth(ctx).userId);
    requirePermission(permissions, Permission.MANAGE_GUILD);
    ctx.body = await vanityObject(deps, guildId);
  });

  // Create and update both set the code; the spec limits each to 5 per 10 seconds.
  const set = async (ctx: Context) => {
    const meta = actorMeta(ctx);
    const { guildId } = parseBody(guildParams, ctx.params);
    const { code } = parseBody(setSchema, ctx.request.body);
    await setVanityCode(deps, meta, guildId, code);
    ctx.body = await vanityObject(deps, guildId);
  };
  router.post('/guilds/:guildId/vanity-url', rateLimit({ bucket: 'vanity:create', points: 5, durationSeconds: 10 }), set);
  router.patch('/guilds/:guildId/vanity-url', rateLimit({ bucket: 'vanity:update', points: 5, durationSeconds: 10 }), set);

  router.delete('/guilds/:guildId/vanity-url', async (ctx) => {
    const meta = actorMeta(ctx);
    const { guildId } = parseBody(guildParams, ctx.params);
    await setVanityCode(deps, meta, guildId, null);
    noContent(ctx);
  });

  return router;
}
