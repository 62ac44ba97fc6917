// Sticker routes of the spec: create one (JSON with a data URI, or the widely used API's form with a `file` part, as
// discord.js sends it) or up to ten at once, list a page with the total (on the widely used API's versions, all of
// them as a plain array: http/apiVersions.ts), fetch, change and delete (with purge, the image too). Images are PNG
// or WebP of at most 500 KB, checked by decoding them. Writes need MANAGE_EMOJIS_AND_STICKERS, or
// CREATE_GUILD_EXPRESSIONS to add stickers and manage one's own. Limits per guild, as the spec's table says: create,
// update and delete 5 per 10 s each, bulk 3 a minute, list 10 a minute.
import Router from '@koa/router';
import type { Context } from 'koa';
import { type StickerInput, createStickers, deleteSticker, updateSticker } from '../../commands/stickers.js';
import { DomainError, type FieldError, invalidForm } from '../../domain/errors.js';
import { MAX_STICKERS, maxStickersReached, unknownSticker } from '../../domain/guildExpressions.js';
import type { StickerDoc } from '../../projections/expressions.js';
import { stickerOfGuild, stickersPage } from '../../projections/expressions.queries.js';
import { stickerObject } from '../../presenters/stickers.js';
import { actorMeta, withUploaders } from '../actor.js';
import { versionOf } from '../apiVersions.js';
import { type HttpDeps, noContent } from '../context.js';
import { guildMembersOnly, perGuildLimit } from '../guildLimits.js';
import { type ImageRules, readImage } from '../imageInput.js';
import { isMultipart, readFormBody } from '../multipart.js';
import { purgeQuery } from '../params.js';
import { nameSchema, pageLimit, parseBody, parseQuery, queryInteger, snowflakeSchema } from '../validation.js';

/** The spec's sticker image: WebP or PNG, at most 500 KB. */
const STICKER_IMAGE: ImageRules = { allowed: ['png', 'webp'], maxBytes: 500 * 1024 };
/** The most stickers one bulk request may create. */
const MAX_BULK_STICKERS = 10;

const stickerFields = {
  name: nameSchema(1, 30),
  description: { type: 'string', maxLength: 100 },
  // One comma-separated string, with at least one tag in it.
  tags: { type: 'string', maxLength: 200, pattern: '[^,\\s]' },
} as const;
const stickerImage = { type: 'string', minLength: 1 } as const;

export const stickerParams = { type: 'object', properties: { guildId: snowflakeSchema, stickerId: snowflakeSchema }, required: ['guildId', 'stickerId'] } as const;

export const createStickerSchema = {
  type: 'object',
  properties: { ...stickerFields, image: stickerImage },
  required: ['name', 'description', 'tags', 'image'],
  additionalProperties: false,
} as const;

/** The widely used API's form: the same fields, the image as a `file` part. */
const stickerFormSchema = { type: 'object', properties: stickerFields, required: ['name', 'description', 'tags'], additionalProperties: false } as const;

export const bulkStickersSchema = {
  type: 'object',
  // Each entry is checked on its own: a bad one is reported, the others are created.
  properties: { stickers: { type: 'array', minItems: 1, maxItems: MAX_BULK_STICKERS } },
  required: ['stickers'],
  additionalProperties: false,
} as const;

export const updateStickerSchema = {
  type: 'object',
  // discord.js sends its edit options whole, the audit reason among them (which it also sends as the header).
  properties: { ...stickerFields, image: stickerImage, reason: { type: 'string' } },
  additionalProperties: false,
} as const;

export const stickersQuery = { type: 'object', properties: { limit: pageLimit(100, 50), offset: { ...queryInteger(0, 2 ** 31 - 1), default: 0 } } } as const;

/** A bulk entry's failure, reported in its place of the answer. */
interface EntryFailure {
  code: string;
  message: string;
  errors?: FieldError[];
}

/** The form errors of a bulk entry, at their paths under stickers.{index}. */
function entryFailure(error: unknown, index: number): EntryFailure {
  if (!(error instanceof DomainError) || error.code !== 'INVALID_FORM_BODY') throw error;
  const errors = (error.errors ?? []).map((e) => ({ path: e.path === '_root' ? `stickers.${index}` : `stickers.${index}.${e.path}`, message: e.message }));
  return { code: error.code, message: error.message, errors };
}

