// DM routes: open a DM or make a group DM (POST /users/@me/channels), list them, add and remove group DM recipients.
// The channel routes answer /channels/:id for guild channels and pass DMs on to the ones here (declared after them),
// which they document.
import { Channel } from '../../contracts/channels.js';
import { list } from '../../contracts/schema.js';
import { addRecipient, closeDm, createGroupDm, listDms, openDm, readDm, removeRecipient, renameGroupDm } from '../../commands/dms.js';
import { actorMeta } from '../actor.js';
import { requireAuth } from '../auth.js';
import { dmChannelObject } from '../../presenters/messages.js';
import { channelParams } from '../params.js';
import { route } from '../route.js';
import { deleteChannelOperation, getChannelOperation, renameSchema, updateChannelOperation } from '../shared/channels.js';
import { snowflakeSchema } from '../validation.js';

export const openSchema = {
  oneOf: [
    { type: 'object', properties: { recipient_id: snowflakeSchema }, required: ['recipient_id'], additionalProperties: false },
    {
      type: 'object',
      properties: { recipients: { type: 'array', items: snowflakeSchema, minItems: 1, maxItems: 9 } },
      required: ['recipients'],
      additionalProperties: false,
    },
  ],
} as const;

export const recipientParams = {
  type: 'object',
  properties: { channelId: snowflakeSchema, userId: snowflakeSchema },
  required: ['channelId', 'userId'],
} as const;

const base = { tag: 'DMs', auth: 'any' } as const;

export const openDmRoute = route({
  ...base,
  method: 'POST',
  path: '/users/@me/channels',
  summary: 'Open a DM or create a group DM',
  description:
    '`recipient_id` opens (or reopens) the DM with that user (403 CANNOT_SEND_MESSAGES_TO_USER when that account was deleted); `recipients` makes a group DM with them.',
  body: openSchema,
  responses: { 200: { description: 'The DM channel.', schema: Channel } },
  errors: ['CANNOT_SEND_MESSAGES_TO_USER'],
  async handle(ctx, { body }, deps) {
    const meta = actorMeta(ctx);
    const doc = 'recipient_id' in body ? await openDm(deps, meta, body.recipient_id) : await createGroupDm(deps, meta, [...body.recipients]);
    return dmChannelObject(doc, meta.actorId);
  },
});

export const listDmsRoute = route({
  ...base,
  method: 'GET',
  path: '/users/@me/channels',
  summary: 'List the current user’s DMs',
  responses: { 200: { description: 'The DMs and group DMs.', schema: list(Channel) } },
  errors: [],
  async handle(ctx, _input, deps) {
    const userId = requireAuth(ctx).userId;
    return (await listDms(deps, userId)).map((doc) => dmChannelObject(doc, userId));
  },
});

// A DM's /channels/:channelId, passed on by the guild channel's route, which documents both.
const passedOn = { ...base, tag: 'Channels', params: channelParams } as const;

export const getDmRoute = route({
  ...passedOn,
  ...getChannelOperation,
  documentedBy: getChannelOperation,
  async handle(ctx, { params: { channelId } }, deps) {
    const userId = requireAuth(ctx).userId;
    return dmChannelObject(await readDm(deps, channelId, userId), userId);
  },
});

export const renameDmRoute = route({
  ...passedOn,
  ...updateChannelOperation,
  documentedBy: updateChannelOperation,
  body: renameSchema,
  async handle(ctx, { params: { channelId }, body: { name } }, deps) {
    const meta = actorMeta(ctx);
    return dmChannelObject(await renameGroupDm(deps, meta, channelId, name ?? null), meta.actorId);
  },
});

/** Closes a DM for the caller, or leaves a group DM; answers the channel as it was. */
export const closeDmRoute = route({
  ...passedOn,
  ...deleteChannelOperation,
  documentedBy: deleteChannelOperation,
  async handle(ctx, { params: { channelId } }, deps) {
    const meta = actorMeta(ctx);
    return dmChannelObject(await closeDm(deps, meta, channelId), meta.actorId);
  },
});

export const addRecipientRoute = route({
  ...base,
  method: 'PUT',
  path: '/channels/:channelId/recipients/:userId',
  summary: 'Add a group DM recipient',
  params: recipientParams,
  responses: { 204: { description: 'Added.' } },
  errors: ['UNKNOWN_CHANNEL', 'MAX_RECIPIENTS'],
  handle: (ctx, { params: { channelId, userId } }, deps) => addRecipient(deps, actorMeta(ctx), channelId, userId),
});

export const removeRecipientRoute = route({
  ...base,
  method: 'DELETE',
  path: '/channels/:channelId/recipients/:userId',
  summary: 'Remove a group DM recipient',
  description: 'Only the owner may remove others.',
  params: recipientParams,
  responses: { 204: { description: 'Removed.' } },
  errors: ['UNKNOWN_CHANNEL', 'MISSING_PERMISSIONS'],
  handle: (ctx, { params: { channelId, userId } }, deps) => removeRecipient(deps, actorMeta(ctx), channelId, userId),
});

export const dmRoutes = [openDmRoute, listDmsRoute, getDmRoute, renameDmRoute, closeDmRoute, addRecipientRoute, removeRecipientRoute];
