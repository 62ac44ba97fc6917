// The Koa application: error format, request ids, body parsing and authentication in front of the API routes, which
// answer under /api/v1, /api (latest) and the widely used API's /api/v9 and /api/v10 (http/apiVersions.ts); the CDN
// answers at the origin's root, and so do the entries that say so (the authorization page, the reference's GET /).
// The OpenAPI document is built here, from every entry.
import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import Koa, { type Context, type Middleware, type Next } from 'koa';
import compose from 'koa-compose';
import type { Metrics } from '../ports/metrics.js';
import type { Admission } from './admission.js';
import { apiVersion } from './apiVersions.js';
import { authenticate } from './auth.js';
import { bodyParser } from './body.js';
import type { HttpDeps } from './context.js';
import { errorHandler } from './errors.js';
import { type RouteDoc, TAGS } from './openapi/entry.js';
import { openApiDocument } from './openapi/document.js';
import { operationDocs } from './openapi/operations.js';
import { type Route, rateLimiters, routeDocs, router, scopes } from './route.js';
import { type Operations, operations } from './operations.js';
import { accountRoutes } from './routes/accounts.js';
import { applicationCommandRoutes } from './routes/applicationCommands.js';
import { applicationRoutes } from './routes/applications.js';
import { auditLogRoutes } from './routes/auditLog.js';
import { autoModerationRoutes } from './routes/autoModeration.js';
import { callRoutes } from './routes/calls.js';
import { cdnRoutes } from './routes/cdn.js';
import { channelRoutes } from './routes/channels.js';
import { consoleRoutes } from './routes/console.js';
import { dmRoutes } from './routes/dms.js';
import { emojiRoutes } from './routes/emojis.js';
import { forumRoutes } from './routes/forum.js';
import { gatewayRoutes } from './routes/gateway.js';
import { guildEventRoutes } from './routes/guildEvents.js';
import { guildHistoryRoutes } from './routes/guildHistory.js';
import { guildRoutes } from './routes/guilds.js';
import { interactionRoutes } from './routes/interactions.js';
import { interactionWebhookRoutes } from './routes/interactionWebhooks.js';
import { inviteRoutes } from './routes/invites.js';
import { memberRoutes } from './routes/members.js';
import { messageRoutes } from './routes/messages.js';
import { moderationRoutes } from './routes/moderation.js';
import { oauth2Routes } from './routes/oauth2.js';
import { oauth2AuthorizeRoutes } from './routes/oauth2Authorize.js';
import { referenceRoutes } from './routes/reference.js';
import { roleRoutes } from './routes/roles.js';
import { stickerRoutes } from './routes/stickers.js';
import { threadRoutes } from './routes/threads.js';
import { userRoutes } from './routes/users.js';
import { vanityRoutes } from './routes/vanity.js';
import { webhookRoutes } from './routes/webhooks.js';

export type AppOptions = Omit<Operations, 'metricsToken'>;

/** A client's own X-Request-Id when it is a plausible id (a proxy's, a tracing header); otherwise a new one. */
const SANE_REQUEST_ID = /^[\w.:-]{8,128}$/;

function requestId(ctx: Context, next: Next) {
  const given = ctx.get('x-request-id');
  ctx.state.requestId = SANE_REQUEST_ID.test(given) ? given : randomUUID();
  ctx.set('X-Request-Id', ctx.state.requestId);
  return next();
}

/** Every answer counted by method, route template and status (the route's, not the path: ids would explode series). */
function measure(metrics: Pick<Metrics, 'request'>) {
  return async function measureRequest(ctx: Context, next: Next) {
    const started = performance.now();
    try {
      await next();
    } finally {
      const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? ctx.state.route ?? 'unmatched';
      metrics.request(ctx.method, String(route), ctx.status, (performance.now() - started) / 1000);
    }
  };
}

/** A 204 carries no body and no Content-Type: clients of the widely used API fail on one that does. */
async function emptyNoContent(ctx: Context, next: Next) {
  await next();
  if (ctx.status === 204) {
    ctx.body = null;
    ctx.remove('Content-Type');
  }
}

/** The type koa gives a body it serializes as JSON. */
const KOA_JSON = 'application/json; charset=utf-8';

/**
 * JSON answers say `application/json` exactly, as the widely used API does: koa adds `; charset=utf-8`, and clients
 * such as discord.py compare the whole header and read anything else as text. JSON is UTF-8 by definition.
 */
async function exactJsonType(ctx: Context, next: Next) {
  await next();
  // A route that set the exact type itself (a message page), or koa's own type for a JSON body, needs no media type parsed.
  const type = ctx.response.get('Content-Type');
  if (type === KOA_JSON || (type !== 'application/json' && ctx.response.is('json'))) ctx.set('Content-Type', 'application/json');
}

