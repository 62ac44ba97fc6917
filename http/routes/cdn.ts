// The user content CDN (no authentication), every path of the spec's table: avatars (users and webhooks), guild
// icons, banners, splashes and embed splashes, emojis, stickers, guild member avatars and banners, application icons,
// attachments, and the static default avatars. Images are served in the format the file name asks for, resized and
// re-encoded on request (renders are cached by the images port); every answer carries Cache-Control with a max-age,
// an ETag (a matching If-None-Match answers 304) and its Content-Type. Everything it serves was uploaded by someone,
// from the API's own origin: no answer is ever sniffed or run as a document, and only PNG, JPEG, WebP and GIF are
// shown inline; anything else (SVG, HTML, XML...) downloads.
import { readFile } from 'node:fs/promises';
import type { Context, Next } from 'koa';
import { emojiImageKey, stickerImageKey } from '../../commands/expressions.js';
import { attachmentKey } from '../../commands/messages/attachments.js';
import { badRequest, notFound } from '../../domain/errors.js';
import { type ImageFormat, type Rendered, entityTag } from '../../ports/images.js';
import type { HttpDeps } from '../context.js';
import type { ErrorCode } from '../openapi/errors.js';
import { type Route, route } from '../route.js';
import { type FromSchema, type JSONSchema, snowflakeSchema } from '../validation.js';

const SIZES = [
  16, 20, 22, 24, 28, 32, 40, 44, 48, 56, 60, 64, 80, 96, 100, 128, 160, 240, 256, 300, 320, 480, 512, 600, 640, 1024, 1280, 1536, 2048, 3072, 4096,
];

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

/** Everything the CDN serves was uploaded by someone, from the API's own origin: never sniffed, never run as a document. */
async function inert(ctx: Context, next: Next) {
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Content-Security-Policy', "default-src 'none'; sandbox");
  await next();
}

type ImageQuery = FromSchema<typeof imageQuery>;

/**
 * Serves an image in the format its file name asks for, `size` pixels wide (the height in proportion), at the
 * query's quality; animation is kept for GIF always and for WebP when asked (others show the first frame).
 */
async function serveImage(ctx: Context, deps: HttpDeps, query: ImageQuery, data: Buffer | undefined, ext: string, cacheControl: string, unknown: () => Error) {
  if (!data) throw unknown();
  const format = formatOf(ext);
  const rendered = await deps.images.render(data, {
    format,
    width: query.size,
    height: query.size,
    quality: query.quality,
    animated: format === 'gif' || query.animated,
  });
  answer(ctx, rendered, cacheControl);
}

const binary = (type: string) => ({ type: 'string', contentMediaType: type });
const notModified = { description: 'The client’s If-None-Match names this file already.' };
const IMAGE = 'In the format its file name asks for, `size` pixels wide (the height in proportion); animation is kept for GIF, and for WebP with `animated`.';
const HASHED = '`{hash}.{ext}`, `a_` before an animated image’s hash.';

/** Where an image of the CDN is stored, from its path's parameters: its blob's key, its extension and its caching. */
type Stored = (params: { file: string } & Record<string, string>) => { key: string; ext: string; cache: string };

/** Every route of the CDN: read at the origin's root by anyone, its answers inert. */
const cdnRoute = { method: 'GET', tag: 'CDN', auth: 'none', guards: [() => inert], root: 'only' } as const;

/** An image route of the CDN: what it is, and its refusal when there is no such image. */
const imageRoute = (path: string, summary: string, about: string, unknown: ErrorCode) =>
  ({
    ...cdnRoute,
    path,
    summary,
    description: `${about} ${IMAGE}`,
    query: imageQuery,
    responses: { 200: { description: 'The image.', content: { 'image/*': binary('image/*') } }, 304: notModified },
    errors: [unknown, 'NOT_AN_IMAGE', 'IMAGE_TOO_LARGE', 'IMAGE_QUEUE_FULL'],
  }) as const;

/** The stored image of a path of the CDN: what it is, where it is stored, and the refusal when it is not there. */
function image(path: string, summary: string, params: JSONSchema, stored: Stored, unknown: [ErrorCode, string], about = HASHED): Route {
  return route({
    ...imageRoute(path, summary, about, unknown[0]),
    params,
    async handle(ctx, { params: ids, query }, deps) {
      const { key, ext, cache } = stored(ids as { file: string } & Record<string, string>);
      const blob = await deps.blobs.get(key);
      await serveImage(ctx, deps, query, blob?.data, ext, cache, () => notFound(...unknown));
    },
  });
}

/** A content-hashed image: `dir` names the folder of its stored key from the path's ids. */
const hashed =
  (dir: (ids: Record<string, string>) => string): Stored =>
  ({ file, ...ids }) => {
    const [hash, ext] = file.split('.');
    return { key: `${dir(ids)}/${hash}`, ext, cache: CACHE.hashed };
  };
/** An emoji's or a sticker's image, `{id}.{ext}`: `keyOf` names its stored key from the id. */
const byId =
  (keyOf: (id: string) => string, cache: string): Stored =>
  ({ file }) => {
    const [id, ext] = file.split('.');
    return { key: keyOf(id), ext, cache };
  };
const unknownAvatar: [ErrorCode, string] = ['UNKNOWN_AVATAR', 'Unknown Avatar'];
const unknownIcon: [ErrorCode, string] = ['UNKNOWN_ICON', 'Unknown Icon'];
const unknownBanner: [ErrorCode, string] = ['UNKNOWN_BANNER', 'Unknown Banner'];
const unknownSplash: [ErrorCode, string] = ['UNKNOWN_SPLASH', 'Unknown Splash'];
const STILL = 'A still image: `{hash}.{png|jpg|jpeg|webp}`.';

