// A route is one entry: its method and path, the ajv schemas of its parameters, query and body (the handler's input
// types derived from them), what it answers and refuses, its rate-limit buckets, the OAuth2 scope that opens it, the
// audit-log action it records, and its handler. The koa router (router), the OpenAPI document (routeDocs, which
// http/app.ts builds it from), the OAuth2 scope table (scopes, read by http/auth.ts) and the rate-limit table (limits)
// are all read from the same entries.
import Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import type { Contract } from '../contracts/schema.js';
import type { Scope } from '../domain/oauth2.js';
import type { RateLimits } from '../ports/rateLimits.js';
import { type ScopedRoute, requireAuth, requireSession } from './auth.js';
import type { HttpDeps } from './context.js';
import { noContent } from './context.js';
import type { RouteDoc, Schema } from './openapi/entry.js';
import { type LimitSpec, rateLimit } from './rateLimit.js';
import { type FromSchema, type JSONSchema, parseBody, parseQuery, snowflakeSchema } from './validation.js';

/** What a schema validates to; nothing for a part the route does not declare. */
type Parsed<S> = S extends JSONSchema ? FromSchema<S> : undefined;

export interface RouteInput<P, Q, B, L extends string = never> {
  params: Parsed<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
  spend: Spend<L>;
}

/** Spends one of the buckets the entry says its handler spends itself; a 429 (RateLimited) when it is empty. */
export type Spend<L extends string> = (bucket: L) => Promise<void>;

/**
 * A bucket the handler spends itself, on the requests `when` says (one flow of a page): the others do not spend it.
 * It is in the rate-limit table and the document as the buckets every request spends are.
 */
export interface ConditionalLimit extends LimitSpec {
  when: string;
}

/**
 * The parts of a request a handler reads itself, as its entry documents them: a multipart body, a query only some
 * versions read or read only once the caller may see the place, a path parameter with an alias (@me).
 */
type OwnInput = 'params' | 'query' | 'body';

/** A route's answers by status. */
export type Responses = RouteDoc['responses'];

/** The answer the router gives when the handler succeeds: the lowest status documented (successOf, below). */
type SuccessOf<R> = 200 extends keyof R ? R[200] : 201 extends keyof R ? R[201] : 204 extends keyof R ? R[204] : R[keyof R];

/**
 * What a handler may return for its success answer: a value of the type its JSON schema describes, when that schema
 * is a contract's (contracts/) or declared in place, or nothing once it has written the answer itself; anything where
 * the answer is not JSON, has no schema, or one typed only as a `Schema` (an outline written by hand).
 */
type Answered<A> = A extends { type: string }
  ? unknown
  : A extends { schema: infer S extends JSONSchema }
    ? Schema extends S
      ? unknown
      : Contract<S> | void
    : unknown;

type Handled<R> = Answered<SuccessOf<R>> | typeof passOn;

export interface RouteEntry<P, Q, B, L extends string = never, R extends Responses = Responses> extends Omit<
  RouteDoc,
  'params' | 'query' | 'body' | 'oauth2Scope' | 'rateLimits' | 'errors' | 'responses'
> {
  params?: P;
  query?: Q;
  body?: B;
  /** The refusals the route gives besides those every route of its kind can give (a bucket's 429 is added). */
  errors: RouteDoc['errors'];
  /** Its answers by status; the handler returns the body of the lowest, typed by its schema. */
  responses: R;
  /** Parts the router leaves unparsed: the handler reads them (with the same schemas) as they come. */
  readsItself?: readonly OwnInput[];
  /** Who may reach the route at all, before its buckets are spent (membership of the guild the path names). */
  guards?: readonly ((deps: HttpDeps) => Middleware)[];
  /** The buckets a request spends, in order; a bucket named by several routes is one bucket. */
  limits?: readonly LimitSpec[];
  /** The buckets the handler spends itself (`spend`), on some of its requests only. */
  spendsItself?: readonly (ConditionalLimit & { bucket: L })[];
  /** An OAuth2 access token with this scope may call the route (GET only), as well as sessions and bots. */
  scope?: Scope;
  /**
   * The operation of the other entry of the same method and path, which documents both: one of the two passes the other
   * the requests that are not its own (`passOn`), and a path has one operation in the reference. Two route modules
   * share it from http/shared/, neither importing the other.
   */
  documentedBy?: Operation;
  /**
   * Answers with what it returns, under the entry's success status, a value of the type that answer's schema describes;
   * a route that answers 204 returns nothing, and one that writes its own answer (a redirect, a file, a page's JSON
   * made of its messages' JSON) returns undefined after setting ctx. `passOn` hands the request on to the next route
   * of its path, untouched (a guild channel's route, for a DM's id).
   */
  handle(ctx: Context, input: NoInfer<RouteInput<P, Q, B, L>>, deps: HttpDeps): NoInfer<Handled<R> | Promise<Handled<R>>>;
}

