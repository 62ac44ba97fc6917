// Channel routes: a guild's channels (list, create, reorder), one channel (fetch, update, delete) and its permission
// overwrites. Channels the caller cannot see answer 404 and are left out of lists.
import { Channel } from '../../contracts/channels.js';
import { list } from '../../contracts/schema.js';
import {
  type ChannelInput,
  channelDocOf,
  createChannel,
  deleteChannel,
  deleteChannelOverwrite,
  moveChannels,
  readChannel,
  readChannels,
  setChannelOverwrite,
  updateChannel,
} from '../../commands/channels.js';
import { GUILD_CHANNEL_TYPE_NUMBERS } from '../../domain/channel.js';
import { invalidForm } from '../../domain/errors.js';
import { MAX_FORUM_TAGS } from '../../domain/forum.js';
import { channelById } from '../../projections/channels.queries.js';
import { actorMeta } from '../actor.js';
import { requireAuth } from '../auth.js';
import type { HttpDeps } from '../context.js';
import { channelParams, guildParams } from '../params.js';
import { channelObject } from '../../presenters/channels.js';
import { passOn, route } from '../route.js';
import { channelAnswer, deleteChannelOperation, getChannelOperation, renameSchema, updateChannelOperation } from '../shared/channels.js';
import { bitfieldSchema, type FromSchema, MAX_INT32, nameSchema, nullableSnowflakeSchema, parseBody, snowflakeSchema } from '../validation.js';

const overwriteSchema = {
  type: 'object',
  properties: { id: snowflakeSchema, type: { type: 'integer', enum: [0, 1] }, allow: bitfieldSchema, deny: bitfieldSchema },
  required: ['id', 'type'],
  additionalProperties: false,
} as const;

const emojiFields = { emoji_id: nullableSnowflakeSchema, emoji_name: { type: ['string', 'null'], minLength: 1, maxLength: 100 } } as const;
const emojiSchema = { type: 'object', properties: emojiFields, additionalProperties: false } as const;
/** A forum's tag: one without an id, or with one that is not the channel's, is a new tag (its id minted here). */
const tagSchema = {
  type: 'object',
  properties: { id: snowflakeSchema, name: nameSchema(1, 20), moderated: { type: 'boolean' }, ...emojiFields },
  required: ['name'],
  additionalProperties: false,
} as const;

const channelFieldsSchema = {
  name: nameSchema(1, 100),
  type: { type: 'integer', enum: GUILD_CHANNEL_TYPE_NUMBERS },
  position: { type: ['integer', 'null'], minimum: 0, maximum: MAX_INT32 },
  // Up to 4096 for a forum's or media channel's guidelines, 1024 for other types (domain/channel.ts).
  topic: { type: ['string', 'null'], maxLength: 4096 },
  nsfw: { type: 'boolean' },
  rate_limit_per_user: { type: 'integer', minimum: 0, maximum: 21600 },
  bitrate: { type: 'integer', minimum: 8000, maximum: 384000 },
  user_limit: { type: 'integer', minimum: 0, maximum: 99 },
  parent_id: nullableSnowflakeSchema,
  rtc_region: { type: ['string', 'null'], maxLength: 32 },
  video_quality_mode: { type: 'integer', enum: [1, 2] },
  default_auto_archive_duration: { type: 'integer', enum: [60, 1440, 4320, 10080] },
  permission_overwrites: { type: 'array', items: overwriteSchema, maxItems: 100 },
  available_tags: { type: 'array', items: tagSchema, maxItems: MAX_FORUM_TAGS },
  default_reaction_emoji: { anyOf: [emojiSchema, { type: 'null' }] },
  default_thread_rate_limit_per_user: { type: 'integer', minimum: 0, maximum: 21600 },
  default_sort_order: { type: ['integer', 'null'], enum: [0, 1, null] },
  default_forum_layout: { type: 'integer', enum: [0, 1, 2] },
  // REQUIRE_TAG on forums and media channels, HIDE_MEDIA_DOWNLOAD_OPTIONS on the latter (domain/forum.ts).
  flags: { type: 'integer', minimum: 0, maximum: MAX_INT32 },
} as const;

