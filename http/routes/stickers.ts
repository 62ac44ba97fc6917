// Sticker routes of the spec: create one (JSON with a data URI, or the widely used API's form with a `file` part, as
// discord.js sends it) or up to ten at once, list a page with the total (on the widely used API's versions, all of
// them as a plain array: http/apiVersions.ts), fetch, change and delete (with purge, the image too). Images are PNG
// or WebP of at most 500 KB, checked by decoding them. Writes need MANAGE_EMOJIS_AND_STICKERS, or
// CREATE_GUILD_EXPRESSIONS to add stickers and manage one's own. Limits per guild, as the spec's table says: create,
// update and delete 5 per 10 s each, bulk 3 a minute, list 10 a minute. Only members of the guild reach a route
// (guildMembersOnly), so nobody outside it spends its buckets.
import { ErrorBody } from '../../contracts/errors.js';
import { Sticker, StickerPage } from '../../contracts/expressions.js';
import { list } from '../../contracts/schema.js';
import type { Context } from 'koa';
import { type StickerInput, createStickers, deleteSticker, updateSticker } from '../../commands/stickers.js';
import { DomainError, type FieldError, invalidForm } from '../../domain/errors.js';
import { MAX_STICKERS, maxStickersReached, unknownSticker } from '../../domain/guildExpressions.js';
import type { StickerDoc } from '../../projections/expressions.js';
import { stickerOfGuild, stickersPage } from '../../projections/expressions.queries.js';
import { stickerObject } from '../../presenters/stickers.js';
import { actorMeta, withUploaders } from '../actor.js';
import { versionOf } from '../apiVersions.js';
import type { HttpDeps } from '../context.js';
import { guildMembersOnly, perGuildLimit } from '../guildLimits.js';
import { type ImageRules, readImage } from '../imageInput.js';
import { isMultipart, readFormBody } from '../multipart.js';
import { guildParams, purgeQuery } from '../params.js';
import { route } from '../route.js';
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

export const stickerParams = {
  type: 'object',
  properties: { guildId: snowflakeSchema, stickerId: snowflakeSchema },
  required: ['guildId', 'stickerId'],
} as const;

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

/** Sticker objects with their uploaders. */
const present = (deps: HttpDeps, docs: StickerDoc[]) =>
  withUploaders(deps.readStore, docs, (doc, uploader) => stickerObject(doc, deps.config.publicBaseUrl, uploader));

async function presentOne(deps: HttpDeps, guildId: string, stickerId: string) {
  const doc = await stickerOfGuild(deps.readStore, guildId, stickerId);
  if (!doc) throw unknownSticker();
  return (await present(deps, [doc]))[0];
}

/** A sticker to create, described in JSON with its image as a data URI. */
async function jsonSticker(deps: HttpDeps, body: unknown): Promise<StickerInput> {
  const { image, ...fields } = parseBody(createStickerSchema, body);
  return { ...fields, image: await readImage(deps, image, 'image', STICKER_IMAGE) };
}

/** One sticker to create, from JSON or from a form (the image a file part). */
async function stickerInput(deps: HttpDeps, ctx: Context): Promise<StickerInput> {
  if (!isMultipart(ctx)) return jsonSticker(deps, ctx.request.body);
  const form = await readFormBody(ctx, deps.config.jsonBodyLimit);
  const fields = parseBody(stickerFormSchema, form.fields);
  if (form.files.length !== 1) throw invalidForm([{ path: 'file', message: 'Send the image as one file part' }]);
  return { ...fields, image: await readImage(deps, form.files[0].data, 'file', STICKER_IMAGE) };
}

const sticker = { description: 'The sticker, with its uploader.', schema: Sticker };
const base = { tag: 'Expressions', auth: 'any', guards: [guildMembersOnly] } as const;
const WRITE = 'Needs MANAGE_EMOJIS_AND_STICKERS, or CREATE_GUILD_EXPRESSIONS for one’s own.';

export const listStickersRoute = route({
  ...base,
  method: 'GET',
  path: '/guilds/:guildId/stickers',
  summary: 'List a guild’s stickers',
  description: 'A page, with the total. 10 a minute per guild.',
  params: guildParams,
  query: stickersQuery,
  // The widely used API's versions take no paging: their list ignores the query.
  readsItself: ['query'],
  limits: [perGuildLimit('guild-stickers:list', 10, 60)],
  responses: {
    200: { description: 'The page; under /api/v9 and /api/v10, every sticker as a plain array.', schema: { anyOf: [StickerPage, list(Sticker)] } },
  },
  errors: ['UNKNOWN_GUILD'],
  async handle(ctx, { params: { guildId } }, deps) {
    // The widely used API's list has no paging: the whole sticker pack, which MAX_STICKERS bounds.
    if (versionOf(ctx).stickerList === 'array')
      return present(deps, (await stickersPage(deps.readStore, guildId, { limit: MAX_STICKERS, offset: 0 })).stickers);
    const { limit, offset } = parseQuery(stickersQuery, ctx.query);
    const page = await stickersPage(deps.readStore, guildId, { limit, offset });
    return { stickers: await present(deps, page.stickers), total: page.total, limit, offset };
  },
});

