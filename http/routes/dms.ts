// DM routes: open a DM or make a group DM (POST /users/@me/channels), list them, add and remove group DM recipients.
// The channel routes answer /channels/:id for guild channels and pass DMs on to the ones here (registered after them).
import Router from '@koa/router';
import { messageChannelAccess } from '../../commands/access.js';
import { addRecipient, closeDm, createGroupDm, listDms, openDm, removeRecipient, renameGroupDm } from '../../commands/dms.js';
import { actorMeta } from '../actor.js';
import { requireAuth } from '../auth.js';
import { type HttpDeps, noContent } from '../context.js';
import { dmChannelObject } from '../../presenters/messages.js';
import { channelParams } from '../params.js';
import { nameSchema, parseBody, snowflakeSchema } from '../validation.js';

export const openSchema = {
  oneOf: [
    { type: 'object', properties: { recipient_id: snowflakeSchema }, required: ['recipient_id'], additionalProperties: false },
    { type: 'object', properties: { recipients: { type: 'array', items: snowflakeSchema, minItems: 1, maxItems: 9 } }, required: ['recipients'], additionalProperties: false },
  ],
} as const;

/** Group DMs may be renamed (null clears the name); other fields of a DM do not change. */
export const renameSchema = { type: 'object', properties: { name: { ...nameSchema(1, 100), type: ['string', 'null'] } }, additionalProperties: false } as const;

export const recipientParams = { type: 'object', properties: { channelId: snowflakeSchema, userId: snowflakeSchema }, required: ['channelId', 'userId'] } as const;

export function dmRoutes(deps: HttpDeps): Router {
  const router = new Router();

  router.post('/users/@me/channels', async (ctx) => {
    const meta = actorMeta(ctx);
    const body = parseBody(openSchema, ctx.request.body);
    const doc = 'recipient_id' in body ? await openDm(deps, meta, body.recipient_id) : await createGroupDm(deps, meta, [...body.recipients]);
    ctx.body = dmChannelObject(doc, meta.actorId);
  });

  router.get('/users/@me/channels', async (ctx) => {
    const userId = requireAuth(ctx).userId;
    ctx.body = (await listDms(deps, userId)).map((doc) => dmChannelObject(doc, userId));
  });

  router.get('/channels/:channelId', async (ctx) => {
    const { channelId } = parseBody(channelParams, ctx.params);
    const userId = requireAuth(ctx).userId;
    ctx.body = dmChannelObject((await messageChannelAccess(deps, channelId, userId)).dm!, userId);
  });

  router.patch('/channels/:channelId', async (ctx) => {
    const meta = actorMeta(ctx);
    const { channelId } = parseBody(channelParams, ctx.params);
    const { name } = parseBody(renameSchema, ctx.request.body);
    ctx.body = dmChannelObject(await renameGroupDm(deps, meta, channelId, name ?? null), meta.actorId);
  });

  /** Closes a DM for the caller, or leaves a group DM; answers the channel as it was. */
  router.delete('/channels/:channelId', async (ctx) => {
    const meta = actorMeta(ctx);
    const { channelId } = parseBody(channelParams, ctx.params);
    ctx.body = dmChannelObject(await closeDm(deps, meta, channelId), meta.actorId);
  });

  router.put('/channels/:channelId/recipients/:userId', async (ctx) => {
    const { channelId, userId } = parseBody(recipientParams, ctx.params);
    await addRecipient(deps, actorMeta(ctx), channelId, userId);
    noContent(ctx);
  });

  router.delete('/channels/:channelId/recipients/:userId', async (ctx) => {
    const { channelId, userId } = parseBody(recipientParams, ctx.params);
    await removeRecipient(deps, actorMeta(ctx), channelId, userId);
    noContent(ctx);
  });

  return router;
}