export const createChannelSchema = { type: 'object', properties: channelFieldsSchema, required: ['name'], additionalProperties: false } as const;
export const updateChannelSchema = { type: 'object', properties: channelFieldsSchema, additionalProperties: false } as const;

export const moveChannelsSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      id: snowflakeSchema,
      position: { type: ['integer', 'null'], minimum: 0, maximum: MAX_INT32 },
      parent_id: nullableSnowflakeSchema,
      lock_permissions: { type: ['boolean', 'null'] },
    },
    required: ['id'],
    additionalProperties: false,
  },
  maxItems: 500,
} as const;

export const overwriteParams = {
  type: 'object',
  properties: { channelId: snowflakeSchema, overwriteId: snowflakeSchema },
  required: ['channelId', 'overwriteId'],
} as const;
/** The widely used API's clients repeat the target's id in the body; the path names it. */
export const putOverwriteSchema = { ...overwriteSchema, required: ['type'] } as const;

type Overwrite = FromSchema<typeof overwriteSchema>;
const overwriteInput = (o: Omit<Overwrite, 'id'> & { id: string }) => ({ id: o.id, type: o.type, allow: String(o.allow ?? 0), deny: String(o.deny ?? 0) });

/**
 * The body as the channel use cases take it: bitfields as strings, a null position as "not given", an emoji with both
 * its keys (a forum's tags get their ids in the use case).
 */
function channelInput(body: FromSchema<typeof updateChannelSchema>): ChannelInput {
  const { position, permission_overwrites, available_tags, default_reaction_emoji, ...fields } = body;
  return {
    ...fields,
    position: position ?? undefined,
    permission_overwrites: permission_overwrites?.map(overwriteInput),
    // Absent when not given: a key set to undefined would hide a new channel's default.
    ...(available_tags ? { available_tags } : {}),
    ...(default_reaction_emoji !== undefined
      ? {
          default_reaction_emoji: default_reaction_emoji && {
            emoji_id: default_reaction_emoji.emoji_id ?? null,
            emoji_name: default_reaction_emoji.emoji_name ?? null,
          },
        }
      : {}),
  } as ChannelInput;
}

/** DMs and group DMs share the channels collection; the DM routes, declared after these, answer for them. */
async function isPrivateChannel(deps: HttpDeps, channelId: string) {
  const doc = await channelById(deps.readStore, channelId);
  return doc !== null && doc.guild_id === null;
}

const fetchChannel = async (deps: HttpDeps, channelId: string) => channelObject(await channelDocOf(deps, channelId));

const base = { tag: 'Channels', auth: 'any' } as const;

export const listChannelsRoute = route({
  ...base,
  method: 'GET',
  path: '/guilds/:guildId/channels',
  summary: 'List a guild’s channels',
  description: 'Only the channels the caller can see (VIEW_CHANNEL, overwrites applied).',
  params: guildParams,
  responses: { 200: { description: 'The channels.', schema: list(Channel) } },
  errors: ['UNKNOWN_GUILD'],
  async handle(ctx, { params: { guildId } }, deps) {
    return (await readChannels(deps, guildId, requireAuth(ctx).userId)).map(channelObject);
  },
});

export const createChannelRoute = route({
  ...base,
  method: 'POST',
  path: '/guilds/:guildId/channels',
  summary: 'Create a channel',
  description: 'Needs MANAGE_CHANNELS; overwrites may not grant permissions the caller lacks.',
  params: guildParams,
  body: createChannelSchema,
  audit: 'CHANNEL_CREATE',
  responses: { 201: channelAnswer },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params: { guildId }, body }, deps) {
    const channelId = await createChannel(deps, actorMeta(ctx), guildId, { ...channelInput(body), name: body.name, type: body.type ?? 0 });
    return fetchChannel(deps, channelId);
  },
});

export const moveChannelsRoute = route({
  ...base,
  method: 'PATCH',
  path: '/guilds/:guildId/channels',
  summary: 'Move channels',
  description: 'Needs MANAGE_CHANNELS.',
  params: guildParams,
  body: moveChannelsSchema,
  audit: 'CHANNEL_UPDATE',
  responses: { 204: { description: 'Moved.' } },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  handle: (ctx, { params: { guildId }, body: moves }, deps) => moveChannels(deps, actorMeta(ctx), guildId, moves),
});

