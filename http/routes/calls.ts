// Voice regions of a channel, and DM and group DM calls: status, region, ringing. Calls are for people: a bot token is
// refused (bots cannot join a DM's voice, so they neither ring nor are rung). Ringing is limited per user: each ring
// reaches the other participants' sessions.
import type { Context } from 'koa';
import { callStatus, ringCall, setCallRegion, stopRinging, voiceRegions } from '../../commands/calls.js';
import type { ActorMeta } from '../../commands/deps.js';
import { requireAuth, requireSession } from '../auth.js';
import { requestMeta } from '../context.js';
import { channelParams } from '../params.js';
import { route } from '../route.js';
import { snowflakeSchema } from '../validation.js';

export const callRegionSchema = {
  type: 'object',
  properties: {
    region: { type: ['string', 'null'], maxLength: 32, description: 'A region id of GET /channels/:id/rtc-regions; null picks none (automatic).' },
  },
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

const string = { type: 'string' } as const;
const rtcRegion = {
  type: 'object',
  description: 'A voice region (RTC_REGIONS).',
  properties: { id: string, name: string, emoji: string },
  required: ['id', 'name', 'emoji'],
} as const;
const callsAreForPeople = 'Bots take no part in DM calls: they cannot join a DM’s voice, so they neither ring nor are rung.';
/** What every call route shares: a person's session, a DM or group DM they take part in. */
const inDm = { tag: 'DMs', auth: 'session', params: channelParams } as const;
const refusals = ['UNKNOWN_CHANNEL', 'CANNOT_EXECUTE_ON_CHANNEL_TYPE'] as const;

export const rtcRegionsRoute = route({
  method: 'GET',
  path: '/channels/:channelId/rtc-regions',
  summary: 'List the voice regions of a channel',
  description: 'For a guild voice or stage channel, a DM or a group DM the caller can see: the configured regions.',
  tag: 'Channels',
  auth: 'any',
  params: channelParams,
  responses: { 200: { description: 'The regions, never empty.', schema: { type: 'array', items: rtcRegion, minItems: 1 } } },
  errors: refusals,
  handle: (ctx, { params }, deps) => voiceRegions(deps, requireAuth(ctx).userId, params.channelId),
});

export const callStatusRoute = route({
  method: 'GET',
  path: '/channels/:channelId/call',
  summary: 'Get whether the caller can ring in a DM',
  description: `\`ringable\`: someone else in the channel could answer (another participant who is a person; Parley has no blocking). \`silent\`: a call is going on (someone is in its voice), so joining it rings nobody. ${callsAreForPeople}`,
  ...inDm,
  responses: {
    200: {
      description: 'The call status.',
      schema: { type: 'object', properties: { ringable: { type: 'boolean' }, silent: { type: 'boolean' } }, required: ['ringable', 'silent'] },
    },
  },
  errors: refusals,
  handle: (ctx, { params }, deps) => callStatus(deps, personMeta(ctx).actorId, params.channelId),
});

export const callRegionRoute = route({
  method: 'PATCH',
  path: '/channels/:channelId/call',
  summary: 'Pick the region of a DM’s call',
  description: 'Kept for the calls that follow; CALL_UPDATE announces it while a call is going on.',
  ...inDm,
  body: callRegionSchema,
  responses: { 204: { description: 'Set.' } },
  errors: refusals,
  handle: (ctx, { params, body }, deps) => setCallRegion(deps, personMeta(ctx), params.channelId, body.region),
});

export const ringRoute = route({
  method: 'POST',
  path: '/channels/:channelId/call/ring',
  summary: 'Ring participants of a DM',
  description: `The rung participants' sessions, and every other participant's, receive CALL_CREATE (or CALL_UPDATE) with them in \`ringing\`, until they join, someone stops the ringing, or CALL_RING_TIMEOUT_MS passes. Without \`recipients\`, everyone else who can answer is rung. ${callsAreForPeople}`,
  ...inDm,
  body: callRecipientsSchema,
  // Each ring reaches the other participants' sessions: limited per user.
  limits: [{ bucket: 'calls:ring', points: 5, durationSeconds: 10, key: (ctx) => `user:${ctx.state.auth?.userId ?? `ip:${ctx.ip}`}` }],
  responses: { 204: { description: 'Ringing.' } },
  errors: refusals,
  handle: (ctx, { params, body: { recipients } }, deps) => ringCall(deps, personMeta(ctx), params.channelId, recipients ? [...recipients] : null),
});

export const stopRingingRoute = route({
  method: 'POST',
  path: '/channels/:channelId/call/stop-ringing',
  summary: 'Stop ringing participants of a DM',
  description:
    'Declines for oneself, or stops ringing others. Without `recipients`, everyone rung. CALL_UPDATE follows, or CALL_DELETE when that ends the call.',
  ...inDm,
  body: callRecipientsSchema,
  responses: { 204: { description: 'Stopped.' } },
  errors: refusals,
  handle: (ctx, { params, body: { recipients } }, deps) => stopRinging(deps, personMeta(ctx), params.channelId, recipients ? [...recipients] : null),
});

export const callRoutes = [rtcRegionsRoute, callStatusRoute, callRegionRoute, ringRoute, stopRingingRoute];
