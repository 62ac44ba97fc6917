// The user content CDN (no authentication), every path of the spec's table: avatars (users and webhooks), guild
// icons, banners, splashes and embed splashes, emojis, stickers, guild member avatars and banners, application icons,
// attachments, and the static default avatars. Images are served in the format the file name asks for, resized and
// re-encoded on request (renders are cached by the images port); every answer carries Cache-Control with a max-age,
// an ETag (a matching If-None-Match answers 304) and its Content-Type. Everything it serves was uploaded by someone,
// from the API's own origin: no answer is ever sniffed or run as a document, and only PNG, JPEG, WebP and GIF are
// shown inline; anything else (SVG, HTML, XML...) downloads.
import { readFile } from 'node:fs/promises';
import Router from '@koa/router';
import type { Context } from 'koa';
import { emojiImageKey, stickerImageKey } from '../../commands/expressions.js';
import { attachmentKey } from '../../commands/messages/attachments.js';
import { badRequest, notFound } from '../../domain/errors.js';
import { type ImageFormat, type Rendered, entityTag } from '../../ports/images.js';
import type { HttpDeps } from '../context.js';
import { parseBody, parseQuery, snowflakeSchema } from '../validation.js';

const SIZES = [16, 20, 22, 24, 28, 32, 40, 44, 48, 56, 60, 64, 80, 96, 100, 128, 160, 240, 256, 300, 320, 480, 512, 600, 640, 1024, 1280, 1536, 2048, 3072, 4096];

/** The spec's query for avatar, icon, banner, splash and emoji paths: `size` is the width, the height follows. */
export const imageQuery = {
  type: 'object',
  properties: {
    size: { type: 'integer', enum: SIZES, default: 128 },
    quality: { type: 'string', enum: ['high', 'low', 'lossless'], default: 'high' },
    animated: { type: 'boolean', default: false },
  },
} as const;

/** A content-hashed image file ("a_" marks an animated one) in one of the formats a path serves. */
const hashedFile = (extensions: string) => ({ type: 'string', pattern: `^(a_)?[0-9a-f]{32}\\.(${extensions})$` }) as const;
const ANY_FORMAT = 'png|jpg|jpeg|webp|gif';
const STILL_FORMAT = 'png|jpg|jpeg|webp';

export const avatarParams = {
  type: 'object',
  properties: { userId: snowflakeSchema, file: hashedFile(ANY_FORMAT) },
  required: ['userId', 'file'],
} as const;

export const iconParams = {
  type: 'object',
  properties: { guildId: snowflakeSchema, file: hashedFile(ANY_FORMAT) },
  required: ['guildId', 'file'],
} as const;

/** The spec's embed splashes are still images: no GIF. */
export const splashParams = {
  type: 'object',
  properties: { guildId: snowflakeSchema, file: hashedFile(STILL_FORMAT) },
  required: ['guildId', 'file'],
} as const;

export const appIconParams = {
  type: 'object',
  properties: { applicationId: snowflakeSchema, file: hashedFile(ANY_FORMAT) },
  required: ['applicationId', 'file'],
} as const;

export const memberImageParams = {
  type: 'object',
  properties: { guildId: snowflakeSchema, userId: snowflakeSchema, file: hashedFile(ANY_FORMAT) },
  required: ['guildId', 'userId', 'file'],
} as const;

export const emojiFileParams = {
  type: 'object',
  properties: { file: { type: 'string', pattern: `^[0-9]{1,20}\\.(${ANY_FORMAT})$` } },
  required: ['file'],
} as const;

/** Stickers as the spec lists them (WebP, GIF) and as the widely used API serves them (PNG). */
export const stickerFileParams = {
  type: 'object',
  properties: { file: { type: 'string', pattern: '^[0-9]{1,20}\\.(png|webp|gif)$' } },
  required: ['file'],
} as const;

export const defaultAvatarParams = {
  type: 'object',
  properties: { file: { type: 'string', pattern: '^[0-9]+\\.png$' } },
  required: ['file'],
} as const;

export const attachmentParams = {
  type: 'object',
  properties: { channelId: snowflakeSchema, attachmentId: snowflakeSchema, filename: { type: 'string', pattern: '^[\\w.-]{1,128}$' } },
  required: ['channelId', 'attachmentId', 'filename'],
} as const;