/** The methods `router` answers on `path`: a request with another one is refused with 405 and these in Allow. */
function allowedMethods(router: Router, path: string): string[] {
  const methods = new Set(router.match(path, '').path.flatMap((layer) => layer.methods));
  return [...methods].sort();
}

type Layer = Router['stack'][number];

/** A route layer with its middleware composed once, at start-up: @koa/router composes each matching layer's per request. */
interface ComposedLayer {
  layer: Layer;
  run: ReturnType<typeof compose<Context>>;
}

/**
 * Runs the route layers from `at` on that match the request, then `next`. Each sets what @koa/router's dispatch sets and
 * Parley reads: the path's parameters (merged over those before, decoded by the router's own code) and the matched
 * route's template, which measureRequest labels the request with.
 */
function runLayers(ctx: Context, layers: readonly ComposedLayer[], at: number, path: string, next: Next): Promise<unknown> {
  for (let i = at; i < layers.length; i++) {
    const { layer, run } = layers[i];
    if (!layer.methods.includes(ctx.method) || !layer.match(path)) continue;
    ctx.params = layer.params(path, layer.captures(path), ctx.params);
    (ctx as { _matchedRoute?: string })._matchedRoute = layer.path as string;
    return run(ctx, () => runLayers(ctx, layers, i + 1, path, next));
  }
  return next();
}

/**
 * The router's routes, run as its own dispatch would (each matching route in turn, the next one when a route passes
 * the request on) without composing each matching layer's middleware for each request, nor reading the host and path
 * it has no use for; a path that exists answers a method it does not take with 405 and Allow, as HTTP says.
 */
function routesOf(router: Router) {
  // Every layer is a route: a router middleware (a layer of no method) would run for any method, which this does not.
  const middleware = router.stack.find((layer) => layer.methods.length === 0);
  if (middleware) throw new Error(`A router middleware is not supported here: ${String(middleware.path)}`);
  const layers = router.stack.map((layer) => ({ layer, run: compose(layer.stack as Middleware[]) }));
  return async function route(ctx: Context, next: Next) {
    await runLayers(ctx, layers, 0, routedPath(ctx), next);
    if (ctx.status !== 404 || ctx.body !== undefined) return;
    const allowed = allowedMethods(router, routedPath(ctx));
    if (allowed.length === 0) return;
    ctx.set('Allow', allowed.join(', '));
    ctx.throw(405, `${ctx.method} is not allowed here: use ${allowed.join(', ')}`);
  };
}

/**
 * The path the routers match: an API request's path after its version prefix, given to @koa/router as newRouterPath
 * (which it reads before ctx.path) rather than written into ctx.path, which koa would parse and format the URL for,
 * twice per request with its restoring.
 */
const routedPath = (ctx: Context): string => (ctx as { newRouterPath?: string }).newRouterPath ?? ctx.path;

/**
 * A path's group: its first segment as the router compares it (case-insensitively) and its number of segments, one
 * trailing slash aside (the router takes one): `channels/3` for `/Channels/1/messages/`. A route's parameters never
 * hold a slash, so a path can match only the routes of its own group.
 */
function groupOf(path: string): string {
  const end = path.length > 1 && path.endsWith('/') ? path.length - 1 : path.length;
  let segments = 0;
  for (let i = 0; i < end; i++) if (path.charCodeAt(i) === 0x2f) segments++;
  const second = path.indexOf('/', 1);
  return `${path.slice(1, second === -1 || second > end ? end : second).toLowerCase()}/${segments}`;
}

/** For a path no route's group has: on to what follows, as a router with no match does. */
const noRoute = (_ctx: Context, next: Next) => next();

/**
 * The router's routes by their path's group (groupOf), each group with the 405 handling of routesOf: @koa/router tests
 * every route's pattern in turn, so a request is matched against the few routes of its own first segment and length
 * instead of all of them (a page read: 14 of the 55 under /channels). A route whose first segment is a parameter, or
 * whose length varies (an optional part, a wildcard), or that ends in a slash, would not be in one group: it is refused
 * at start-up; `/` itself (the API's root) is a group of its own.
 */
function routesByGroup(router: Router): (ctx: Context, next: Next) => Promise<unknown> {
  const groups = new Map<string, Router>();
  for (const layer of router.stack) {
    const path = String(layer.path);
    const segment = path.split('/', 2)[1] ?? '';
    const fixed = path === '/' || (/^[\w.@-]+$/.test(segment) && !/[{}*()?+]/.test(path) && !path.endsWith('/'));
    if (!fixed) throw new Error(`A route's first segment and length must be fixed: ${path}`);
    const group = groupOf(path);
    if (!groups.has(group)) groups.set(group, new Router());
    groups.get(group)!.stack.push(layer);
  }
  const routes = new Map([...groups].map(([group, routed]) => [group, routesOf(routed)]));
  return async (ctx, next) => (routes.get(groupOf(routedPath(ctx))) ?? noRoute)(ctx, next);
}

