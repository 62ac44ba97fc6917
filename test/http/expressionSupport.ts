// Helpers for the emoji, sticker and CDN tests: real images made with sharp, what the CDN serves decoded with sharp,
// the files the blob store holds, and refusals that must leave neither an event nor a file behind.
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { request } from 'undici';
import { expect } from 'vitest';
import type { ApiResponse, TestServer } from '../support/server.js';
import { expectRefusedWithoutEvents } from './guildSupport.js';

export const dataUri = (data: Buffer, type = 'image/png') => `data:${type};base64,${data.toString('base64')}`;

/** A still image of one colour. */
export const stillImage = (width: number, height: number, format: 'png' | 'webp' | 'jpeg' | 'gif' = 'png', background = '#3366ff') =>
  sharp({ create: { width, height, channels: 4, background } })
    .toFormat(format)
    .toBuffer();

/** An animated image of `frames` frames of different colours. */
export async function animatedImage(width: number, height: number, frames = 3, format: 'gif' | 'webp' = 'gif'): Promise<Buffer> {
  const colours = ['#ff0000', '#00ff00', '#0000ff', '#ffff00', '#00ffff', '#ff00ff'];
  const stills = await Promise.all(Array.from({ length: frames }, (_, i) => stillImage(width, height, 'png', colours[i % colours.length])));
  const joined = sharp(stills, { join: { animated: true } });
  return (format === 'gif' ? joined.gif({ delay: Array(frames).fill(100), loop: 0 }) : joined.webp({ delay: Array(frames).fill(100), loop: 0 })).toBuffer();
}

/**
 * Random pixels, blurred like a photograph (its lossy encodings are much smaller than its lossless one), or not at all
 * (a PNG as large as its pixels).
 */
export function randomImage(width: number, height: number, blur = 2): Promise<Buffer> {
  const pixels = randomBytes(width * height * 3);
  const image = sharp(pixels, { raw: { width, height, channels: 3 } });
  return (blur ? image.blur(blur) : image).png().toBuffer();
}

export interface Served {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  data: Buffer;
  /** What sharp reads of the answer (format, width, height of a frame, frames); null when it is not an image. */
  image: { format: string; width: number; height: number; pages: number } | null;
}

/** GETs an absolute CDN URL or a path on the server, as bytes, and decodes the answer with sharp. */
export async function served(server: TestServer, url: string, headers: Record<string, string> = {}): Promise<Served> {
  const absolute = url.startsWith('http') ? url : `${server.origin}${url}`;
  const response = await request(absolute, { dispatcher: server.dispatcher, headers });
  const data = Buffer.from(await response.body.arrayBuffer());
  let image: Served['image'] = null;
  if (response.statusCode === 200) {
    try {
      const meta = await sharp(data, { animated: true }).metadata();
      image = { format: meta.format!, width: meta.width!, height: meta.pageHeight ?? meta.height!, pages: meta.pages ?? 1 };
    } catch {
      image = null;
    }
  }
  return { status: response.statusCode, headers: response.headers, data, image };
}

/** The files under a folder of the server's blob store (DATA_DIR/blobs), recursively, as relative paths. */
export async function storedFiles(server: TestServer, folder: string): Promise<string[]> {
  try {
    const entries = await readdir(join(server.dataDir, 'blobs', folder), { recursive: true, withFileTypes: true });
    return entries
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** The request is refused as expected, appends nothing and leaves no new file in `folder`; answers its response. */
export async function expectRefusedWithoutFiles(
  server: TestServer,
  folder: string,
  request: () => Promise<ApiResponse>,
  status: number,
  code: string,
): Promise<ApiResponse> {
  const before = await storedFiles(server, folder);
  let response: ApiResponse | undefined;
  await expectRefusedWithoutEvents(server, async () => (response = await request()), status, code);
  expect(await storedFiles(server, folder)).toEqual(before);
  return response!;
}

/** The events appended to a stream since `from` (its revision count before), by type and data. */
export async function streamEvents(server: TestServer, streamId: string) {
  const events = await server.runtime.store.readStream(streamId, { fromRevision: 0n });
  return events.map((e) => ({ type: e.type, data: e.data as Record<string, any>, metadata: e.metadata }));
}
