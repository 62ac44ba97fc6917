// Emoji routes of the spec: list and fetch a guild's custom emojis (any member), create them from a data URI or an
// image URL, rename or restrict them to roles, delete them (with purge, their image too). Writes need
// MANAGE_EMOJIS_AND_STICKERS, or CREATE_GUILD_EXPRESSIONS to add emojis and manage one's own. Each route is limited to
// 5 requests a minute per guild, as the spec's Limits table says.
// Only members of the guild reach a route (guildMembersOnly), so nobody outside it spends its buckets.
import { Emoji } from '../../contracts/expressions.js';
import { list } from '../../contracts/schema.js';
import { createEmoji, deleteEmoji, updateEmoji } from '../../commands/emojis.js';
import { unknownEmoji } from '../../domain/guildExpressions.js';
import type { EmojiDoc } from '../../projections/expressions.js';
import { emojiOfGuild, emojisOfGuild } from '../../projections/expressions.queries.js';
import { emojiObject } from '../../presenters/emojis.js';
import { actorMeta, withUploaders } from '../actor.js';
import type { HttpDeps } from '../context.js';
import { guildMembersOnly, perGuildLimit } from '../guildLimits.js';
import { readImage } from '../imageInput.js';
import { guildParams, purgeQuery } from '../params.js';
import { route } from '../route.js';
import { snowflakeSchema } from '../validation.js';

/** The widely used API's largest emoji image. */
const MAX_EMOJI_BYTES = 256 * 1024;

/** Emoji names as the widely used API takes them: 2-32 letters, digits and underscores. */
const emojiName = { type: 'string', minLength: 2, maxLength: 32, pattern: '^[A-Za-z0-9_]+$' } as const;
const emojiRoles = { type: ['array', 'null'], items: snowflakeSchema, maxItems: 250 } as const;

export const emojiParams = { type: 'object', properties: { guildId: snowflakeSchema, emojiId: snowflakeSchema }, required: ['guildId', 'emojiId'] } as const;

export const createEmojiSchema = {
  type: 'object',
  properties: { name: emojiName, image: { type: 'string', minLength: 1 }, roles: emojiRoles },
  required: ['name', 'image'],
  additionalProperties: false,
} as const;

export const updateEmojiSchema = { type: 'object', properties: { name: emojiName, roles: emojiRoles }, additionalProperties: false } as const;

/** Emoji objects with their uploaders. */
const present = (deps: HttpDeps, docs: EmojiDoc[]) =>
  withUploaders(deps.readStore, docs, (doc, uploader) => emojiObject(doc, deps.config.publicBaseUrl, uploader));

async function presentOne(deps: HttpDeps, guildId: string, emojiId: string) {
  const doc = await emojiOfGuild(deps.readStore, guildId, emojiId);
  if (!doc) throw unknownEmoji();
  return (await present(deps, [doc]))[0];
}

const emoji = { description: 'The emoji, with its uploader.', schema: Emoji };
const base = { tag: 'Expressions', auth: 'any', guards: [guildMembersOnly] } as const;
const WRITE = 'Needs MANAGE_EMOJIS_AND_STICKERS, or CREATE_GUILD_EXPRESSIONS for one’s own. 5 a minute per guild.';

export const listEmojisRoute = route({
  ...base,
  method: 'GET',
  path: '/guilds/:guildId/emojis',
  summary: 'List a guild’s emojis',
  description: '5 a minute per guild.',
  params: guildParams,
  limits: [perGuildLimit('guild-emojis:list', 5, 60)],
  responses: { 200: { description: 'The emojis.', schema: list(Emoji) } },
  errors: ['UNKNOWN_GUILD'],
  handle: async (_ctx, { params: { guildId } }, deps) => present(deps, await emojisOfGuild(deps.readStore, guildId)),
});

export const getEmojiRoute = route({
  ...base,
  method: 'GET',
  path: '/guilds/:guildId/emojis/:emojiId',
  summary: 'Get an emoji',
  params: emojiParams,
  responses: { 200: emoji },
  errors: ['UNKNOWN_GUILD', 'UNKNOWN_EMOJI'],
  handle: (_ctx, { params }, deps) => presentOne(deps, params.guildId, params.emojiId),
});

export const createEmojiRoute = route({
  ...base,
  method: 'POST',
  path: '/guilds/:guildId/emojis',
  summary: 'Create an emoji',
  description: `\`image\` is a data URI or an https URL, at most 256 KiB. ${WRITE}`,
  params: guildParams,
  body: createEmojiSchema,
  limits: [perGuildLimit('guild-emojis:create', 5, 60)],
  audit: 'EMOJI_CREATE',
  responses: { 201: emoji },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS', 'MAXIMUM_EMOJIS_REACHED'],
  async handle(ctx, { params: { guildId }, body }, deps) {
    const image = () => readImage(deps, body.image, 'image', { maxBytes: MAX_EMOJI_BYTES, url: true });
    const created = await createEmoji(deps, actorMeta(ctx), guildId, { name: body.name, image, roles: body.roles ?? undefined });
    return presentOne(deps, guildId, created.id);
  },
});

export const updateEmojiRoute = route({
  ...base,
  method: 'PATCH',
  path: '/guilds/:guildId/emojis/:emojiId',
  summary: 'Change an emoji',
  description: `\`roles\` null lets everyone use it again. ${WRITE}`,
  params: emojiParams,
  body: updateEmojiSchema,
  limits: [perGuildLimit('guild-emojis:update', 5, 60)],
  audit: 'EMOJI_UPDATE',
  responses: { 200: emoji },
  errors: ['UNKNOWN_GUILD', 'UNKNOWN_EMOJI', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params: { guildId, emojiId }, body }, deps) {
    // null roles: everyone may use it again.
    await updateEmoji(deps, actorMeta(ctx), guildId, emojiId, { name: body.name, roles: body.roles === null ? [] : body.roles });
    return presentOne(deps, guildId, emojiId);
  },
});

export const deleteEmojiRoute = route({
  ...base,
  method: 'DELETE',
  path: '/guilds/:guildId/emojis/:emojiId',
  summary: 'Delete an emoji',
  description: `With \`purge\`, its image too. ${WRITE}`,
  params: emojiParams,
  query: purgeQuery,
  limits: [perGuildLimit('guild-emojis:delete', 5, 60)],
  audit: 'EMOJI_DELETE',
  responses: { 204: { description: 'Deleted.' } },
  errors: ['UNKNOWN_GUILD', 'UNKNOWN_EMOJI', 'MISSING_PERMISSIONS'],
  handle: (ctx, { params: { guildId, emojiId }, query }, deps) => deleteEmoji(deps, actorMeta(ctx), guildId, emojiId, query.purge),
});

export const emojiRoutes = [listEmojisRoute, getEmojiRoute, createEmojiRoute, updateEmojiRoute, deleteEmojiRoute];
