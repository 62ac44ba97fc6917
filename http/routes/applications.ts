// The application object, and the routes a bot calls about its own application: GET /oauth2/applications/@me (what
// discord.py asks at login), GET and PATCH /applications/@me. As in the widely used API, "@me" is the application of
// the bot token; a session owns any number of applications, so it is refused there (403) and lists its own with
// GET /applications instead.
import { Application } from '../../contracts/applications.js';
import { list } from '../../contracts/schema.js';
import type { Context } from 'koa';
import { updateApplication } from '../../commands/accounts.js';
import { verifyInteractionsEndpoint } from '../../commands/interactionEndpoint.js';
import { forbidden, notFound } from '../../domain/errors.js';
import { applicationIdFor, applicationsOwnedBy } from '../../projections/applications.queries.js';
import { userById } from '../../projections/users.queries.js';
import { requireAuth } from '../auth.js';
import { type HttpDeps, requestMeta } from '../context.js';
import { type ConditionalLimit, type Spend, route } from '../route.js';
import { fetchApplicationObject, presentApplications, redirectUrisSchema } from '../shared/applications.js';
import { type FromSchema, MAX_INT32, parseBody, snowflakeSchema } from '../validation.js';

export const editApplicationSchema = {
  type: 'object',
  properties: {
    description: { type: 'string', maxLength: 400 },
    icon: { type: ['string', 'null'] },
    flags: { type: 'integer', minimum: 0, maximum: MAX_INT32 },
    /** Checked by a signed PING before it is stored (commands/interactionEndpoint.ts); null or "" removes it. */
    interactions_endpoint_url: { type: ['string', 'null'], maxLength: 2048 },
  },
  additionalProperties: false,
} as const;

export const editOwnedApplicationSchema = {
  ...editApplicationSchema,
  properties: { ...editApplicationSchema.properties, redirect_uris: redirectUrisSchema },
} as const;

export const applicationIdParam = { type: 'object', properties: { id: snowflakeSchema }, required: ['id'] } as const;

/** The application whose bot token authenticated the request. */
async function ownApplicationId(deps: HttpDeps, ctx: Context): Promise<string> {
  const auth = requireAuth(ctx);
  if (auth.kind !== 'bot') throw forbidden('BOTS_ONLY', 'Only a bot token names an application here; list your applications with GET /applications');
  const user = await userById(deps.readStore, auth.userId);
  if (!user?.application_id) throw notFound('UNKNOWN_APPLICATION', 'Unknown Application');
  return user.application_id;
}

/** Whose verification a request spends, set on it before the buckets below count it. */
interface Verifying {
  application: string;
  owner: string;
}
const verifying = (ctx: Context) => ctx.state.verifying as Verifying;

// Verifying an endpoint POSTs twice to a URL the caller chose: so that this is no way to probe other hosts, every
// change that sets one (the stored one again too) spends these, once access is checked and before any request.
const verificationsPerApplication = {
  bucket: 'applications:endpoint-verification',
  points: 5,
  durationSeconds: 60,
  key: (ctx: Context) => `application:${verifying(ctx).application}`,
  when: 'A change that sets `interactions_endpoint_url` (which verifies it, the stored URL too), per application.',
} as const satisfies ConditionalLimit;

const verificationsPerOwner = {
  bucket: 'applications:endpoint-verification:owner',
  points: 10,
  durationSeconds: 60,
  key: (ctx: Context) => `owner:${verifying(ctx).owner}`,
  when: 'A change that sets `interactions_endpoint_url`, per owner, across their applications.',
} as const satisfies ConditionalLimit;

const verificationLimits = [verificationsPerApplication, verificationsPerOwner];