export function stickerRoutes(deps: HttpDeps): Router {
  const router = new Router();
  const member = guildMembersOnly(deps);
  const limits = {
    list: perGuildLimit('guild-stickers:list', 10, 60),
    create: perGuildLimit('guild-stickers:create', 5, 10),
    bulk: perGuildLimit('guild-stickers:bulk', 3, 60),
    update: perGuildLimit('guild-stickers:update', 5, 10),
    delete: perGuildLimit('guild-stickers:delete', 5, 10),
  };
  const origin = () => deps.config.publicBaseUrl;

  /** Sticker objects with their uploaders. */
  const present = (docs: StickerDoc[]) => withUploaders(deps.readStore, docs, (doc, uploader) => stickerObject(doc, origin(), uploader));

  async function presentOne(guildId: string, stickerId: string) {
    const doc = await stickerOfGuild(deps.readStore, guildId, stickerId);
    if (!doc) throw unknownSticker();
    return (await present([doc]))[0];
  }

  /** A sticker to create, described in JSON with its image as a data URI. */
  async function jsonSticker(body: unknown): Promise<StickerInput> {
    const { image, ...fields } = parseBody(createStickerSchema, body);
    return { ...fields, image: await readImage(deps, image, 'image', STICKER_IMAGE) };
  }

  /** One sticker to create, from JSON or from a form (the image a file part). */
  async function stickerInput(ctx: Context): Promise<StickerInput> {
    if (!isMultipart(ctx)) return jsonSticker(ctx.request.body);
    const form = await readFormBody(ctx, deps.config.jsonBodyLimit);
    const fields = parseBody(stickerFormSchema, form.fields);
    if (form.files.length !== 1) throw invalidForm([{ path: 'file', message: 'Send the image as one file part' }]);
    return { ...fields, image: await readImage(deps, form.files[0].data, 'file', STICKER_IMAGE) };
  }

  router.get('/guilds/:guildId/stickers', member, limits.list, async (ctx) => {
    const guildId = ctx.state.memberOfGuild!;
    if (versionOf(ctx).stickerList === 'array') {
      // The widely used API's list has no paging: the whole sticker pack, which MAX_STICKERS bounds.
      ctx.body = await present((await stickersPage(deps.readStore, guildId, { limit: MAX_STICKERS, offset: 0 })).stickers);
      return;
    }
    const { limit, offset } = parseQuery(stickersQuery, ctx.query);
    const page = await stickersPage(deps.readStore, guildId, { limit, offset });
    ctx.body = { stickers: await present(page.stickers), total: page.total, limit, offset };
  });

  router.get('/guilds/:guildId/stickers/:stickerId', member, async (ctx) => {
    const { guildId, stickerId } = parseBody(stickerParams, ctx.params);
    ctx.body = await presentOne(guildId, stickerId);
  });

  router.post('/guilds/:guildId/stickers', member, limits.create, async (ctx) => {
    const guildId = ctx.state.memberOfGuild!;
    const [sticker] = await createStickers(deps, actorMeta(ctx), guildId, [await stickerInput(ctx)]);
    if (!sticker) throw maxStickersReached();
    ctx.status = 201;
    ctx.body = await presentOne(guildId, sticker.id);
  });

  // Valid entries are created, in order; the answer has, in each entry's place, the sticker or why it failed.
  router.post('/guilds/:guildId/stickers/bulk', member, limits.bulk, async (ctx) => {
    const guildId = ctx.state.memberOfGuild!;
    const { stickers: entries } = parseBody(bulkStickersSchema, ctx.request.body);
    const read = await Promise.all(
      entries.map(async (entry, index): Promise<StickerInput | EntryFailure> => {
        try {
          return await jsonSticker(entry);
        } catch (error) {
          return entryFailure(error, index);
        }
      }),
    );
    const valid = read.filter((entry): entry is StickerInput => 'image' in entry);
    if (!valid.length) throw invalidForm(read.flatMap((entry) => ('errors' in entry ? (entry.errors ?? []) : [])));
    const created = await createStickers(deps, actorMeta(ctx), guildId, valid);
    const docs = await present((await Promise.all(created.map((s) => stickerOfGuild(deps.readStore, guildId, s.id)))).filter((d): d is StickerDoc => d !== null));
    let next = 0;
    const noRoom = maxStickersReached();
    ctx.status = 201;
    ctx.body = read.map((entry) => {
      if (!('image' in entry)) return entry;
      const doc = docs[next++];
      return doc ?? { code: noRoom.code, message: noRoom.message };
    });
  });

  router.patch('/guilds/:guildId/stickers/:stickerId', member, limits.update, async (ctx) => {
    const { guildId, stickerId } = parseBody(stickerParams, ctx.params);
    const { image, reason: _reason, ...fields } = parseBody(updateStickerSchema, ctx.request.body);
    await updateSticker(deps, actorMeta(ctx), guildId, stickerId, { ...fields, image: image === undefined ? undefined : await readImage(deps, image, 'image', STICKER_IMAGE) });
    ctx.body = await presentOne(guildId, stickerId);
  });

  router.delete('/guilds/:guildId/stickers/:stickerId', member, limits.delete, async (ctx) => {
    const { guildId, stickerId } = parseBody(stickerParams, ctx.params);
    const { purge } = parseQuery(purgeQuery, ctx.query);
    await deleteSticker(deps, actorMeta(ctx), guildId, stickerId, purge);
    noContent(ctx);
  });

  return router;
}
