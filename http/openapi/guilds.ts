// The guild routes (http/routes/guilds.ts).
import { guildParams } from '../params.js';
import { createGuildSchema, myGuildsQuery, updateGuildSchema } from '../routes/guilds.js';
import { listOf, ref } from './components.js';
import type { RouteDoc } from './entry.js';

const guild = { description: 'The guild.', schema: ref('Guild') };
const remove = { summary: 'Delete a guild', description: 'Only its owner may.', tag: 'Guilds', auth: 'any', params: guildParams, responses: { 204: { description: 'Deleted.' } }, errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'] } as const;

export const guildDocs: RouteDoc[] = [
  {
    method: 'POST',
    path: '/guilds',
    summary: 'Create a guild',
    description: 'The caller owns it; it starts with an @everyone role and a #general text channel, its system channel. `icon` is a data URI.',
    tag: 'Guilds',
    auth: 'any',
    body: createGuildSchema,
    responses: { 201: guild },
    errors: [],
  },
  { method: 'GET', path: '/guilds/:guildId', summary: 'Get a guild', tag: 'Guilds', auth: 'any', params: guildParams, responses: { 200: guild }, errors: ['UNKNOWN_GUILD'] },
  {
    method: 'PATCH',
    path: '/guilds/:guildId',
    summary: 'Change a guild',
    description: 'Needs MANAGE_GUILD; `owner_id` only the owner may change.',
    tag: 'Guilds',
    auth: 'any',
    params: guildParams,
    body: updateGuildSchema,
    responses: { 200: guild },
    errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  },
  { method: 'DELETE', path: '/guilds/:guildId', ...remove },
  { method: 'POST', path: '/guilds/:guildId/delete', ...remove, summary: 'Delete a guild (the spec’s form)' },
  {
    method: 'GET',
    path: '/users/@me/guilds',
    summary: 'List the current user’s guilds',
    tag: 'Users',
    auth: 'any',
    oauth2Scope: 'guilds',
    query: myGuildsQuery,
    responses: { 200: { description: 'The caller’s guilds, by id.', schema: listOf('PartialGuild') } },
    errors: ['RATE_LIMITED'],
  },
  {
    method: 'DELETE',
    path: '/users/@me/guilds/:guildId',
    summary: 'Leave a guild',
    tag: 'Users',
    auth: 'any',
    params: guildParams,
    responses: { 204: { description: 'Left.' } },
    errors: ['UNKNOWN_GUILD', 'OWNER_CANNOT_LEAVE', 'RATE_LIMITED'],
  },
];
