// Sticker objects: the spec's fields (tags as an array, image_url, created_at, updated_at once changed) with the ones
// clients of the widely used API read (type 2 for a guild's sticker, format_type, available, user).
import type { StickerDoc } from '../projections/expressions.js';
import type { UserDoc } from '../projections/users.js';
import type { ParleySticker } from './differences.js';
import { apiTimestamp } from './timestamps.js';
import { partialUser } from './users.js';

const GUILD_STICKER = 2;
/** The widely used API's format types: PNG and APNG; a WebP sticker is served as PNG there too. */
const FormatType = { PNG: 1, APNG: 2 } as const;

/** Where the CDN serves the sticker, in its stored format: {cdn_url}/stickers/{id}.{png|webp}. */
const stickerUrl = (origin: string, doc: Pick<StickerDoc, '_id' | 'format'>) => `${origin}/stickers/${doc._id}.${doc.format}`;

export function stickerObject(doc: StickerDoc, origin: string, uploader?: UserDoc): ParleySticker {
  return {
    id: doc._id,
    name: doc.name,
    description: doc.description,
    tags: doc.tags,
    type: GUILD_STICKER,
    format_type: doc.animated ? FormatType.APNG : FormatType.PNG,
    available: true,
    guild_id: doc.guild_id,
    image_url: stickerUrl(origin, doc),
    created_at: apiTimestamp(doc.created_at),
    ...(doc.updated_at ? { updated_at: apiTimestamp(doc.updated_at) } : {}),
    ...(uploader ? { user: partialUser(uploader) } : {}),
  };
}
