// The user content CDN (no authentication): avatars, guild and application icons and attachments, in the stored
// format or converted and resized on request. Everything it serves was uploaded by someone, from the API's own origin:
// no answer is ever sniffed or run as a document, and only PNG, JPEG, WebP and GIF are shown inline; anything else
// (SVG, HTML, XML...) downloads.
import Router from '@koa/router';
import type { Context } from 'koa';
import { badRequest, notFound } from '../../domain/errors.js';
import type { ImageFormat } from '../../ports/images.js';
import type { HttpDeps } from '../context.js';
import { parseBody, parseQuery, snowflakeSchema } from '../validation.js';

const SIZES = [16, 20, 22, 24, 28, 32, 40, 44, 48, 56, 60, 64, 80, 96, 100, 128, 160, 240, 256, 300, 320, 480, 512, 600, 640, 1024, 1280, 1536, 2048, 3072, 4096];

const imageQuery = {
  type: 'object',
  properties: {
    size: { type: 'integer', enum: SIZES, default: 128 },
    quality: { type: 'string', enum: ['high', 'low', 'lossless'], default: 'high' },
    animated: { type: 'boolean', default: false },
  },
} as const;

const avatarParams = {
  type: 'object',
  properties: { userId: snowflakeSchema, file: { type: 'string', pattern: '^(a_)?[0-9a-f]{32}\\.(png|jpg|jpeg|webp|gif)$' } },
  required: ['userId', 'file'],
} as const;

const iconParams = {
  type: 'object',
  properties: { guildId: avatarParams.properties.userId, file: avatarParams.properties.file },
  required: ['guildId', 'file'],
} as const;

const appIconParams = {
  type: 'object',
  properties: { applicationId: avatarParams.properties.userId, file: avatarParams.properties.file },
  required: ['applicationId', 'file'],
} as const;

/** Serves a stored image in the format its file name asks for, fit inside a square of the query's size. */
async function serveImage(deps: HttpDeps, ctx: Context, key: string, file: string, unknown: () => Error) {
  const query = parseQuery(imageQuery, ctx.query);
  const [hash, ext] = file.split('.');
  const blob = await deps.blobs.get(`${key}/${hash}`);
  if (!blob) throw unknown();
  const format: ImageFormat = ext === 'jpg' ? 'jpeg' : (ext as ImageFormat);
  const image = await deps.images.render(blob.data, { format, width: query.size, height: query.size, quality: query.quality, animated: query.animated || format === 'gif' });
  ctx.set('Cache-Control', 'public, max-age=86400, immutable');
  ctx.type = image.contentType;
  ctx.body = image.data;
}

const attachmentParams = {
  type: 'object',
  properties: { channelId: snowflakeSchema, attachmentId: snowflakeSchema, filename: { type: 'string', pattern: '^[\\w.-]{1,128}$' } },
  required: ['channelId', 'attachmentId', 'filename'],
} as const;

/** A media type (RFC 9110 tokens). Uploaders declare what they like, and some of it cannot even be a header. */
const MEDIA_TYPE = /^[\w!#$%&'*+.^`|~-]+\/[\w!#$%&'*+.^`|~-]+$/;

/** The spec's attachment query: without width, height, format or a lossy quality, the original file is served. */
const attachmentQuery = {
  type: 'object',
  properties: {
    width: { type: 'integer', minimum: 1, maximum: 4096 },
    height: { type: 'integer', minimum: 1, maximum: 4096 },
    format: { type: 'string', enum: ['png', 'jpg', 'jpeg', 'webp', 'gif'] },
    quality: { type: 'string', enum: ['high', 'low', 'lossless'], default: 'lossless' },
    animated: { type: 'boolean', default: false },
  },
} as const;

export function cdnRoutes(deps: HttpDeps): Router {
  const router = new Router();

  router.use(async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', "default-src 'none'; sandbox");
    await next();
  });

  router.get('/avatars/:userId/:file', async (ctx) => {
    const { userId, file } = parseBody(avatarParams, ctx.params);
    await serveImage(deps, ctx, `avatars/${userId}`, file, () => notFound('UNKNOWN_AVATAR', 'Unknown Avatar'));
  });

  router.get('/icons/:guildId/:file', async (ctx) => {
    const { guildId, file } = parseBody(iconParams, ctx.params);
    await serveImage(deps, ctx, `icons/${guildId}`, file, () => notFound('UNKNOWN_ICON', 'Unknown Icon'));
  });

  router.get('/app-icons/:applicationId/:file', async (ctx) => {
    const { applicationId, file } = parseBody(appIconParams, ctx.params);
    await serveImage(deps, ctx, `app-icons/${applicationId}`, file, () => notFound('UNKNOWN_ICON', 'Unknown Icon'));
  });

  // Attachments: the original file, or for images a resized or converted copy when the query asks for one.
  router.get('/attachments/:channelId/:attachmentId/:filename', async (ctx) => {
    const { channelId, attachmentId, filename } = parseBody(attachmentParams, ctx.params);
    const query = parseQuery(attachmentQuery, ctx.query);
    const blob = await deps.blobs.get(`attachments/${channelId}/${attachmentId}/${filename}`);
    if (!blob) throw notFound('UNKNOWN_ATTACHMENT', 'Unknown Attachment');
    ctx.set('Cache-Control', 'public, max-age=86400, immutable');
    const image = deps.images.isImageType(blob.contentType);
    if (!query.width && !query.height && !query.format && query.quality === 'lossless') {
      if (!image) ctx.set('Content-Disposition', 'attachment');
      ctx.type = MEDIA_TYPE.test(blob.contentType) ? blob.contentType : 'application/octet-stream';
      ctx.body = blob.data;
      return;
    }
    if (!image) throw badRequest('NOT_AN_IMAGE', 'Only image attachments can be resized or converted');
    const format = query.format === 'jpg' ? 'jpeg' : query.format;
    const rendered = await deps.images.render(blob.data, { format, width: query.width, height: query.height, quality: query.quality, animated: query.animated });
    ctx.type = rendered.contentType;
    ctx.body = rendered.data;
  });

  return router;
}
