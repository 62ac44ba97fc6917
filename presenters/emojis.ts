// Custom emoji objects: the spec's fields (image, guild_id, created_at, the uploader as user) with the ones clients of
// the widely used API read (require_colons, managed, animated, available).
import type { EmojiDoc } from '../projections/expressions.js';
import type { UserDoc } from '../projections/users.js';
import type { ParleyEmoji } from './differences.js';
import { apiTimestamp } from './timestamps.js';
import { partialUser } from './users.js';

/** Where the CDN serves the emoji: {cdn_url}/emojis/{id}.{gif|png}. */
const emojiUrl = (origin: string, doc: Pick<EmojiDoc, '_id' | 'animated'>) => `${origin}/emojis/${doc._id}.${doc.animated ? 'gif' : 'png'}`;

/** `uploader` is embedded as `user` when given (REST answers; gateway payloads leave it out, as the widely used API's). */
export function emojiObject(doc: EmojiDoc, origin: string, uploader?: UserDoc): ParleyEmoji {
  return {
    id: doc._id,
    name: doc.name,
    roles: doc.roles,
    require_colons: true,
    managed: false,
    animated: doc.animated,
    available: true,
    guild_id: doc.guild_id,
    image: emojiUrl(origin, doc),
    created_at: apiTimestamp(doc.created_at),
    ...(uploader ? { user: partialUser(uploader) } : {}),
  };
}
