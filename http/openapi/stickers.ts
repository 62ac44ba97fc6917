// The sticker routes (http/routes/stickers.ts): any member reads a guild's stickers; writes need
// MANAGE_EMOJIS_AND_STICKERS, or CREATE_GUILD_EXPRESSIONS to add stickers and manage one's own. Images are PNG or
// WebP of at most 500 KB.
import { guildParams, purgeQuery } from '../params.js';
import { bulkStickersSchema, createStickerSchema, stickerParams, stickersQuery, updateStickerSchema } from '../routes/stickers.js';
import { ref } from './components.js';
import type { RouteDoc } from './entry.js';

const sticker = { description: 'The sticker, with its uploader.', schema: ref('Sticker') };
const base = { tag: 'Expressions', auth: 'any' } as const;
const WRITE = 'Needs MANAGE_EMOJIS_AND_STICKERS, or CREATE_GUILD_EXPRESSIONS for one’s own.';

export const stickerDocs: RouteDoc[] = [
  {
    ...base,
    method: 'GET',
    path: '/guilds/:guildId/stickers',
    summary: 'List a guild’s stickers',
    description: 'A page, with the total. 10 a minute per guild.',
    params: guildParams,
    query: stickersQuery,
    responses: { 200: { description: 'The page.', schema: ref('StickerPage') } },
    errors: ['UNKNOWN_GUILD', 'RATE_LIMITED'],
  },
  { ...base, method: 'GET', path: '/guilds/:guildId/stickers/:stickerId', summary: 'Get a sticker', params: stickerParams, responses: { 200: sticker }, errors: ['UNKNOWN_GUILD', 'UNKNOWN_STICKER'] },
  {
    ...base,
    method: 'POST',
    path: '/guilds/:guildId/stickers',
    summary: 'Create a sticker',
    description: `JSON with the image as a data URI, or multipart/form-data with the same fields and the image as a \`file\` part. ${WRITE} 5 per 10 seconds per guild.`,
    params: guildParams,
    body: createStickerSchema,
    responses: { 201: sticker },
    errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS', 'MAXIMUM_STICKERS_REACHED', 'INVALID_MULTIPART', 'RATE_LIMITED'],
  },
  {
    ...base,
    method: 'POST',
    path: '/guilds/:guildId/stickers/bulk',
    summary: 'Create up to ten stickers',
    description: `Each entry is a sticker as POST /guilds/{guildId}/stickers takes it in JSON; valid ones are created in order, and the answer has in each entry’s place the sticker or why it failed. ${WRITE} 3 a minute per guild.`,
    params: guildParams,
    body: bulkStickersSchema,
    responses: { 201: { description: 'In each entry’s place, the sticker or its refusal ({code, message, errors?}).', schema: { type: 'array', items: { anyOf: [ref('Sticker'), ref('Error')] } } } },
    errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS', 'RATE_LIMITED'],
  },
  {
    ...base,
    method: 'PATCH',
    path: '/guilds/:guildId/stickers/:stickerId',
    summary: 'Change a sticker',
    description: `${WRITE} 5 per 10 seconds per guild.`,
    params: stickerParams,
    body: updateStickerSchema,
    responses: { 200: sticker },
    errors: ['UNKNOWN_GUILD', 'UNKNOWN_STICKER', 'MISSING_PERMISSIONS', 'RATE_LIMITED'],
  },
  {
    ...base,
    method: 'DELETE',
    path: '/guilds/:guildId/stickers/:stickerId',
    summary: 'Delete a sticker',
    description: `With \`purge\`, its image too. ${WRITE} 5 per 10 seconds per guild.`,
    params: stickerParams,
    query: purgeQuery,
    responses: { 204: { description: 'Deleted.' } },
    errors: ['UNKNOWN_GUILD', 'UNKNOWN_STICKER', 'MISSING_PERMISSIONS', 'RATE_LIMITED'],
  },
];