/** A media type (RFC 9110 tokens). Uploaders declare what they like, and some of it cannot even be a header. */
const MEDIA_TYPE = /^[\w!#$%&'*+.^`|~-]+\/[\w!#$%&'*+.^`|~-]+$/;

/** The spec's attachment query: without width, height, format or a lossy quality, the original file is served. */
export const attachmentQuery = {
  type: 'object',
  properties: {
    width: { type: 'integer', minimum: 1, maximum: 4096 },
    height: { type: 'integer', minimum: 1, maximum: 4096 },
    format: { type: 'string', enum: ['png', 'jpg', 'jpeg', 'webp', 'gif'] },
    quality: { type: 'string', enum: ['high', 'low', 'lossless'], default: 'lossless' },
    animated: { type: 'boolean', default: false },
  },
} as const;

/**
 * How long an answer may be reused. A hashed file never changes (a new image gets a new hash); an emoji's image
 * neither, but it may be purged, and the spec caches emojis up to 24 hours; a sticker's image may be replaced, so a
 * cache revalidates it (its ETag makes that cheap) after an hour.
 */
const CACHE = {
  hashed: 'public, max-age=86400, immutable',
  emoji: 'public, max-age=86400',
  sticker: 'public, max-age=3600',
  static: 'public, max-age=86400',
} as const;

/** The default avatars: index = user id mod 6, real PNGs shipped in assets/ (their README says how they were made). */
const DEFAULT_AVATARS = 6;
const defaultAvatarFiles = new Map<number, Promise<Buffer>>();
function defaultAvatar(index: number): Promise<Buffer> {
  let file = defaultAvatarFiles.get(index);
  if (!file) {
    file = readFile(new URL(`../../assets/default-avatars/${index}.png`, import.meta.url));
    defaultAvatarFiles.set(index, file);
  }
  return file;
}

const formatOf = (ext: string): ImageFormat => (ext === 'jpg' ? 'jpeg' : (ext as ImageFormat));

/** Answers with the bytes, or 304 when the client's If-None-Match names them already. */
function answer(ctx: Context, served: Pick<Rendered, 'data' | 'etag'> & { contentType: string }, cacheControl: string) {
  ctx.set('Cache-Control', cacheControl);
  ctx.set('ETag', served.etag);
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.type = served.contentType;
  ctx.body = served.data;
}

export function cdnRoutes(deps: HttpDeps): Router {
  const router = new Router();

  router.use(async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', "default-src 'none'; sandbox");
    await next();
  });

  /**
   * Serves an image in the format its file name asks for, `size` pixels wide (the height in proportion), at the
   * query's quality; animation is kept for GIF always and for WebP when asked (others show the first frame).
   */
  async function serveImage(ctx: Context, data: Buffer | undefined, ext: string, cacheControl: string, unknown: () => Error) {
    const query = parseQuery(imageQuery, ctx.query);
    if (!data) throw unknown();
    const format = formatOf(ext);
    const rendered = await deps.images.render(data, { format, width: query.size, height: query.size, quality: query.quality, animated: format === 'gif' || query.animated });
    answer(ctx, rendered, cacheControl);
  }

  /** The stored image under `key`, served as serveImage does. */
  async function serveStored(ctx: Context, key: string, ext: string, cacheControl: string, unknown: () => Error) {
    const blob = await deps.blobs.get(key);
    await serveImage(ctx, blob?.data, ext, cacheControl, unknown);
  }

  /** A content-hashed image: `dir` names the folder of its stored key from the path's ids. */
  const serveHashed = (params: { properties: { file: object } }, dir: (ids: Record<string, string>) => string, unknown: () => Error) =>
    async function hashedImage(ctx: Context) {
      const { file, ...ids } = parseBody(params, ctx.params) as { file: string } & Record<string, string>;
      const [hash, ext] = file.split('.');
      await serveStored(ctx, `${dir(ids)}/${hash}`, ext, CACHE.hashed, unknown);
    };
  const unknownAvatar = () => notFound('UNKNOWN_AVATAR', 'Unknown Avatar');
  const unknownIcon = () => notFound('UNKNOWN_ICON', 'Unknown Icon');
  const unknownBanner = () => notFound('UNKNOWN_BANNER', 'Unknown Banner');
  const unknownSplash = () => notFound('UNKNOWN_SPLASH', 'Unknown Splash');

  // Users' and webhooks' avatars share the folder: ids never collide.
  router.get('/avatars/:userId/:file', serveHashed(avatarParams, (ids) => `avatars/${ids.userId}`, unknownAvatar));
  router.get('/icons/:guildId/:file', serveHashed(iconParams, (ids) => `icons/${ids.guildId}`, unknownIcon));
  router.get('/app-icons/:applicationId/:file', serveHashed(appIconParams, (ids) => `app-icons/${ids.applicationId}`, unknownIcon));
  router.get('/banners/:guildId/:file', serveHashed(iconParams, (ids) => `banners/${ids.guildId}`, unknownBanner));
  router.get('/splashes/:guildId/:file', serveHashed(iconParams, (ids) => `splashes/${ids.guildId}`, unknownSplash));
  // The guild's discovery splash, at the widely used API's path and at the spec's "embed splash" one.
  const discoverySplash = serveHashed(splashParams, (ids) => `discovery-splashes/${ids.guildId}`, unknownSplash);
  router.get('/discovery-splashes/:guildId/:file', discoverySplash);
  router.get('/embed-splashes/:guildId/:file', discoverySplash);
  router.get('/guilds/:guildId/users/:userId/avatars/:file', serveHashed(memberImageParams, (ids) => `guilds/${ids.guildId}/users/${ids.userId}/avatars`, unknownAvatar));
  router.get('/guilds/:guildId/users/:userId/banners/:file', serveHashed(memberImageParams, (ids) => `guilds/${ids.guildId}/users/${ids.userId}/banners`, unknownBanner));

  router.get('/emojis/:file', async (ctx) => {
    const [id, ext] = parseBody(emojiFileParams, ctx.params).file.split('.');
    await serveStored(ctx, emojiImageKey(id), ext, CACHE.emoji, () => notFound('UNKNOWN_EMOJI', 'Unknown Emoji'));
  });

  router.get('/stickers/:file', async (ctx) => {
    const [id, ext] = parseBody(stickerFileParams, ctx.params).file.split('.');
    await serveStored(ctx, stickerImageKey(id), ext, CACHE.sticker, () => notFound('UNKNOWN_STICKER', 'Unknown Sticker'));
  });

  // Default avatars at the widely used API's path (what its clients build) and at the spec's static path: PNG only,
  // the shipped file as it is, or resized like any avatar when the query asks for it.
  for (const path of ['/embed/avatars/:file', '/avatars/:file']) {
    router.get(path, async (ctx) => {
      const index = Number(parseBody(defaultAvatarParams, ctx.params).file.split('.')[0]);
      const data = index < DEFAULT_AVATARS ? await defaultAvatar(index) : undefined;
      const unknown = () => notFound('UNKNOWN_AVATAR', `There are default avatars 0 to ${DEFAULT_AVATARS - 1}`);
      if (data && Object.keys(ctx.query).length === 0) answer(ctx, { data, etag: entityTag(data), contentType: 'image/png' }, CACHE.static);
      else await serveImage(ctx, data, 'png', CACHE.static, unknown);
    });
  }

  // Attachments: the original file, or for images a resized or converted copy when the query asks for one.
  router.get('/attachments/:channelId/:attachmentId/:filename', async (ctx) => {
    const { channelId, attachmentId, filename } = parseBody(attachmentParams, ctx.params);
    const query = parseQuery(attachmentQuery, ctx.query);
    const blob = await deps.blobs.get(attachmentKey(channelId, { id: attachmentId, filename }));
    if (!blob) throw notFound('UNKNOWN_ATTACHMENT', 'Unknown Attachment');
    const image = deps.images.isImageType(blob.contentType);
    if (!query.width && !query.height && !query.format && query.quality === 'lossless') {
      if (!image) ctx.set('Content-Disposition', 'attachment');
      const contentType = MEDIA_TYPE.test(blob.contentType) ? blob.contentType : 'application/octet-stream';
      answer(ctx, { data: blob.data, etag: entityTag(blob.data), contentType }, CACHE.hashed);
      return;
    }
    if (!image) throw badRequest('NOT_AN_IMAGE', 'Only image attachments can be resized or converted');
    const format = query.format === undefined ? undefined : formatOf(query.format);
    const rendered = await deps.images.render(blob.data, { format, width: query.width, height: query.height, quality: query.quality, animated: query.animated });
    answer(ctx, rendered, CACHE.hashed);
  });

  return router;
}