async function edit(
  deps: HttpDeps,
  ctx: Context,
  spend: Spend<(typeof verificationLimits)[number]['bucket']>,
  applicationId: string,
  body: FromSchema<typeof editOwnedApplicationSchema>,
) {
  const { icon, interactions_endpoint_url: endpointUrl, ...fields } = body;
  const image = icon === undefined ? undefined : icon === null ? null : await deps.images.parseDataUri(icon, 'icon');
  const policy = { allowPrivate: deps.config.interactionsAllowPrivate, checkUrl: deps.checkOutboundUrl, post: deps.postForAnswer };
  const verify = async (url: string, owner: string) => {
    ctx.state.verifying = { application: applicationId, owner } satisfies Verifying;
    for (const limit of verificationLimits) await spend(limit.bucket);
    await verifyInteractionsEndpoint(deps, policy, applicationId, url);
  };
  await updateApplication(
    deps,
    { ...requestMeta(ctx), actorId: requireAuth(ctx).userId },
    applicationId,
    { ...fields, icon: image, ...(endpointUrl !== undefined ? { interactions_endpoint_url: endpointUrl || null } : {}) },
    verify,
  );
  return fetchApplicationObject(deps, applicationId);
}

const own = { description: 'The application of the bot token.', schema: Application };

export const listApplicationsRoute = route({
  method: 'GET',
  path: '/applications',
  summary: 'List your applications',
  tag: 'Accounts',
  auth: 'session',
  responses: { 200: { description: 'The applications the caller owns.', schema: list(Application) } },
  errors: [],
  handle: async (ctx, _input, deps) => presentApplications(deps, await applicationsOwnedBy(deps.readStore, requireAuth(ctx).userId)),
});

export const getOwnApplicationRoute = route({
  method: 'GET',
  path: '/applications/@me',
  summary: 'Get the bot’s application',
  tag: 'Accounts',
  auth: 'bot',
  responses: { 200: own },
  errors: ['UNKNOWN_APPLICATION'],
  handle: async (ctx, _input, deps) => fetchApplicationObject(deps, await ownApplicationId(deps, ctx)),
});

export const getOwnApplicationOAuth2Route = route({
  ...getOwnApplicationRoute,
  path: '/oauth2/applications/@me',
  summary: 'Get the bot’s application (OAuth2 path)',
  description: 'The same as GET /applications/@me; discord.py calls this one at login.',
});

export const editOwnApplicationRoute = route({
  method: 'PATCH',
  path: '/applications/@me',
  summary: 'Change the bot’s application',
  description:
    '`icon` is a data URI (null removes it); `flags` may change only the limited intent flags (1 << 13, 1 << 15, 1 << 19); `interactions_endpoint_url` is taken once the endpoint answers a PING signed with the application’s key (`verify_key`) with `{"type": 1}` and refuses one with an invalid signature with 401 (null or "" removes it). Each change that sets it verifies it, the stored URL too: 5 a minute per application, 10 per owner.',
  tag: 'Accounts',
  auth: 'bot',
  body: editApplicationSchema,
  // Read once the token is known to be a bot's.
  readsItself: ['body'],
  responses: { 200: own },
  errors: ['UNKNOWN_APPLICATION'],
  spendsItself: verificationLimits,
  handle: async (ctx, { spend }, deps) => edit(deps, ctx, spend, await ownApplicationId(deps, ctx), parseBody(editApplicationSchema, ctx.request.body)),
});

// The owner's edit, which also sets the OAuth2 redirect URIs (the bot's own edit above cannot).
export const editApplicationRoute = route({
  method: 'PATCH',
  path: '/applications/:id',
  summary: 'Change one of your applications',
  description:
    'The owner’s edit: the bot’s fields (the interactions endpoint URL among them, checked as PATCH /applications/@me checks it), and the OAuth2 redirect URIs (absolute https URLs, or http on loopback).',
  tag: 'Accounts',
  auth: 'session',
  params: applicationIdParam,
  body: editOwnedApplicationSchema,
  responses: { 200: { description: 'The application.', schema: Application } },
  errors: ['UNKNOWN_APPLICATION', 'MISSING_ACCESS'],
  spendsItself: verificationLimits,
  handle: async (ctx, { params, body, spend }, deps) => edit(deps, ctx, spend, await applicationIdFor(deps.readStore, params.id), body),
});

/** In the order the reference shows them; /applications/@me before /applications/:id, which would take @me for an id. */
export const applicationRoutes = [listApplicationsRoute, getOwnApplicationRoute, getOwnApplicationOAuth2Route, editOwnApplicationRoute, editApplicationRoute];
