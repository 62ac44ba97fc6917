// The channel routes (http/routes/channels.ts). GET, PATCH and DELETE /channels/:channelId are answered for guild
// channels here and for DMs by http/routes/dms.ts: one path, so one entry each, written here for both.
import { channelParams, guildParams } from '../params.js';
import { createChannelSchema, moveChannelsSchema, overwriteParams, putOverwriteSchema, updateChannelSchema } from '../routes/channels.js';
import { renameSchema } from '../routes/dms.js';
import { listOf, ref } from './components.js';
import type { RouteDoc } from './entry.js';

const channel = { description: 'The channel.', schema: ref('Channel') };

export const channelDocs: RouteDoc[] = [
  {
    method: 'GET',
    path: '/guilds/:guildId/channels',
    summary: 'List a guild’s channels',
    description: 'Only the channels the caller can see (VIEW_CHANNEL, overwrites applied).',
    tag: 'Channels',
    auth: 'any',
    params: guildParams,
    responses: { 200: { description: 'The channels.', schema: listOf('Channel') } },
    errors: ['UNKNOWN_GUILD'],
  },
  {
    method: 'POST',
    path: '/guilds/:guildId/channels',
    summary: 'Create a channel',
    description: 'Needs MANAGE_CHANNELS; overwrites may not grant permissions the caller lacks.',
    tag: 'Channels',
    auth: 'any',
    params: guildParams,
    body: createChannelSchema,
    responses: { 201: channel },
    errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  },
  {
    method: 'PATCH',
    path: '/guilds/:guildId/channels',
    summary: 'Move channels',
    description: 'Needs MANAGE_CHANNELS.',
    tag: 'Channels',
    auth: 'any',
    params: guildParams,
    body: moveChannelsSchema,
    responses: { 204: { description: 'Moved.' } },
    errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  },
  {
    method: 'GET',
    path: '/channels/:channelId',
    summary: 'Get a channel',
    description: 'A guild channel the caller can see, or a DM or group DM they take part in.',
    tag: 'Channels',
    auth: 'any',
    params: channelParams,
    responses: { 200: channel },
    errors: ['UNKNOWN_CHANNEL'],
  },
  {
    method: 'PATCH',
    path: '/channels/:channelId',
    summary: 'Change a channel',
    description: 'A guild channel’s fields (MANAGE_CHANNELS), or a group DM’s name (the first schema for guild channels, the second for group DMs).',
    tag: 'Channels',
    auth: 'any',
    params: channelParams,
    body: { anyOf: [{ title: 'Guild channel', ...updateChannelSchema }, { title: 'Group DM', ...renameSchema }] },
    responses: { 200: channel },
    errors: ['UNKNOWN_CHANNEL', 'MISSING_PERMISSIONS'],
  },
  {
    method: 'DELETE',
    path: '/channels/:channelId',
    summary: 'Delete a channel, close a DM or leave a group DM',
    description: 'A guild channel needs MANAGE_CHANNELS. Answers the channel as it was.',
    tag: 'Channels',
    auth: 'any',
    params: channelParams,
    responses: { 200: channel },
    errors: ['UNKNOWN_CHANNEL', 'MISSING_PERMISSIONS'],
  },
  {
    method: 'PUT',
    path: '/channels/:channelId/permissions/:overwriteId',
    summary: 'Set a permission overwrite',
    description: 'For a role (type 0) or a member (type 1). Needs MANAGE_ROLES; may not grant permissions the caller lacks.',
    tag: 'Channels',
    auth: 'any',
    params: overwriteParams,
    body: putOverwriteSchema,
    responses: { 204: { description: 'Set.' } },
    errors: ['UNKNOWN_CHANNEL', 'MISSING_PERMISSIONS'],
  },
  {
    method: 'DELETE',
    path: '/channels/:channelId/permissions/:overwriteId',
    summary: 'Delete a permission overwrite',
    tag: 'Channels',
    auth: 'any',
    params: overwriteParams,
    responses: { 204: { description: 'Deleted.' } },
    errors: ['UNKNOWN_CHANNEL', 'MISSING_PERMISSIONS'],
  },
];
