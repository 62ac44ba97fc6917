// The API's version prefixes, and every shape that differs between them. The spec: "The current API version is `v1`.
// Documented routes sit under the `/v1/` prefix", and "When the version prefix is omitted, the latest stable version
// answers" (here v1 too). /api/v9 and /api/v10 serve the same routes for clients that pin the widely used API's
// versions (discord.js's REST defaults to 10, deployment scripts build `new REST({ version: '10' })`, discord.py calls
// v10), so that pointing one at this server takes its base address alone. On those two, the few shapes where the spec
// departs from the widely used API are answered the widely used API's way, since those clients parse them.
import type { Context, Next } from 'koa';
import type { FieldError } from '../domain/errors.js';

export interface ApiVersion {
  /**
   * INVALID_FORM_BODY's `errors`. The spec: "`errors`: array of `{path, message}`. `path` uses dot and index notation"
   * (`list`). The widely used API nests them by path with each field's under `_errors` (`tree`): discord.py walks
   * that object (the spec's array makes it raise AttributeError instead of HTTPException) and discord.js flattens it
   * into its error's message.
   */
  formErrors: 'list' | 'tree';
  /**
   * GET /guilds/{guild.id}/stickers. The spec: "200 object: `stickers` (array), `total` (integer), `limit`, `offset`"
   * (`page`). The widely used API answers the guild's stickers as a plain array, unpaged (`array`), which discord.js's
   * guild.stickers.fetch() reads.
   */
  stickerList: 'page' | 'array';
  /**
   * Error codes answered as the widely used API numbers them, where a client may compare the number: a message that
   * auto-moderation blocked is its 200000, one sent straight into a forum its 40058, one to a deleted account its 50007, a send in slowmode its 20016, a forum's webhook's refusals its 2200xx. The spec's codes are strings (`AUTOMOD_BLOCKED`).
   */
  errorCodes: Readonly<Record<string, number>>;
}

const SPEC: ApiVersion = { formErrors: 'list', stickerList: 'page', errorCodes: {} };
const WIDELY_USED: ApiVersion = {
  formErrors: 'tree',
  stickerList: 'array',
  errorCodes: {
    AUTOMOD_BLOCKED: 200000,
    CANNOT_SEND_IN_FORUM_CHANNEL: 40058,
    CANNOT_SEND_MESSAGES_TO_USER: 50007,
    TAG_REQUIRED: 40067,
    SLOWMODE_RATE_LIMITED: 20016,
    MAX_PINNED_THREADS: 30047,
    WEBHOOK_FORUM_THREAD_REQUIRED: 220001,
    WEBHOOK_FORUM_THREAD_NAME_AND_ID: 220002,
    WEBHOOK_THREADS_ONLY_IN_FORUMS: 220003,
    WEBHOOK_SERVICES_NOT_IN_FORUMS: 220004,
    // Its general error: what its 503s carry.
    SERVICE_UNAVAILABLE: 0,
  },
};

/** By the prefix after /api: none (the latest, which is v1), v1, and the widely used API's v9 and v10. */
const VERSIONS: Record<string, ApiVersion> = { '': SPEC, '/v1': SPEC, '/v9': WIDELY_USED, '/v10': WIDELY_USED };
const PREFIX = /^\/api(\/v(?:1|9|10))?(?=\/|$)/;

/** The API request a path names: its version and the path after the prefix (what the routes match); null outside /api. */
export interface ApiRequest {
  version: ApiVersion;
  path: string;
}

declare module 'koa' {
  interface DefaultState {
    /** Set for requests under /api, before the body is read: refusals of the body already answer in its version's shape. */
    api?: ApiRequest;
  }
}

export function apiRequest(path: string): ApiRequest | null {
  const match = PREFIX.exec(path);
  return match ? { version: VERSIONS[match[1] ?? ''], path: path.slice(match[0].length) || '/' } : null;
}

/** Notes the request's API version and route path in ctx.state.api (see apiRequest). */
export function apiVersion(ctx: Context, next: Next) {
  const request = apiRequest(ctx.path);
  if (request) ctx.state.api = request;
  return next();
}

/** The shapes to answer in: the request's version's, or the spec's outside /api (the CDN, the root's pages). */
export const versionOf = (ctx: Context): ApiVersion => ctx.state.api?.version ?? SPEC;

interface ErrorTree {
  [segment: string]: ErrorTree | { code: string; message: string }[] | undefined;
  _errors?: { code: string; message: string }[];
}

/**
 * Field errors as the widely used API nests them: `embeds.0.title` → `{embeds: {0: {title: {_errors: [{code,
 * message}]}}}}`, a whole-body error (`_root`) under the top level's `_errors`. Nodes have no prototype: segments are
 * field names a client chose, `__proto__` among them.
 */
function errorTree(errors: FieldError[]): ErrorTree {
  const tree: ErrorTree = Object.create(null);
  for (const { path, message, code } of errors) {
    // A field a client named `_errors` is no node to nest under: its errors join the list of the field around it.
    const segments = path === '_root' ? [] : path.split('.').filter((segment) => segment !== '_errors');
    let node = tree;
    for (const segment of segments) node = (node[segment] ??= Object.create(null)) as ErrorTree;
    (node._errors ??= []).push({ code: code ?? 'BASE_TYPE_INVALID', message });
  }
  return tree;
}

/** INVALID_FORM_BODY's `errors` in the version's shape; the spec's list keeps to its `{path, message}`. */
export function formErrorsFor(version: ApiVersion, errors: FieldError[]) {
  return version.formErrors === 'tree' ? errorTree(errors) : errors.map(({ path, message }) => ({ path, message }));
}
