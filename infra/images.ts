// Image data as the spec's common conventions: data:image/<png|jpeg|webp|gif>;base64,<data>. The bytes are decoded
// by sharp (libvips), so a file is accepted for what it really is, not for what its data URI claims.
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { invalidForm } from '../domain/errors.js';

export type ImageFormat = 'png' | 'jpeg' | 'webp' | 'gif';
const FORMATS: readonly string[] = ['png', 'jpeg', 'webp', 'gif'];

export interface Image {
  data: Buffer;
  format: ImageFormat;
  contentType: string;
  animated: boolean;
  /** Content hash in the form of the widely used API's image hashes ("a_" marks animation). */
  hash: string;
}

export async function inspectImage(data: Buffer, path: string, allowed: readonly string[] = FORMATS): Promise<Image> {
  let format: string | undefined;
  let pages = 1;
  try {
    const metadata = await sharp(data, { animated: true }).metadata();
    format = metadata.format;
    pages = metadata.pages ?? 1;
  } catch {
    throw invalidForm([{ path, message: 'Invalid image data' }]);
  }
  if (!format || !allowed.includes(format)) {
    throw invalidForm([{ path, message: `Unsupported image format ${format ?? 'unknown'}; use ${allowed.join(', ')}` }]);
  }
  const animated = pages > 1;
  const digest = createHash('md5').update(data).digest('hex');
  return { data, format: format as ImageFormat, contentType: `image/${format}`, animated, hash: animated ? `a_${digest}` : digest };
}

export async function parseImageDataUri(value: string, path: string, allowed: readonly string[] = FORMATS): Promise<Image> {
  const match = /^data:image\/(png|jpeg|jpg|webp|gif);base64,([A-Za-z0-9+/=\s]+)$/.exec(value);
  if (!match) throw invalidForm([{ path, message: 'Must be a data URI: data:image/<png|jpeg|webp|gif>;base64,<data>' }]);
  return inspectImage(Buffer.from(match[2], 'base64'), path, allowed);
}

export interface RenderOptions {
  format?: ImageFormat;
  width?: number;
  height?: number;
  quality?: 'high' | 'low' | 'lossless';
  animated?: boolean;
}

const QUALITY = { high: 80, low: 20, lossless: 100 } as const;

/** Re-encodes an image in another format or size for the CDN's query parameters. */
export async function renderImage(data: Buffer, options: RenderOptions): Promise<{ data: Buffer; contentType: string }> {
  let image = sharp(data, { animated: options.animated ?? false });
  if (options.width || options.height) image = image.resize({ width: options.width, height: options.height, fit: 'inside', withoutEnlargement: false });
  const format = options.format ?? ((await sharp(data).metadata()).format as ImageFormat);
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
  return { data: await image.toBuffer(), contentType: `image/${format}` };
}
