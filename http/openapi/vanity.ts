// The vanity URL routes (http/routes/vanity.ts).
import { guildParams } from '../params.js';
import { setSchema } from '../routes/vanity.js';
import { ref } from './components.js';
import type { RouteDoc } from './entry.js';

const vanity = { description: 'The guild’s vanity code.', schema: ref('VanityUrl') };
const set = {
  description: 'Needs MANAGE_GUILD. The code is unique across guilds (a taken one is refused at `code`) and is accepted by POST /invites/{code}.',
  tag: 'Invites',
  auth: 'any',
  params: guildParams,
  body: setSchema,
  responses: { 200: vanity },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS', 'RATE_LIMITED'],
} as const;

export const vanityDocs: RouteDoc[] = [
  {
    method: 'GET',
    path: '/guilds/:guildId/vanity-url',
    summary: 'Get a guild’s vanity URL',
    description: 'Needs MANAGE_GUILD.',
    tag: 'Invites',
    auth: 'any',
    params: guildParams,
    responses: { 200: vanity },
    errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  },
  { method: 'POST', path: '/guilds/:guildId/vanity-url', summary: 'Set a guild’s vanity URL', ...set },
  { method: 'PATCH', path: '/guilds/:guildId/vanity-url', summary: 'Change a guild’s vanity URL', ...set },
  {
    method: 'DELETE',
    path: '/guilds/:guildId/vanity-url',
    summary: 'Remove a guild’s vanity URL',
    description: 'Needs MANAGE_GUILD.',
    tag: 'Invites',
    auth: 'any',
    params: guildParams,
    responses: { 204: { description: 'Removed.' } },
    errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  },
];