export const getStickerRoute = route({
  ...base,
  method: 'GET',
  path: '/guilds/:guildId/stickers/:stickerId',
  summary: 'Get a sticker',
  params: stickerParams,
  responses: { 200: sticker },
  errors: ['UNKNOWN_GUILD', 'UNKNOWN_STICKER'],
  handle: (_ctx, { params }, deps) => presentOne(deps, params.guildId, params.stickerId),
});

export const createStickerRoute = route({
  ...base,
  method: 'POST',
  path: '/guilds/:guildId/stickers',
  summary: 'Create a sticker',
  description: `JSON with the image as a data URI, or multipart/form-data with the same fields and the image as a \`file\` part. ${WRITE} 5 per 10 seconds per guild.`,
  params: guildParams,
  body: createStickerSchema,
  // JSON or the widely used API's form.
  readsItself: ['body'],
  limits: [perGuildLimit('guild-stickers:create', 5, 10)],
  audit: 'STICKER_CREATE',
  responses: { 201: sticker },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS', 'MAXIMUM_STICKERS_REACHED', 'INVALID_MULTIPART'],
  async handle(ctx, { params: { guildId } }, deps) {
    const [created] = await createStickers(deps, actorMeta(ctx), guildId, [await stickerInput(deps, ctx)]);
    if (!created) throw maxStickersReached();
    return presentOne(deps, guildId, created.id);
  },
});

// Valid entries are created, in order; the answer has, in each entry's place, the sticker or why it failed.
export const createStickersRoute = route({
  ...base,
  method: 'POST',
  path: '/guilds/:guildId/stickers/bulk',
  summary: 'Create up to ten stickers',
  description: `Each entry is a sticker as POST /guilds/{guildId}/stickers takes it in JSON; valid ones are created in order, and the answer has in each entry’s place the sticker or why it failed. ${WRITE} 3 a minute per guild.`,
  params: guildParams,
  body: bulkStickersSchema,
  limits: [perGuildLimit('guild-stickers:bulk', 3, 60)],
  audit: 'STICKER_CREATE',
  responses: {
    201: {
      description: 'In each entry’s place, the sticker or its refusal ({code, message, errors?}).',
      schema: { type: 'array', items: { anyOf: [Sticker, ErrorBody] } },
    },
  },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params: { guildId }, body: { stickers: entries } }, deps) {
    const read = await Promise.all(
      entries.map(async (entry, index): Promise<StickerInput | EntryFailure> => {
        try {
          return await jsonSticker(deps, entry);
        } catch (error) {
          return entryFailure(error, index);
        }
      }),
    );
    const valid = read.filter((entry): entry is StickerInput => 'image' in entry);
    if (!valid.length) throw invalidForm(read.flatMap((entry) => ('errors' in entry ? (entry.errors ?? []) : [])));
    const created = await createStickers(deps, actorMeta(ctx), guildId, valid);
    const docs = await present(
      deps,
      (await Promise.all(created.map((s) => stickerOfGuild(deps.readStore, guildId, s.id)))).filter((d): d is StickerDoc => d !== null),
    );
    let next = 0;
    const noRoom = maxStickersReached();
    return read.map((entry) => {
      if (!('image' in entry)) return entry;
      const doc = docs[next++];
      return doc ?? { code: noRoom.code, message: noRoom.message };
    });
  },
});

export const updateStickerRoute = route({
  ...base,
  method: 'PATCH',
  path: '/guilds/:guildId/stickers/:stickerId',
  summary: 'Change a sticker',
  description: `${WRITE} 5 per 10 seconds per guild.`,
  params: stickerParams,
  body: updateStickerSchema,
  limits: [perGuildLimit('guild-stickers:update', 5, 10)],
  audit: 'STICKER_UPDATE',
  responses: { 200: sticker },
  errors: ['UNKNOWN_GUILD', 'UNKNOWN_STICKER', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params: { guildId, stickerId }, body: { image, reason: _reason, ...fields } }, deps) {
    await updateSticker(deps, actorMeta(ctx), guildId, stickerId, {
      ...fields,
      image: image === undefined ? undefined : await readImage(deps, image, 'image', STICKER_IMAGE),
    });
    return presentOne(deps, guildId, stickerId);
  },
});

export const deleteStickerRoute = route({
  ...base,
  method: 'DELETE',
  path: '/guilds/:guildId/stickers/:stickerId',
  summary: 'Delete a sticker',
  description: `With \`purge\`, its image too. ${WRITE} 5 per 10 seconds per guild.`,
  params: stickerParams,
  query: purgeQuery,
  limits: [perGuildLimit('guild-stickers:delete', 5, 10)],
  audit: 'STICKER_DELETE',
  responses: { 204: { description: 'Deleted.' } },
  errors: ['UNKNOWN_GUILD', 'UNKNOWN_STICKER', 'MISSING_PERMISSIONS'],
  handle: (ctx, { params: { guildId, stickerId }, query }, deps) => deleteSticker(deps, actorMeta(ctx), guildId, stickerId, query.purge),
});

export const stickerRoutes = [listStickersRoute, getStickerRoute, createStickerRoute, createStickersRoute, updateStickerRoute, deleteStickerRoute];
