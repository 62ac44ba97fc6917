// Guild routes of the spec: create, fetch, update and delete guilds; the caller's guild list and leaving a guild.
import Router from '@koa/router';
import type { Context } from 'koa';
import { guildAccess, loadGuild } from '../../commands/access.js';
import { type GuildImageField, createGuild, deleteGuild, runGuildCommand, updateGuild } from '../../commands/guilds.js';
import { guildPermissions, unknownGuild } from '../../domain/guildState.js';
import { emojisOfGuild, stickersOfGuild } from '../../projections/expressions.queries.js';
import type { GuildDoc } from '../../projections/guilds.js';
import { guildById, guildsByIds, rolesOfGuild } from '../../projections/guilds.queries.js';
import { membershipsPage } from '../../projections/members.queries.js';
import { actorMeta } from '../actor.js';
import { type ScopedRoute, requireAuth } from '../auth.js';
import { type HttpDeps, noContent } from '../context.js';
import { guildParams } from '../params.js';
import { guildObject, partialGuild } from '../../presenters/guilds.js';
import { rateLimit } from '../rateLimit.js';
import { nameSchema, nullableSnowflakeSchema, pageLimit, parseBody, parseQuery, snowflakeSchema } from '../validation.js';

const guildName = nameSchema(2, 100);

export const createGuildSchema = {
  type: 'object',
  properties: { name: guildName, icon: { type: ['string', 'null'] } },
  required: ['name'],
  additionalProperties: false,
} as const;

/** A guild image: a data URI, or null to remove it. */
const guildImage = { type: ['string', 'null'] } as const;

export const updateGuildSchema = {
  type: 'object',
  properties: {
    name: guildName,
    icon: guildImage,
    banner: guildImage,
    splash: guildImage,
    discovery_splash: guildImage,
    description: { type: ['string', 'null'], maxLength: 120 },
    owner_id: snowflakeSchema,
    verification_level: { type: 'integer', minimum: 0, maximum: 4 },
    default_message_notifications: { type: 'integer', minimum: 0, maximum: 1 },
    explicit_content_filter: { type: 'integer', minimum: 0, maximum: 2 },
    afk_channel_id: nullableSnowflakeSchema,
    afk_timeout: { type: 'integer', enum: [60, 300, 900, 1800, 3600] },
    system_channel_id: nullableSnowflakeSchema,
    system_channel_flags: { type: 'integer', minimum: 0, maximum: 255 },
    preferred_locale: { type: 'string', minLength: 2, maxLength: 10 },
  },
  additionalProperties: false,
} as const;

export const myGuildsQuery = {
  type: 'object',
  properties: {
    before: snowflakeSchema,
    after: snowflakeSchema,
    limit: pageLimit(200, 200),
    with_counts: { type: 'boolean' },
  },
} as const;

/** The guild object for a guild the read models show (the caller's own write is settled before this reads). */
async function fetchGuildObject(deps: HttpDeps, guildId: string) {
  const [guild, roles, emojis, stickers] = await Promise.all([
    guildById(deps.readStore, guildId),
    rolesOfGuild(deps.readStore, guildId),
    emojisOfGuild(deps.readStore, guildId),
    stickersOfGuild(deps.readStore, guildId),
  ]);
  if (!guild) throw unknownGuild();
  return guildObject(guild, roles, { emojis, stickers, origin: deps.config.publicBaseUrl });
}

/** What an OAuth2 access token may read here (until these routes are entries of http/route.ts, which derives it). */
export const GUILD_SCOPES: ScopedRoute[] = [{ path: /^\/users\/@me\/guilds\/?$/i, scope: 'guilds' }];

export function guildRoutes(deps: HttpDeps): Router {
  const router = new Router();
  // The spec states the users routes' limit as a group: 5 per second per token, burst 10.
  const usersGroup = rateLimit({ bucket: 'users:@me:guilds', points: 5, durationSeconds: 1, burst: 5, burstSeconds: 10 });

  router.post('/guilds', async (ctx) => {
    const meta = actorMeta(ctx);
    const body = parseBody(createGuildSchema, ctx.request.body);
    const icon = body.icon ? await deps.images.parseDataUri(body.icon, 'icon') : null;
    const guildId = await createGuild(deps, meta, { name: body.name, icon });
    ctx.status = 201;
    ctx.body = await fetchGuildObject(deps, guildId);
  });

  router.get('/guilds/:guildId', async (ctx) => {
    const { guildId } = parseBody(guildParams, ctx.params);
    await guildAccess(deps, guildId, requireAuth(ctx).userId);
    ctx.body = await fetchGuildObject(deps, guildId);
  });

  router.patch('/guilds/:guildId', async (ctx) => {
    const meta = actorMeta(ctx);
    const { guildId } = parseBody(guildParams, ctx.params);
    const { icon, banner, splash, discovery_splash, ...settings } = parseBody(updateGuildSchema, ctx.request.body);
    const given = Object.entries({ icon, banner, splash, discovery_splash }).filter(([, value]) => value !== undefined) as [GuildImageField, string | null][];
    // The discovery (embed) splash is a still image, as the spec's CDN table lists its formats.
    const read = (field: GuildImageField, value: string) => deps.images.parseDataUri(value, field, field === 'discovery_splash' ? ['png', 'jpeg', 'webp'] : undefined);
    const images = Object.fromEntries(await Promise.all(given.map(async ([field, value]) => [field, value === null ? null : await read(field, value)])));
    await updateGuild(deps, meta, guildId, settings, images);
    ctx.body = await fetchGuildObject(deps, guildId);
  });

  // The spec's POST /guilds/:id/delete, and the widely used API's DELETE /guilds/:id that its clients send.
  async function remove(ctx: Context) {
    const meta = actorMeta(ctx);
    const { guildId } = parseBody(guildParams, ctx.params);
    await deleteGuild(deps, meta, guildId);
    noContent(ctx);
  }
  router.post('/guilds/:guildId/delete', remove);
  router.delete('/guilds/:guildId', remove);

  router.get('/users/@me/guilds', usersGroup, async (ctx) => {
    const userId = requireAuth(ctx).userId;
    const query = parseQuery(myGuildsQuery, ctx.query);
    const memberships = await membershipsPage(deps.readStore, userId, query);
    const guilds = await guildsByIds(deps.readStore, memberships.map((m) => m.guild_id));
    // Presences are not tracked yet (GUILD_CREATE's presences are empty too), so no member counts as present.
    const counts = (guild: GuildDoc) => (query.with_counts ? { approximate_member_count: guild.member_count, approximate_presence_count: 0 } : {});
    ctx.body = await Promise.all(
      guilds.map(async (guild) => ({ ...partialGuild(guild, userId, guildPermissions(await loadGuild(deps, guild._id), userId)), ...counts(guild) })),
    );
  });

  router.delete('/users/@me/guilds/:guildId', usersGroup, async (ctx) => {
    const meta = actorMeta(ctx);
    const { guildId } = parseBody(guildParams, ctx.params);
    await runGuildCommand(deps, meta, guildId, { type: 'LeaveGuild', userId: meta.actorId });
    noContent(ctx);
  });

  return router;
}
