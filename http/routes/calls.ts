// Voice regions of a channel, and DM and group DM calls: status, region, ringing. Calls are for people: a bot token is
// refused (bots cannot join a DM's voice, so they neither ring nor are rung). Ringing is limited per user: each ring
// reaches the other participants' sessions.
import Router from '@koa/router';
import type { Context } from 'koa';
import { callStatus, ringCall, setCallRegion, stopRinging, voiceRegions } from '../../commands/calls.js';
import type { ActorMeta } from '../../commands/deps.js';
import { requireAuth, requireSession } from '../auth.js';
import { type HttpDeps, noContent, requestMeta } from '../context.js';
import { channelParams } from '../params.js';
import { rateLimit } from '../rateLimit.js';
import { parseBody, snowflakeSchema } from '../validation.js';

export const callRegionSchema = {
  type: 'object',
  properties: { region: { type: ['string', 'null'], maxLength: 32, description: 'A region id of GET /channels/:id/rtc-regions; null picks none (automatic).' } },
  required: ['region'],
  additionalProperties: false,
} as const;

/** Who to ring or stop ringing; absent or null: everyone else who can answer (ring), everyone rung (stop-ringing). */
export const callRecipientsSchema = {
  type: 'object',
  properties: { recipients: { type: ['array', 'null'], items: snowflakeSchema, minItems: 1, maxItems: 10 } },
  additionalProperties: false,
} as const;

/** The person calling (bots and OAuth2 tokens are refused), as event metadata. */
const personMeta = (ctx: Context): ActorMeta => ({ ...requestMeta(ctx), actorId: requireSession(ctx).userId });

export function callRoutes(deps: HttpDeps): Router {
  const router = new Router();
  const ringLimit = rateLimit({ bucket: 'calls:ring', points: 5, durationSeconds: 10, key: (ctx) => `user:${ctx.state.auth?.userId ?? `ip:${ctx.ip}`}` });

  router.get('/channels/:channelId/rtc-regions', async (ctx) => {
    const userId = requireAuth(ctx).userId;
    const { channelId } = parseBody(channelParams, ctx.params);
    ctx.body = await voiceRegions(deps, userId, channelId);
  });

  router.get('/channels/:channelId/call', async (ctx) => {
    const { actorId } = personMeta(ctx);
    const { channelId } = parseBody(channelParams, ctx.params);
    ctx.body = await callStatus(deps, actorId, channelId);
  });

  router.patch('/channels/:channelId/call', async (ctx) => {
    const meta = personMeta(ctx);
    const { channelId } = parseBody(channelParams, ctx.params);
    const { region } = parseBody(callRegionSchema, ctx.request.body);
    await setCallRegion(deps, meta, channelId, region);
    noContent(ctx);
  });

  router.post('/channels/:channelId/call/ring', ringLimit, async (ctx) => {
    const meta = personMeta(ctx);
    const { channelId } = parseBody(channelParams, ctx.params);
    const { recipients } = parseBody(callRecipientsSchema, ctx.request.body);
    await ringCall(deps, meta, channelId, recipients ? [...recipients] : null);
    noContent(ctx);
  });

  router.post('/channels/:channelId/call/stop-ringing', async (ctx) => {
    const meta = personMeta(ctx);
    const { channelId } = parseBody(channelParams, ctx.params);
    const { recipients } = parseBody(callRecipientsSchema, ctx.request.body);
    await stopRinging(deps, meta, channelId, recipients ? [...recipients] : null);
    noContent(ctx);
  });

  return router;
}
