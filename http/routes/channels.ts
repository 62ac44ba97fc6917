// Channel routes: a guild's channels (list, create, reorder), one channel (fetch, update, delete) and its permission
// overwrites. Channels the caller cannot see answer 404 and are left out of lists.
import Router from '@koa/router';
import { canViewChannel, channelAccess, guildAccess } from '../../commands/access.js';
import { deleteChannel, runGuildCommand } from '../../commands/guilds.js';
import { type ChannelFields, GUILD_CHANNEL_TYPE_NUMBERS } from '../../domain/channel.js';
import { invalidForm } from '../../domain/errors.js';
import { unknownChannel } from '../../domain/guildState.js';
import { channelById, channelsOfGuild } from '../../projections/channels.queries.js';
import { actorMeta } from '../actor.js';
import { requireAuth } from '../auth.js';
import { type HttpDeps, noContent } from '../context.js';
import { channelParams, guildParams } from '../params.js';
import { channelObject } from '../../presenters/channels.js';
import { bitfieldSchema, type FromSchema, MAX_INT32, nameSchema, nullableSnowflakeSchema, parseBody, snowflakeSchema } from '../validation.js';

const overwriteSchema = {
  type: 'object',
  properties: { id: snowflakeSchema, type: { type: 'integer', enum: [0, 1] }, allow: bitfieldSchema, deny: bitfieldSchema },
  required: ['id', 'type'],
  additionalProperties: false,
} as const;

const channelFieldsSchema = {
  name: nameSchema(1, 100),
  type: { type: 'integer', enum: GUILD_CHANNEL_TYPE_NUMBERS },
  position: { type: ['integer', 'null'], minimum: 0, maximum: MAX_INT32 },
  topic: { type: ['string', 'null'], maxLength: 1024 },
  nsfw: { type: 'boolean' },
  rate_limit_per_user: { type: 'integer', minimum: 0, maximum: 21600 },
  bitrate: { type: 'integer', minimum: 8000, maximum: 384000 },
  user_limit: { type: 'integer', minimum: 0, maximum: 99 },
  parent_id: nullableSnowflakeSchema,
  rtc_region: { type: ['string', 'null'], maxLength: 32 },
  video_quality_mode: { type: 'integer', enum: [1, 2] },
  default_auto_archive_duration: { type: 'integer', enum: [60, 1440, 4320, 10080] },
  permission_overwrites: { type: 'array', items: overwriteSchema, maxItems: 100 },
} as const;

export const createChannelSchema = { type: 'object', properties: channelFieldsSchema, required: ['name'], additionalProperties: false } as const;
export const updateChannelSchema = { type: 'object', properties: channelFieldsSchema, additionalProperties: false } as const;

export const moveChannelsSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: { id: snowflakeSchema, position: { type: ['integer', 'null'], minimum: 0, maximum: MAX_INT32 }, parent_id: nullableSnowflakeSchema, lock_permissions: { type: ['boolean', 'null'] } },
    required: ['id'],
    additionalProperties: false,
  },
  maxItems: 500,
} as const;

export const overwriteParams = { type: 'object', properties: { channelId: snowflakeSchema, overwriteId: snowflakeSchema }, required: ['channelId', 'overwriteId'] } as const;
/** The widely used API's clients repeat the target's id in the body; the path names it. */
export const putOverwriteSchema = { ...overwriteSchema, required: ['type'] } as const;

type Overwrite = FromSchema<typeof overwriteSchema>;
const overwriteInput = (o: Omit<Overwrite, 'id'> & { id: string }) => ({ id: o.id, type: o.type, allow: String(o.allow ?? 0), deny: String(o.deny ?? 0) });

/** The body as domain fields: bitfields as strings, a null position as "not given". */
function channelFields(body: FromSchema<typeof updateChannelSchema>): ChannelFields {
  const { position, permission_overwrites, ...fields } = body;
  return { ...fields, position: position ?? undefined, permission_overwrites: permission_overwrites?.map(overwriteInput) } as ChannelFields;
}