// GET, PATCH and DELETE /channels/:channelId answer for guild channels and pass DMs on to http/routes/dms.ts: one
// path, so one operation each in the reference (http/shared/channels.ts), documented here for both.
export const getChannelRoute = route({
  ...base,
  ...getChannelOperation,
  description: 'A guild channel the caller can see, or a DM or group DM they take part in.',
  params: channelParams,
  async handle(ctx, { params: { channelId } }, deps) {
    const userId = requireAuth(ctx).userId;
    if (await isPrivateChannel(deps, channelId)) return passOn;
    return channelObject(await readChannel(deps, channelId, userId));
  },
});

export const updateChannelRoute = route({
  ...base,
  ...updateChannelOperation,
  description: 'A guild channel’s fields (MANAGE_CHANNELS), or a group DM’s name (the first schema for guild channels, the second for group DMs).',
  params: channelParams,
  body: {
    anyOf: [
      { title: 'Guild channel', ...updateChannelSchema },
      { title: 'Group DM', ...renameSchema },
    ],
  },
  // Read with the schema of the channel's kind, once the channel is known to be a guild's.
  readsItself: ['body'],
  audit: 'CHANNEL_UPDATE',
  async handle(ctx, { params: { channelId } }, deps) {
    const meta = actorMeta(ctx);
    if (await isPrivateChannel(deps, channelId)) return passOn;
    const body = parseBody(updateChannelSchema, ctx.request.body);
    await updateChannel(deps, meta, channelId, channelInput(body));
    return fetchChannel(deps, channelId);
  },
});

/** Answers the deleted channel, as the widely used API does. */
export const deleteChannelRoute = route({
  ...base,
  ...deleteChannelOperation,
  description: 'A guild channel needs MANAGE_CHANNELS. Answers the channel as it was.',
  params: channelParams,
  audit: 'CHANNEL_DELETE',
  async handle(ctx, { params: { channelId } }, deps) {
    const meta = actorMeta(ctx);
    if (await isPrivateChannel(deps, channelId)) return passOn;
    const doc = await readChannel(deps, channelId, meta.actorId);
    const deleted = channelObject(doc);
    await deleteChannel(deps, meta, doc.guild_id, channelId);
    return deleted;
  },
});

export const setOverwriteRoute = route({
  ...base,
  method: 'PUT',
  path: '/channels/:channelId/permissions/:overwriteId',
  summary: 'Set a permission overwrite',
  description: 'For a role (type 0) or a member (type 1). Needs MANAGE_ROLES; may not grant permissions the caller lacks.',
  params: overwriteParams,
  body: putOverwriteSchema,
  audit: 'CHANNEL_UPDATE',
  responses: { 204: { description: 'Set.' } },
  errors: ['UNKNOWN_CHANNEL', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params: { channelId, overwriteId }, body }, deps) {
    const meta = actorMeta(ctx);
    if (body.id !== undefined && body.id !== overwriteId) throw invalidForm([{ path: 'id', message: 'Must be the overwrite id of the path' }]);
    await setChannelOverwrite(deps, meta, channelId, overwriteInput({ ...body, id: overwriteId }));
  },
});

export const deleteOverwriteRoute = route({
  ...base,
  method: 'DELETE',
  path: '/channels/:channelId/permissions/:overwriteId',
  summary: 'Delete a permission overwrite',
  params: overwriteParams,
  audit: 'CHANNEL_UPDATE',
  responses: { 204: { description: 'Deleted.' } },
  errors: ['UNKNOWN_CHANNEL', 'MISSING_PERMISSIONS'],
  handle: (ctx, { params: { channelId, overwriteId } }, deps) => deleteChannelOverwrite(deps, actorMeta(ctx), channelId, overwriteId),
});

export const channelRoutes = [
  listChannelsRoute,
  createChannelRoute,
  moveChannelsRoute,
  getChannelRoute,
  updateChannelRoute,
  deleteChannelRoute,
  setOverwriteRoute,
  deleteOverwriteRoute,
];
