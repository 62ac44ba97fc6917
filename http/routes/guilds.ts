// Guild routes of the spec: create, fetch, update and delete guilds; the caller's guild list and leaving a guild.
import { Guild, PartialGuild } from '../../contracts/guilds.js';
import { list } from '../../contracts/schema.js';
import { loadGuild } from '../../commands/access.js';
import { type GuildImageField, type GuildView, createGuild, deleteGuild, guildViewOf, leaveGuild, readGuild, updateGuild } from '../../commands/guilds.js';
import { guildPermissions } from '../../domain/guildState.js';
import type { GuildDoc } from '../../projections/guilds.js';
import { guildsByIds } from '../../projections/guilds.queries.js';
import { membershipsPage } from '../../projections/members.queries.js';
import { actorMeta } from '../actor.js';
import { requireAuth } from '../auth.js';
import type { HttpDeps } from '../context.js';
import { guildParams } from '../params.js';
import { guildObject, partialGuild } from '../../presenters/guilds.js';
import type { LimitSpec } from '../rateLimit.js';
import { route } from '../route.js';
import { nameSchema, nullableSnowflakeSchema, pageLimit, snowflakeSchema } from '../validation.js';

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
const presentGuild = (deps: HttpDeps, { guild, roles, emojis, stickers }: GuildView) =>
  guildObject(guild, roles, { emojis, stickers, origin: deps.config.publicBaseUrl });

const guild = { description: 'The guild.', schema: Guild };

export const createGuildRoute = route({
  method: 'POST',
  path: '/guilds',
  summary: 'Create a guild',
  description: 'The caller owns it; it starts with an @everyone role and a #general text channel, its system channel. `icon` is a data URI.',
  tag: 'Guilds',
  auth: 'any',
  body: createGuildSchema,
  responses: { 201: guild },
  errors: [],
  async handle(ctx, { body }, deps) {
    const icon = body.icon ? await deps.images.parseDataUri(body.icon, 'icon') : null;
    return presentGuild(deps, await guildViewOf(deps, await createGuild(deps, actorMeta(ctx), { name: body.name, icon })));
  },
});

export const getGuildRoute = route({
  method: 'GET',
  path: '/guilds/:guildId',
  summary: 'Get a guild',
  tag: 'Guilds',
  auth: 'any',
  params: guildParams,
  responses: { 200: guild },
  errors: ['UNKNOWN_GUILD'],
  async handle(ctx, { params: { guildId } }, deps) {
    return presentGuild(deps, await readGuild(deps, guildId, requireAuth(ctx).userId));
  },
});

export const updateGuildRoute = route({
  method: 'PATCH',
  path: '/guilds/:guildId',
  summary: 'Change a guild',
  description: 'Needs MANAGE_GUILD; `owner_id` only the owner may change.',
  tag: 'Guilds',
  auth: 'any',
  params: guildParams,
  body: updateGuildSchema,
  audit: 'GUILD_UPDATE',
  responses: { 200: guild },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params: { guildId }, body: { icon, banner, splash, discovery_splash, ...settings } }, deps) {
    const given = Object.entries({ icon, banner, splash, discovery_splash }).filter(([, value]) => value !== undefined) as [GuildImageField, string | null][];
    // The discovery (embed) splash is a still image, as the spec's CDN table lists its formats.
    const read = (field: GuildImageField, value: string) =>
      deps.images.parseDataUri(value, field, field === 'discovery_splash' ? ['png', 'jpeg', 'webp'] : undefined);
    const images = Object.fromEntries(await Promise.all(given.map(async ([field, value]) => [field, value === null ? null : await read(field, value)])));
    await updateGuild(deps, actorMeta(ctx), guildId, settings, images);
    return presentGuild(deps, await guildViewOf(deps, guildId));
  },
});

/** The spec's POST /guilds/:id/delete, and the widely used API's DELETE /guilds/:id that its clients send. */
const deleteGuildAt = (method: 'DELETE' | 'POST', path: string, summary: string) =>
  route({
    method,
    path,
    summary,
    description: 'Only its owner may.',
    tag: 'Guilds',
    auth: 'any',
    params: guildParams,
    responses: { 204: { description: 'Deleted.' } },
    errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
    handle: (ctx, { params }, deps) => deleteGuild(deps, actorMeta(ctx), params.guildId),
  });

export const deleteGuildRoute = deleteGuildAt('DELETE', '/guilds/:guildId', 'Delete a guild');
export const deleteGuildSpecRoute = deleteGuildAt('POST', '/guilds/:guildId/delete', 'Delete a guild (the spec’s form)');

// The spec states the users routes' limit as a group: 5 per second per token, burst 10.
const usersGroup: LimitSpec = { bucket: 'users:@me:guilds', points: 5, durationSeconds: 1, burst: 5, burstSeconds: 10 };

export const myGuildsRoute = route({
  method: 'GET',
  path: '/users/@me/guilds',
  summary: 'List the current user’s guilds',
  tag: 'Users',
  auth: 'any',
  scope: 'guilds',
  query: myGuildsQuery,
  limits: [usersGroup],
  responses: { 200: { description: 'The caller’s guilds, by id.', schema: list(PartialGuild) } },
  errors: [],
  async handle(ctx, { query }, deps) {
    const userId = requireAuth(ctx).userId;
    const memberships = await membershipsPage(deps.readStore, userId, query);
    const guilds = await guildsByIds(
      deps.readStore,
      memberships.map((m) => m.guild_id),
    );
    // Presences are not tracked yet (GUILD_CREATE's presences are empty too), so no member counts as present.
    const counts = (guild: GuildDoc) => (query.with_counts ? { approximate_member_count: guild.member_count, approximate_presence_count: 0 } : {});
    return Promise.all(
      guilds.map(async (guild) => ({ ...partialGuild(guild, userId, guildPermissions(await loadGuild(deps, guild._id), userId)), ...counts(guild) })),
    );
  },
});

export const leaveGuildRoute = route({
  method: 'DELETE',
  path: '/users/@me/guilds/:guildId',
  summary: 'Leave a guild',
  tag: 'Users',
  auth: 'any',
  params: guildParams,
  limits: [usersGroup],
  responses: { 204: { description: 'Left.' } },
  errors: ['UNKNOWN_GUILD', 'OWNER_CANNOT_LEAVE'],
  handle: (ctx, { params: { guildId } }, deps) => leaveGuild(deps, actorMeta(ctx), guildId),
});

/** In the order the reference shows them; none of their paths overlaps another's. */
export const guildRoutes = [createGuildRoute, getGuildRoute, updateGuildRoute, deleteGuildRoute, deleteGuildSpecRoute, myGuildsRoute, leaveGuildRoute];