/**
 * A default avatar, at the widely used API's path (what its clients build) or at the spec's static path: PNG only,
 * the shipped file as it is, or resized like any avatar when the query asks for it.
 */
const defaultAvatarRoute = (path: string, summary: string, about: string) =>
  route({
    ...imageRoute(path, summary, about, 'UNKNOWN_AVATAR'),
    params: defaultAvatarParams,
    async handle(ctx, { params, query }, deps) {
      const index = Number(params.file.split('.')[0]);
      const data = index < DEFAULT_AVATARS ? await defaultAvatar(index) : undefined;
      const unknown = () => notFound('UNKNOWN_AVATAR', `There are default avatars 0 to ${DEFAULT_AVATARS - 1}`);
      if (data && Object.keys(ctx.query).length === 0) answer(ctx, { data, etag: entityTag(data), contentType: 'image/png' }, CACHE.static);
      else await serveImage(ctx, deps, query, data, 'png', CACHE.static, unknown);
    },
  });

/** Attachments: the original file, or for images a resized or converted copy when the query asks for one. */
const attachmentRoute = route({
  ...cdnRoute,
  path: '/attachments/:channelId/:attachmentId/:filename',
  summary: 'Get an attachment',
  description:
    'The file as uploaded; an image resized or converted when the query asks for it. Only PNG, JPEG, WebP and GIF are shown inline: anything else downloads.',
  params: attachmentParams,
  query: attachmentQuery,
  responses: { 200: { description: 'The file.', content: { '*/*': binary('application/octet-stream') } }, 304: notModified },
  errors: ['UNKNOWN_ATTACHMENT', 'NOT_AN_IMAGE', 'IMAGE_TOO_LARGE', 'IMAGE_QUEUE_FULL'],
  async handle(ctx, { params: { channelId, attachmentId, filename }, query }, deps) {
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
    const rendered = await deps.images.render(blob.data, {
      format,
      width: query.width,
      height: query.height,
      quality: query.quality,
      animated: query.animated,
    });
    answer(ctx, rendered, CACHE.hashed);
  },
});

/** The CDN's routes, at the origin's root (no authentication). */
export const cdnRoutes = [
  // Users' and webhooks' avatars share the folder: ids never collide.
  image(
    '/avatars/:userId/:file',
    'Get an avatar',
    avatarParams,
    hashed((ids) => `avatars/${ids.userId}`),
    unknownAvatar,
    `A user’s or a webhook’s. ${HASHED}`,
  ),
  image(
    '/icons/:guildId/:file',
    'Get a guild icon',
    iconParams,
    hashed((ids) => `icons/${ids.guildId}`),
    unknownIcon,
  ),
  image(
    '/app-icons/:applicationId/:file',
    'Get an application icon',
    appIconParams,
    hashed((ids) => `app-icons/${ids.applicationId}`),
    unknownIcon,
  ),
  image(
    '/banners/:guildId/:file',
    'Get a guild banner',
    iconParams,
    hashed((ids) => `banners/${ids.guildId}`),
    unknownBanner,
  ),
  image(
    '/splashes/:guildId/:file',
    'Get a guild’s invite splash',
    iconParams,
    hashed((ids) => `splashes/${ids.guildId}`),
    unknownSplash,
  ),
  // The guild's discovery splash, at the widely used API's path and at the spec's "embed splash" one.
  image(
    '/discovery-splashes/:guildId/:file',
    'Get a guild’s discovery splash',
    splashParams,
    hashed((ids) => `discovery-splashes/${ids.guildId}`),
    unknownSplash,
    STILL,
  ),
  image(
    '/embed-splashes/:guildId/:file',
    'Get a guild’s discovery splash (the spec’s path)',
    splashParams,
    hashed((ids) => `discovery-splashes/${ids.guildId}`),
    unknownSplash,
    STILL,
  ),
  image(
    '/guilds/:guildId/users/:userId/avatars/:file',
    'Get a member’s guild avatar',
    memberImageParams,
    hashed((ids) => `guilds/${ids.guildId}/users/${ids.userId}/avatars`),
    unknownAvatar,
  ),
  image(
    '/guilds/:guildId/users/:userId/banners/:file',
    'Get a member’s guild banner',
    memberImageParams,
    hashed((ids) => `guilds/${ids.guildId}/users/${ids.userId}/banners`),
    unknownBanner,
  ),
  image('/emojis/:file', 'Get a custom emoji', emojiFileParams, byId(emojiImageKey, CACHE.emoji), ['UNKNOWN_EMOJI', 'Unknown Emoji'], '`{emoji_id}.{ext}`.'),
  image(
    '/stickers/:file',
    'Get a sticker',
    stickerFileParams,
    byId(stickerImageKey, CACHE.sticker),
    ['UNKNOWN_STICKER', 'Unknown Sticker'],
    '`{sticker_id}.{png|webp|gif}`.',
  ),
  defaultAvatarRoute('/embed/avatars/:file', 'Get a default avatar', '`{index}.png`, index 0 to 5 (a user’s is its id mod 6), PNG only.'),
  defaultAvatarRoute('/avatars/:file', 'Get a default avatar (the spec’s path)', '`{index}.png`, index 0 to 5, PNG only.'),
  attachmentRoute,
];
