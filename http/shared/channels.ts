// GET, PATCH and DELETE /channels/:channelId: a thread's id is answered by http/routes/threads.ts, a guild channel's by
// http/routes/channels.ts, which documents each operation for all three, and a DM's by http/routes/dms.ts.
import { Channel } from '../../contracts/channels.js';
import type { Operation } from '../route.js';
import { nameSchema } from '../validation.js';

/** Group DMs may be renamed (null clears the name); other fields of a DM do not change (http/routes/dms.ts). */
export const renameSchema = { type: 'object', properties: { name: { ...nameSchema(1, 100), type: ['string', 'null'] } }, additionalProperties: false } as const;

/** A route's answer of a channel. */
export const channelAnswer = { description: 'The channel.', schema: Channel };
const path = '/channels/:channelId';

export const getChannelOperation = {
  method: 'GET',
  path,
  summary: 'Get a channel',
  responses: { 200: channelAnswer },
  errors: ['UNKNOWN_CHANNEL'],
} as const satisfies Operation;

export const updateChannelOperation = {
  method: 'PATCH',
  path,
  summary: 'Change a channel',
  responses: { 200: channelAnswer },
  errors: ['UNKNOWN_CHANNEL', 'MISSING_PERMISSIONS'],
} as const satisfies Operation;

export const deleteChannelOperation = {
  method: 'DELETE',
  path,
  summary: 'Delete a channel, close a DM or leave a group DM',
  responses: { 200: channelAnswer },
  errors: ['UNKNOWN_CHANNEL', 'MISSING_PERMISSIONS'],
} as const satisfies Operation;
