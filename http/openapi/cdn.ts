// The CDN routes (http/routes/cdn.ts), at the origin's root: no authentication, nothing sniffed or run as a document.
// Every answer has Cache-Control, an ETag and its Content-Type; a matching If-None-Match answers 304.
import {
  appIconParams,
  attachmentParams,
  attachmentQuery,
  avatarParams,
  defaultAvatarParams,
  emojiFileParams,
  iconParams,
  imageQuery,
  memberImageParams,
  splashParams,
  stickerFileParams,
} from '../routes/cdn.js';
import type { ErrorCode } from './errors.js';
import type { RouteDoc, Schema } from './entry.js';

const binary = (type: string) => ({ type: 'string', contentMediaType: type });
const notModified = { description: 'The client’s If-None-Match names this file already.' };
const IMAGE = 'In the format its file name asks for, `size` pixels wide (the height in proportion); animation is kept for GIF, and for WebP with `animated`.';
const HASHED = '`{hash}.{ext}`, `a_` before an animated image’s hash.';

/** An image of the CDN: its path, what it is, and the refusal when it is not there. */
function image(path: string, summary: string, params: Schema, unknown: ErrorCode, about = HASHED): RouteDoc {
  return {
    method: 'GET',
    path,
    summary,
    description: `${about} ${IMAGE}`,
    tag: 'CDN',
    auth: 'none',
    params,
    query: imageQuery,
    responses: { 200: { description: 'The image.', content: { 'image/*': binary('image/*') } }, 304: notModified },
    errors: [unknown, 'NOT_AN_IMAGE', 'IMAGE_TOO_LARGE', 'IMAGE_QUEUE_FULL'],
    root: 'only',
  };
}

export const cdnDocs: RouteDoc[] = [
  image('/avatars/:userId/:file', 'Get an avatar', avatarParams, 'UNKNOWN_AVATAR', `A user’s or a webhook’s. ${HASHED}`),
  image('/icons/:guildId/:file', 'Get a guild icon', iconParams, 'UNKNOWN_ICON'),
  image('/app-icons/:applicationId/:file', 'Get an application icon', appIconParams, 'UNKNOWN_ICON'),
  image('/banners/:guildId/:file', 'Get a guild banner', iconParams, 'UNKNOWN_BANNER'),
  image('/splashes/:guildId/:file', 'Get a guild’s invite splash', iconParams, 'UNKNOWN_SPLASH'),
  image('/discovery-splashes/:guildId/:file', 'Get a guild’s discovery splash', splashParams, 'UNKNOWN_SPLASH', 'A still image: `{hash}.{png|jpg|jpeg|webp}`.'),
  image('/embed-splashes/:guildId/:file', 'Get a guild’s discovery splash (the spec’s path)', splashParams, 'UNKNOWN_SPLASH', 'A still image: `{hash}.{png|jpg|jpeg|webp}`.'),
  image('/guilds/:guildId/users/:userId/avatars/:file', 'Get a member’s guild avatar', memberImageParams, 'UNKNOWN_AVATAR'),
  image('/guilds/:guildId/users/:userId/banners/:file', 'Get a member’s guild banner', memberImageParams, 'UNKNOWN_BANNER'),
  image('/emojis/:file', 'Get a custom emoji', emojiFileParams, 'UNKNOWN_EMOJI', '`{emoji_id}.{ext}`.'),
  image('/stickers/:file', 'Get a sticker', stickerFileParams, 'UNKNOWN_STICKER', '`{sticker_id}.{png|webp|gif}`.'),
  image('/embed/avatars/:file', 'Get a default avatar', defaultAvatarParams, 'UNKNOWN_AVATAR', '`{index}.png`, index 0 to 5 (a user’s is its id mod 6), PNG only.'),
  image('/avatars/:file', 'Get a default avatar (the spec’s path)', defaultAvatarParams, 'UNKNOWN_AVATAR', '`{index}.png`, index 0 to 5, PNG only.'),
  {
    method: 'GET',
    path: '/attachments/:channelId/:attachmentId/:filename',
    summary: 'Get an attachment',
    description: 'The file as uploaded; an image resized or converted when the query asks for it. Only PNG, JPEG, WebP and GIF are shown inline: anything else downloads.',
    tag: 'CDN',
    auth: 'none',
    params: attachmentParams,
    query: attachmentQuery,
    responses: { 200: { description: 'The file.', content: { '*/*': binary('application/octet-stream') } }, 304: notModified },
    errors: ['UNKNOWN_ATTACHMENT', 'NOT_AN_IMAGE', 'IMAGE_TOO_LARGE', 'IMAGE_QUEUE_FULL'],
    root: 'only',
  },
];