export function channelRoutes(deps: HttpDeps): Router {
  const router = new Router();

  /** DMs and group DMs share the channels collection; the DM routes, registered after these, answer for them. */
  async function isPrivateChannel(channelId: string) {
    const doc = await channelById(deps.readStore, channelId);
    return doc !== null && doc.guild_id === null;
  }

  async function fetchChannel(channelId: string) {
    const doc = await channelById(deps.readStore, channelId);
    if (!doc) throw unknownChannel();
    return channelObject(doc);
  }

  router.get('/guilds/:guildId/channels', async (ctx) => {
    const { guildId } = parseBody(guildParams, ctx.params);
    const userId = requireAuth(ctx).userId;
    const { guild } = await guildAccess(deps, guildId, userId);
    const docs = await channelsOfGuild(deps.readStore, guildId);
    ctx.body = docs.filter((doc) => canViewChannel(guild, userId, doc._id)).map(channelObject);
  });

  router.post('/guilds/:guildId/channels', async (ctx) => {
    const meta = actorMeta(ctx);
    const { guildId } = parseBody(guildParams, ctx.params);
    const body = parseBody(createChannelSchema, ctx.request.body);
    const channelId = deps.ids.next();
    const fields = { ...channelFields(body), name: body.name, type: body.type ?? 0 };
    await runGuildCommand(deps, meta, guildId, { type: 'CreateChannel', actorId: meta.actorId, channelId, fields });
    ctx.status = 201;
    ctx.body = await fetchChannel(channelId);
  });

  router.patch('/guilds/:guildId/channels', async (ctx) => {
    const meta = actorMeta(ctx);
    const { guildId } = parseBody(guildParams, ctx.params);
    const moves = parseBody(moveChannelsSchema, ctx.request.body);
    await runGuildCommand(deps, meta, guildId, { type: 'MoveChannels', actorId: meta.actorId, moves });
    noContent(ctx);
  });

  router.get('/channels/:channelId', async (ctx, next) => {
    const userId = requireAuth(ctx).userId;
    const { channelId } = parseBody(channelParams, ctx.params);
    if (await isPrivateChannel(channelId)) return next();
    await channelAccess(deps, channelId, userId);
    ctx.body = await fetchChannel(channelId);
  });

  router.patch('/channels/:channelId', async (ctx, next) => {
    const meta = actorMeta(ctx);
    const { channelId } = parseBody(channelParams, ctx.params);
    if (await isPrivateChannel(channelId)) return next();
    const fields = channelFields(parseBody(updateChannelSchema, ctx.request.body));
    const { guildId } = await channelAccess(deps, channelId, meta.actorId);
    await runGuildCommand(deps, meta, guildId, { type: 'UpdateChannel', actorId: meta.actorId, channelId, fields });
    ctx.body = await fetchChannel(channelId);
  });

  /** Answers the deleted channel, as the widely used API does. */
  router.delete('/channels/:channelId', async (ctx, next) => {
    const meta = actorMeta(ctx);
    const { channelId } = parseBody(channelParams, ctx.params);
    if (await isPrivateChannel(channelId)) return next();
    const { guildId } = await channelAccess(deps, channelId, meta.actorId);
    const deleted = await fetchChannel(channelId);
    await deleteChannel(deps, meta, guildId, channelId);
    ctx.body = deleted;
  });

  router.put('/channels/:channelId/permissions/:overwriteId', async (ctx) => {
    const meta = actorMeta(ctx);
    const { channelId, overwriteId } = parseBody(overwriteParams, ctx.params);
    const body = parseBody(putOverwriteSchema, ctx.request.body);
    if (body.id !== undefined && body.id !== overwriteId) throw invalidForm([{ path: 'id', message: 'Must be the overwrite id of the path' }]);
    const { guildId } = await channelAccess(deps, channelId, meta.actorId);
    await runGuildCommand(deps, meta, guildId, { type: 'SetChannelOverwrite', actorId: meta.actorId, channelId, overwrite: overwriteInput({ ...body, id: overwriteId }) });
    noContent(ctx);
  });

  router.delete('/channels/:channelId/permissions/:overwriteId', async (ctx) => {
    const meta = actorMeta(ctx);
    const { channelId, overwriteId } = parseBody(overwriteParams, ctx.params);
    const { guildId } = await channelAccess(deps, channelId, meta.actorId);
    await runGuildCommand(deps, meta, guildId, { type: 'DeleteChannelOverwrite', actorId: meta.actorId, channelId, overwriteId });
    noContent(ctx);
  });

  return router;
}