/** Routes API requests by the path after their version prefix (set by apiVersion); others go to the CDN router. */
function mountApi(api: Router, root: Router) {
  const apiRoutes = routesByGroup(api);
  const rootRoutes = routesOf(root);
  return async function dispatch(ctx: Context, next: Next) {
    if (!ctx.state.api) return rootRoutes(ctx, next);
    (ctx as { newRouterPath?: string }).newRouterPath = ctx.state.api.path;
    return apiRoutes(ctx, next);
  };
}

/**
 * The reference: this document, the page that renders it, and GET /, which leads there. The document is built from
 * these entries too, so they are given it to call, not to import.
 */
const REFERENCE_ROUTES = referenceRoutes(() => DOCUMENT);

/**
 * The API's route modules, in the order the router tries them (a route that passes a request on, as the channel
 * routes do for DMs, comes before the one it passes it to), each a list of route entries (http/route.ts).
 */
const API_MODULES: readonly (readonly Route[])[] = [
  applicationRoutes,
  applicationCommandRoutes,
  accountRoutes,
  userRoutes,
  gatewayRoutes,
  guildRoutes,
  emojiRoutes,
  stickerRoutes,
  roleRoutes,
  memberRoutes,
  moderationRoutes,
  // Before the threads': a forum's POST /channels/:channelId/threads opens a post there, other ids passed on.
  forumRoutes,
  // Before the guild channels': a thread's /channels/:channelId is answered there, other ids passed on.
  threadRoutes,
  channelRoutes,
  inviteRoutes,
  vanityRoutes,
  auditLogRoutes,
  guildEventRoutes,
  guildHistoryRoutes,
  autoModerationRoutes,
  messageRoutes,
  dmRoutes,
  callRoutes,
  interactionWebhookRoutes,
  webhookRoutes,
  interactionRoutes,
  // OAuth2: the token endpoints, and the authorization page, which the origin's root serves too.
  oauth2Routes,
  oauth2AuthorizeRoutes,
  REFERENCE_ROUTES,
];

/** Every API route declared as an entry. */
export const API_ROUTES: readonly Route[] = API_MODULES.flat();

/** The pages the origin's root alone serves, outside the API: the CDN and the moderator console. */
const ROOT_ONLY_ROUTES: readonly Route[] = [...cdnRoutes, ...consoleRoutes];

/** The reference's tags, in the order it shows them. */
const TAG_ORDER: readonly string[] = Object.keys(TAGS);

/**
 * Every documented route, in the order the reference shows them: by tag, in TAGS' order, and within a tag in the
 * router's order; the CDN's, the operator's endpoints answered before routing, and the reference's own among them.
 */
export const ROUTE_DOCS: readonly RouteDoc[] = routeDocs([...API_ROUTES, ...ROOT_ONLY_ROUTES])
  .concat(operationDocs)
  .sort((a, b) => TAG_ORDER.indexOf(a.tag) - TAG_ORDER.indexOf(b.tag));

/** The OpenAPI document, built once: an entry it cannot document fails at start-up. */
const DOCUMENT = openApiDocument(ROUTE_DOCS);

/**
 * Every API route, relative to the version prefix. The modules' routes are merged into one router, which runs its
 * middleware only for a request a route matches: an allowedMethods() per module would wrap each request some twenty
 * times to change nothing, so refusals of a method are routesOf's alone.
 */
export function apiRouter(deps: HttpDeps, limiters = rateLimiters(API_ROUTES, deps.rateLimits)): Router {
  return router(API_ROUTES, deps, limiters);
}

/** What the origin's root answers: its own pages, and the API's entries served there too (`root: 'also'`). */
export function rootRouter(deps: HttpDeps, limiters = rateLimiters(API_ROUTES, deps.rateLimits)): Router {
  return router([...ROOT_ONLY_ROUTES, ...API_ROUTES.filter((entry) => entry.root)], deps, limiters);
}

/** `admission`: the server's, which has already taken each request's place or refused it (http/admission.ts). */
export function createApp(deps: HttpDeps, options: AppOptions, admission: Admission): Koa {
  const app = new Koa({ proxy: deps.config.plainHttp });
  app.silent = true;

  // One limiter per bucket for both mounts: the authorization page at the root and under the API counts once.
  const limiters = rateLimiters(API_ROUTES, deps.rateLimits);
  const api = apiRouter(deps, limiters);
  const root = rootRouter(deps, limiters);

  app.use(exactJsonType);
  app.use(measure(deps.metrics));
  app.use(requestId);
  app.use(apiVersion);
  app.use(errorHandler(deps.log));
  app.use(emptyNoContent);
  app.use(operations({ ...options, metricsToken: deps.config.metricsToken }));
  app.use(admission.middleware);
  app.use(bodyParser(deps.config.jsonBodyLimit));
  app.use(authenticate(deps.readStore, deps.clock, scopes(API_ROUTES)));
  app.use(mountApi(api, root));
  return app;
}
