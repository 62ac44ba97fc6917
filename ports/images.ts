// Images as the core and the edges use them: measured from their header, read from data URIs (avatars, icons) and
// rendered for the CDN. infra/images.ts implements this with sharp (libvips).
import { createHash } from 'node:crypto';

export type ImageFormat = 'png' | 'jpeg' | 'webp' | 'gif';

export interface Image {
  data: Buffer;
  format: ImageFormat;
  contentType: string;
  animated: boolean;
  /** Content hash in the form of the widely used API's image hashes ("a_" marks animation). */
  hash: string;
}

/** What an image's header says; no pixel is decoded to know it. */
export interface ImageInfo {
  format: ImageFormat;
  contentType: string;
  width: number;
  /** The height of one frame. */
  height: number;
  pages: number;
}

export interface RenderOptions {
  format?: ImageFormat;
  width?: number;
  height?: number;
  quality?: 'high' | 'low' | 'lossless';
  animated?: boolean;
}

export interface Rendered {
  data: Buffer;
  contentType: string;
  /** A strong entity tag of `data`, quoted. */
  etag: string;
}

export interface Images {
  /** The header of PNG, JPEG, WebP or GIF data; undefined for anything else. */
  probe(data: Buffer): Promise<ImageInfo | undefined>;
  /** A data:image/…;base64 value, checked for what it really is; a form error at `path` otherwise. */
  parseDataUri(value: string, path: string, allowed?: readonly string[]): Promise<Image>;
  /** Bytes from elsewhere (a file part, a URL), checked as parseDataUri checks a data URI's. */
  inspect(data: Buffer, path: string, allowed?: readonly string[]): Promise<Image>;
  /**
   * Re-encodes an image in another format or size (the CDN's query parameters), with an entity tag of the result.
   * Renders are cached by content and options, within a bound.
   */
  render(data: Buffer, options: RenderOptions): Promise<Rendered>;
  /** Whether a stored file's content type is one of the images the CDN renders and serves inline. */
  isImageType(contentType: string): boolean;
}

/** A strong entity tag of served bytes: their own hash, so equal bytes always get the same tag. */
export const entityTag = (data: Buffer) => `"${createHash('sha256').update(data).digest('base64url').slice(0, 32)}"`;
