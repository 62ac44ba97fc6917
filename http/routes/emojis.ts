// Emoji routes of the spec: list and fetch a guild's custom emojis (any member), create them from a data URI or an
// image URL, rename or restrict them to roles, delete them (with purge, their image too). Writes need
// MANAGE_EMOJIS_AND_STICKERS, or CREATE_GUILD_EXPRESSIONS to add emojis and manage one's own. Each route is limited to
// 5 requests a minute per guild, as the spec's Limits table says.
import Router from '@koa/router';
import { createEmoji, deleteEmoji, updateEmoji } from '../../commands/emojis.js';
import { unknownEmoji } from '../../domain/guildExpressions.js';
import type { EmojiDoc } from '../../projections/expressions.js';
import { emojiOfGuild, emojisOfGuild } from '../../projections/expressions.queries.js';
import { emojiObject } from '../../presenters/emojis.js';
import { actorMeta, withUploaders } from '../actor.js';
import { type HttpDeps, noContent } from '../context.js';
import { guildMembersOnly, perGuildLimit } from '../guildLimits.js';
import { readImage } from '../imageInput.js';
import { purgeQuery } from '../params.js';
import { parseBody, parseQuery, snowflakeSchema } from '../validation.js';

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

export function emojiRoutes(deps: HttpDeps): Router {
  const router = new Router();
  const member = guildMembersOnly(deps);
  const limits = {
    list: perGuildLimit('guild-emojis:list', 5, 60),
    create: perGuildLimit('guild-emojis:create', 5, 60),
    update: perGuildLimit('guild-emojis:update', 5, 60),
    delete: perGuildLimit('guild-emojis:delete', 5, 60),
  };
  const origin = () => deps.config.publicBaseUrl;

  /** Emoji objects with their uploaders. */
  const present = (docs: EmojiDoc[]) => withUploaders(deps.readStore, docs, (doc, uploader) => emojiObject(doc, origin(), uploader));

  async function presentOne(guildId: string, emojiId: string) {
    const doc = await emojiOfGuild(deps.readStore, guildId, emojiId);
    if (!doc) throw unknownEmoji();
    return (await present([doc]))[0];
  }

  router.get('/guilds/:guildId/emojis', member, limits.list, async (ctx) => {
    ctx.body = await present(await emojisOfGuild(deps.readStore, ctx.state.memberOfGuild!));
  });

  router.get('/guilds/:guildId/emojis/:emojiId', member, async (ctx) => {
    const { guildId, emojiId } = parseBody(emojiParams, ctx.params);
    ctx.body = await presentOne(guildId, emojiId);
  });

  router.post('/guilds/:guildId/emojis', member, limits.create, async (ctx) => {
    const guildId = ctx.state.memberOfGuild!;
    const body = parseBody(createEmojiSchema, ctx.request.body);
    const image = () => readImage(deps, body.image, 'image', { maxBytes: MAX_EMOJI_BYTES, url: true });
    const emoji = await createEmoji(deps, actorMeta(ctx), guildId, { name: body.name, image, roles: body.roles ?? undefined });
    ctx.status = 201;
    ctx.body = await presentOne(guildId, emoji.id);
  });

  router.patch('/guilds/:guildId/emojis/:emojiId', member, limits.update, async (ctx) => {
    const { guildId, emojiId } = parseBody(emojiParams, ctx.params);
    const body = parseBody(updateEmojiSchema, ctx.request.body);
    // null roles: everyone may use it again.
    await updateEmoji(deps, actorMeta(ctx), guildId, emojiId, { name: body.name, roles: body.roles === null ? [] : body.roles });
    ctx.body = await presentOne(guildId, emojiId);
  });

  router.delete('/guilds/:guildId/emojis/:emojiId', member, limits.delete, async (ctx) => {
    const { guildId, emojiId } = parseBody(emojiParams, ctx.params);
    const { purge } = parseQuery(purgeQuery, ctx.query);
    await deleteEmoji(deps, actorMeta(ctx), guildId, emojiId, purge);
    noContent(ctx);
  });

  return router;
}
