// The DM routes (http/routes/dms.ts); GET, PATCH and DELETE /channels/:channelId are documented with the channels.
import { openSchema, recipientParams } from '../routes/dms.js';
import { listOf, ref } from './components.js';
import type { RouteDoc } from './entry.js';

export const dmDocs: RouteDoc[] = [
  {
    method: 'POST',
    path: '/users/@me/channels',
    summary: 'Open a DM or create a group DM',
    description: '`recipient_id` opens (or reopens) the DM with that user; `recipients` makes a group DM with them.',
    tag: 'DMs',
    auth: 'any',
    body: openSchema,
    responses: { 200: { description: 'The DM channel.', schema: ref('Channel') } },
    errors: [],
  },
  {
    method: 'GET',
    path: '/users/@me/channels',
    summary: 'List the current user’s DMs',
    tag: 'DMs',
    auth: 'any',
    responses: { 200: { description: 'The DMs and group DMs.', schema: listOf('Channel') } },
    errors: [],
  },
  {
    method: 'PUT',
    path: '/channels/:channelId/recipients/:userId',
    summary: 'Add a group DM recipient',
    tag: 'DMs',
    auth: 'any',
    params: recipientParams,
    responses: { 204: { description: 'Added.' } },
    errors: ['UNKNOWN_CHANNEL', 'MAX_RECIPIENTS'],
  },
  {
    method: 'DELETE',
    path: '/channels/:channelId/recipients/:userId',
    summary: 'Remove a group DM recipient',
    description: 'Only the owner may remove others.',
    tag: 'DMs',
    auth: 'any',
    params: recipientParams,
    responses: { 204: { description: 'Removed.' } },
    errors: ['UNKNOWN_CHANNEL', 'MISSING_PERMISSIONS'],
  },
];
