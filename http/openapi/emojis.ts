// The emoji routes (http/routes/emojis.ts): any member reads a guild's custom emojis; writes need
// MANAGE_EMOJIS_AND_STICKERS, or CREATE_GUILD_EXPRESSIONS to add emojis and manage one's own.
import { guildParams, purgeQuery } from '../params.js';
import { createEmojiSchema, emojiParams, updateEmojiSchema } from '../routes/emojis.js';
import { listOf, ref } from './components.js';
import type { RouteDoc } from './entry.js';

const emoji = { description: 'The emoji, with its uploader.', schema: ref('Emoji') };
const base = { tag: 'Expressions', auth: 'any' } as const;
const WRITE = 'Needs MANAGE_EMOJIS_AND_STICKERS, or CREATE_GUILD_EXPRESSIONS for one’s own. 5 a minute per guild.';

export const emojiDocs: RouteDoc[] = [
  {
    ...base,
    method: 'GET',
    path: '/guilds/:guildId/emojis',
    summary: 'List a guild’s emojis',
    description: '5 a minute per guild.',
    params: guildParams,
    responses: { 200: { description: 'The emojis.', schema: listOf('Emoji') } },
    errors: ['UNKNOWN_GUILD', 'RATE_LIMITED'],
  },
  { ...base, method: 'GET', path: '/guilds/:guildId/emojis/:emojiId', summary: 'Get an emoji', params: emojiParams, responses: { 200: emoji }, errors: ['UNKNOWN_GUILD', 'UNKNOWN_EMOJI'] },
  {
    ...base,
    method: 'POST',
    path: '/guilds/:guildId/emojis',
    summary: 'Create an emoji',
    description: `\`image\` is a data URI or an https URL, at most 256 KiB. ${WRITE}`,
    params: guildParams,
    body: createEmojiSchema,
    responses: { 201: emoji },
    errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS', 'MAXIMUM_EMOJIS_REACHED', 'RATE_LIMITED'],
  },
  {
    ...base,
    method: 'PATCH',
    path: '/guilds/:guildId/emojis/:emojiId',
    summary: 'Change an emoji',
    description: `\`roles\` null lets everyone use it again. ${WRITE}`,
    params: emojiParams,
    body: updateEmojiSchema,
    responses: { 200: emoji },
    errors: ['UNKNOWN_GUILD', 'UNKNOWN_EMOJI', 'MISSING_PERMISSIONS', 'RATE_LIMITED'],
  },
  {
    ...base,
    method: 'DELETE',
    path: '/guilds/:guildId/emojis/:emojiId',
    summary: 'Delete an emoji',
    description: `With \`purge\`, its image too. ${WRITE}`,
    params: emojiParams,
    query: purgeQuery,
    responses: { 204: { description: 'Deleted.' } },
    errors: ['UNKNOWN_GUILD', 'UNKNOWN_EMOJI', 'MISSING_PERMISSIONS', 'RATE_LIMITED'],
  },
];
