// Image data as the spec's common conventions: data:image/<png|jpeg|webp|gif>;base64,<data>. The bytes are decoded
// by sharp (libvips), so a file is accepted for what it really is, not for what its data URI claims. libvips would
// also parse SVG, TIFF, PDF, HEIF and more: only data whose magic bytes say PNG, JPEG, WebP or GIF ever reaches it.
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type Sharp from 'sharp';
import { DomainError, badRequest, invalidForm } from '../domain/errors.js';
import { type Image, type ImageFormat, type ImageInfo, type Images, type RenderOptions, type Rendered, entityTag } from '../ports/images.js';

const FORMATS: readonly string[] = ['png', 'jpeg', 'webp', 'gif'];
const CONTENT_TYPES: readonly string[] = FORMATS.map((format) => `image/${format}`);

/**
 * The largest image any decode accepts, whatever its file size: 16384 pixels a side, and 50 megapixels in all the
 * frames decoded (a 50 MP phone photo, 8160×6120, passes; decoded that is up to 200 MB). sharp's own default of
 * 268 MP would let a 750 KB PNG of 16000×16000 through, to take seconds and gigabytes to decode.
 */
export const IMAGE_LIMITS = { side: 16384, pixels: 50_000_000 } as const;

/**
 * Every render fits this box: a 1×16000 sliver asked for at width 4096 stays 1×4096, not 4096×65,536,000; a
 * conversion asked for without a size keeps the image's own size only within it.
 */
const MAX_OUTPUT_SIDE = 4096;

let loading: Promise<typeof Sharp> | undefined;

/** sharp (libvips), loaded with the first image rather than with the service: many processes never decode one. */
function loadSharp() {
  return (loading ??= import('sharp').then(({ default: sharp }) => {
    // One libvips thread per render (the slots below bound how many run at once). No operation cache: each request
    // decodes a buffer of its own, so cached operations would only hold memory.
    sharp.concurrency(1);
    sharp.cache(false);
    return sharp;
  }));
}

/** Whether a stored file's content type is one of the images the CDN renders and serves inline. */
export const isImageType = (contentType: string) => CONTENT_TYPES.includes(contentType);

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function sniff(data: Buffer): ImageFormat | undefined {
  if (data.subarray(0, 8).equals(PNG_SIGNATURE)) return 'png';
  if (data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'jpeg';
  if (data.toString('latin1', 0, 4) === 'RIFF' && data.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  if (/^GIF8[79]a$/.test(data.toString('latin1', 0, 6))) return 'gif';
  return undefined;
}

/** The header of PNG, JPEG, WebP or GIF data; undefined for anything else, which is never handed to a decoder. */
export async function probeImage(data: Buffer): Promise<ImageInfo | undefined> {
  const sniffed = sniff(data);
  if (!sniffed) return undefined;
  const sharp = await loadSharp();
  try {
    const { format, width, height, pages } = await sharp(data).metadata();
    if (format !== sniffed || !width || !height) return undefined;
    return { format, contentType: `image/${format}`, width, height, pages: pages ?? 1 };
  } catch {
    return undefined;
  }
}

/** Why an image may not be decoded (all its frames when animated), or undefined when it may. */
function overLimits(image: ImageInfo, animated: boolean): string | undefined {
  const frames = animated ? image.pages : 1;
  if (image.width <= IMAGE_LIMITS.side && image.height <= IMAGE_LIMITS.side && image.width * image.height * frames <= IMAGE_LIMITS.pixels) return undefined;
  const size = `${image.width}×${image.height}${frames > 1 ? ` in ${frames} frames` : ''}`;
  return `Image is too large (${size}): at most ${IMAGE_LIMITS.side} pixels a side and ${IMAGE_LIMITS.pixels / 1e6} megapixels in all frames`;
}

export async function inspectImage(data: Buffer, path: string, allowed: readonly string[] = FORMATS): Promise<Image> {
  const image = await probeImage(data);
  if (!image) throw invalidForm([{ path, message: 'Invalid image data' }]);
  if (!allowed.includes(image.format)) {
    throw invalidForm([{ path, message: `Unsupported image format ${image.format}; use ${allowed.join(', ')}` }]);
  }
  // The CDN renders animated images with every frame: refused here, a bomb is never stored to be decoded later.
  const tooLarge = overLimits(image, true);
  if (tooLarge) throw invalidForm([{ path, message: tooLarge }]);
  const animated = image.pages > 1;
  const digest = createHash('md5').update(data).digest('hex');
  return { data, format: image.format, contentType: image.contentType, animated, hash: animated ? `a_${digest}` : digest };
}

export async function parseImageDataUri(value: string, path: string, allowed: readonly string[] = FORMATS): Promise<Image> {
  const match = /^data:image\/(png|jpeg|jpg|webp|gif);base64,([A-Za-z0-9+/=\s]+)$/.exec(value);
  if (!match) throw invalidForm([{ path, message: 'Must be a data URI: data:image/<png|jpeg|webp|gif>;base64,<data>' }]);
  return inspectImage(Buffer.from(match[2], 'base64'), path, allowed);
}

/** Renders at once: a core stays free for the event loop, so image work cannot starve the rest of the server. */
const RENDER_SLOTS = Math.max(1, availableParallelism() - 1);
/** Renders that may wait for a slot (each holds its file in memory); past them a render is refused, not queued. */
const RENDER_QUEUE = 16;
let rendering = 0;
const waiting: (() => void)[] = [];

async function inRenderSlot<T>(work: () => Promise<T>): Promise<T> {
  if (rendering < RENDER_SLOTS) rendering += 1;
  else if (waiting.length < RENDER_QUEUE) await new Promise<void>((resolve) => waiting.push(resolve));
  else throw new DomainError('rate_limited', 'IMAGE_QUEUE_FULL', 'Too many images are being processed; try again shortly');
  try {
    return await work();
  } finally {
    // The slot passes straight to the next waiter, if any.
    const next = waiting.shift();
    if (next) next();
    else rendering -= 1;
  }
}

const QUALITY = { high: 80, low: 20, lossless: 100 } as const;

/** The formats that can carry frames: an animated render in any other would stack them into one tall picture. */
const ANIMATABLE: readonly ImageFormat[] = ['gif', 'webp'];

/**
 * Renders kept for the next request of the same image with the same options, least recently used out first, within
 * a total size: an emoji shown in a busy channel is converted once, not once per viewer. Keyed by the source's hash,
 * so a replaced or deleted file is never answered from here (the route reads the file before it renders).
 */
class RenderCache {
  private readonly entries = new Map<string, Rendered>();
  private bytes = 0;
  constructor(
    private readonly maxBytes: number,
    private readonly maxEntryBytes: number,
  ) {}

  get(key: string): Rendered | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, rendered: Rendered): void {
    if (rendered.data.length > this.maxEntryBytes || this.entries.has(key)) return;
    this.entries.set(key, rendered);
    this.bytes += rendered.data.length;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.data.length;
    }
  }
}