/** What two entries of one method and path share: the operation the reference documents once, for both. */
export type Operation = Pick<RouteDoc, 'method' | 'path' | 'summary' | 'responses' | 'errors'>;

/** An entry as the derivations read it: its input types erased. */
export interface Route extends Omit<RouteEntry<Schema, Schema, Schema, string>, 'handle'> {
  handle(ctx: Context, input: { params: unknown; query: unknown; body: unknown; spend: (bucket: string) => Promise<void> }, deps: HttpDeps): unknown;
}

/** A handler's answer for a request that is not its route's: the next route on the same path answers it. */
export const passOn: unique symbol = Symbol('pass on');

/** Declares a route; the handler's input is typed from the schemas given. */
export function route<
  const P extends JSONSchema | undefined = undefined,
  const Q extends JSONSchema | undefined = undefined,
  const B extends JSONSchema | undefined = undefined,
  const L extends string = never,
  const R extends Responses = Responses,
>(entry: RouteEntry<P, Q, B, L, R>): Route {
  return entry as unknown as Route;
}

/** Every bucket the entry spends: those of all its requests, then those its handler spends itself. */
const bucketsOf = (entry: Route): readonly LimitSpec[] => [...(entry.limits ?? []), ...(entry.spendsItself ?? [])];

/** The rate-limit table: every bucket the routes spend, by name; one name with two specs is a mistake. */
export function limits(routes: readonly Route[]): Map<string, LimitSpec> {
  const buckets = new Map<string, LimitSpec>();
  for (const entry of routes) {
    for (const spec of bucketsOf(entry)) {
      if ((buckets.get(spec.bucket) ?? spec) !== spec) throw new Error(`${entry.method} ${entry.path}: the bucket ${spec.bucket} is declared twice`);
      buckets.set(spec.bucket, spec);
    }
  }
  return buckets;
}

/** One limiter per bucket of the table, shared by every route that names it. */
export const rateLimiters = (routes: readonly Route[], counters: RateLimits) =>
  new Map([...limits(routes)].map(([name, spec]) => [name, rateLimit(spec, counters)]));

/** The status a route answers when it succeeds: the lowest of its documented answers. */
const successOf = (entry: Route) => Math.min(...Object.keys(entry.responses).map(Number));

/** The credential the entry's `auth` names, where the router can check it: a token for `any`, a session for `session`. */
function authorize(ctx: Context, entry: Route): void {
  if (entry.auth === 'any') requireAuth(ctx);
  if (entry.auth === 'session') requireSession(ctx);
}

const spent = async () => {};

/** How many query strings a route keeps the checked query of, and the longest it keeps. */
const KEPT_QUERIES = 1000;
const KEPT_QUERY_LENGTH = 256;

/**
 * The route's checked query for the request: a query string seen before (a page read's `limit=50`) is not parsed and
 * checked again. Kept only when each value is a primitive, so the handler's own copy shares nothing it could change.
 */
function queryOf(ctx: Context, schema: JSONSchema, kept: Map<string, Record<string, unknown>>): unknown {
  const text = ctx.querystring;
  const known = kept.get(text);
  if (known) return { ...known };
  const query = parseQuery<JSONSchema, Record<string, unknown>>(schema, ctx.query);
  if (text.length <= KEPT_QUERY_LENGTH && Object.values(query).every((value) => value === null || typeof value !== 'object')) {
    if (kept.size >= KEPT_QUERIES) kept.clear();
    kept.set(text, { ...query });
  }
  return query;
}

/**
 * The handler's `spend` for one request: the named bucket's limiter, run on the request. Made here rather than inline in
 * the route's middleware, where the transpiler would name each request's copy (a defineProperty per request).
 */
function spenderFor(ctx: Context, spendable: ReadonlyMap<string, Middleware>): Spend<string> {
  return (bucket) => spendable.get(bucket)!(ctx, spent);
}

/**
 * The koa router of `routes`: each route's guards, then its buckets, its credential, its parsed input (parameters, then
 * query, then body), its handler and its answer. `limiters` lets routers of several modules, or of one module mounted
 * twice, share buckets.
 */
export function router(routes: readonly Route[], deps: HttpDeps, limiters = rateLimiters(routes, deps.rateLimits)): Router {
  const served = new Router();
  for (const entry of routes) {
    const success = successOf(entry);
    const own = new Set(entry.readsItself ?? []);
    // Which parts the router parses, decided once per route rather than on each request.
    const params = entry.params && !own.has('params') ? (entry.params as JSONSchema) : undefined;
    const query = entry.query && !own.has('query') ? (entry.query as JSONSchema) : undefined;
    const body = entry.body && !own.has('body') ? (entry.body as JSONSchema) : undefined;
    const buckets = (entry.limits ?? []).map((spec) => limiters.get(spec.bucket)!);
    const spendable = new Map((entry.spendsItself ?? []).map((spec) => [spec.bucket, limiters.get(spec.bucket)!]));
    const queries = new Map<string, Record<string, unknown>>();
    async function answer(ctx: Context, next: Next) {
      authorize(ctx, entry);
      const input = {
        params: params && parseBody<JSONSchema, unknown>(params, ctx.params),
        query: query && queryOf(ctx, query, queries),
        body: body && parseBody<JSONSchema, unknown>(body, ctx.request.body),
        spend: spenderFor(ctx, spendable),
      };
      const result = await entry.handle(ctx, input, deps);
      if (result === passOn) return next();
      if (success === 204) noContent(ctx);
      else if (result !== undefined) {
        ctx.status = success;
        ctx.body = result;
      }
    }
    served.register(entry.path, [entry.method.toLowerCase()], [...(entry.guards ?? []).map((guard) => guard(deps)), ...buckets, answer]);
  }
  return served;
}

/**
 * The routes as the reference documents them: a limited route can answer 429 and names its buckets, a scoped one takes
 * OAuth2 tokens; one documented by another entry of its path is left to that one.
 */
export const routeDocs = (routes: readonly Route[]): RouteDoc[] =>
  routes.flatMap((entry): RouteDoc[] => {
    const { guards: _g, limits: _l, spendsItself: _s, scope, handle: _h, readsItself: _r, documentedBy, ...doc } = entry;
    if (documentedBy) return [];
    const spent = bucketsOf(entry).map(({ key: _key, ...bucket }) => bucket);
    return [
      {
        ...doc,
        ...(scope ? { oauth2Scope: scope } : {}),
        ...(spent.length ? { rateLimits: spent } : {}),
        errors: spent.length ? [...doc.errors, 'RATE_LIMITED'] : doc.errors,
      },
    ];
  });

/** A path parameter's pattern in the scope table: an id is digits, as the route's schema will insist. */
const segmentOf = (entry: Route, name: string) => {
  const schema = (entry.params as { properties?: Record<string, unknown> } | undefined)?.properties?.[name];
  return schema === snowflakeSchema ? '\\d+' : '[^/]+';
};

/** The scope table: the path (without the version prefix) of every route an OAuth2 token may call, and its scope. */
export function scopes(routes: readonly Route[]): ScopedRoute[] {
  return routes.flatMap((entry) => {
    if (!entry.scope) return [];
    if (entry.method !== 'GET') throw new Error(`${entry.method} ${entry.path}: OAuth2 tokens read only (GET)`);
    const pattern = entry.path
      .split('/')
      .map((segment) => (segment.startsWith(':') ? segmentOf(entry, segment.slice(1)) : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('\\/');
    return [{ path: new RegExp(`^${pattern}\\/?$`, 'i'), scope: entry.scope }];
  });
}