const renders = new RenderCache(64 * 1024 * 1024, 4 * 1024 * 1024);

/** Renders under way, by cache key: the same render asked for again meanwhile waits for this one instead of queueing. */
const inFlight = new Map<string, Promise<Rendered>>();

/** renderImage through the cache of renders. */
export function renderCached(data: Buffer, options: RenderOptions): Promise<Rendered> {
  const key = `${createHash('sha256').update(data).digest('base64url')}:${options.format}:${options.width}:${options.height}:${options.quality}:${options.animated}`;
  const cached = renders.get(key);
  if (cached) return Promise.resolve(cached);
  let pending = inFlight.get(key);
  if (!pending) {
    pending = renderImage(data, options).then((rendered) => {
      renders.set(key, rendered);
      return rendered;
    });
    const done = () => inFlight.delete(key);
    pending.then(done, done);
    inFlight.set(key, pending);
  }
  return pending;
}

/**
 * Re-encodes an image in another format or size for the CDN's query parameters. Data that is not a PNG, JPEG, WebP
 * or GIF image, or that does not decode, is refused with 400 NOT_AN_IMAGE; one over IMAGE_LIMITS with 400
 * IMAGE_TOO_LARGE; and when too many renders are under way, with 429 IMAGE_QUEUE_FULL. Animation is kept only when
 * asked for and only in GIF and WebP; any other render is of the first frame.
 */
export async function renderImage(data: Buffer, options: RenderOptions): Promise<Rendered> {
  const info = await probeImage(data);
  if (!info) throw badRequest('NOT_AN_IMAGE', 'The file is not a PNG, JPEG, WebP or GIF image');
  const format = options.format ?? info.format;
  const animated = (options.animated ?? false) && ANIMATABLE.includes(format) && info.pages > 1;
  const tooLarge = overLimits(info, animated);
  if (tooLarge) throw badRequest('IMAGE_TOO_LARGE', tooLarge);
  const sized = Boolean(options.width || options.height);
  const sharp = await loadSharp();
  // libvips checks the pixel limit again as it opens the data.
  let image = sharp(data, { animated, limitInputPixels: IMAGE_LIMITS.pixels }).resize({
    width: options.width ?? MAX_OUTPUT_SIDE,
    height: options.height ?? MAX_OUTPUT_SIDE,
    fit: 'inside',
    withoutEnlargement: !sized,
  });
  const quality = QUALITY[options.quality ?? 'high'];
  const lossless = options.quality === 'lossless';
  switch (format) {
    case 'png':
      image = image.png();
      break;
    case 'jpeg':
      image = image.jpeg({ quality });
      break;
    case 'webp':
      image = image.webp({ quality, lossless });
      break;
    case 'gif':
      image = image.gif();
      break;
  }
  const output = await inRenderSlot(async () => {
    try {
      return await image.toBuffer();
    } catch {
      throw badRequest('NOT_AN_IMAGE', 'The image data could not be decoded');
    }
  });
  return { data: output, contentType: `image/${format}`, etag: entityTag(output) };
}

/** The images port as sharp implements it. */
export const sharpImages: Images = { probe: probeImage, parseDataUri: parseImageDataUri, inspect: inspectImage, render: renderCached, isImageType };
