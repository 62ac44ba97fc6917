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
   * The `code` an error is answered with. The spec's codes are strings (`UNKNOWN_MESSAGE`); the widely used API's are
   * numbers (10008), which its clients compare (discord.js's `DiscordAPIError.code`, discord.py's `HTTPException.code`).
   */
  errorCode(code: string): string | number;
  /**
   * An unknown route's and a refused method's message: the spec's says what was asked (`No route for GET /x`); the
   * widely used API answers the status line (`404: Not Found`), which its clients show.
   */
  statusLineMessages: boolean;
}

/**
 * The widely used API's number for each code this server answers with one, named as discord-api-types'
 * RESTJSONErrorCodes names it (test/http/errorCodes.test.ts holds each number to that name; the app does not load
 * that package). Field errors inside `errors` keep their string codes (`BASE_TYPE_REQUIRED`), as there.
 */
export const WIDELY_USED_ERROR_NUMBERS: Readonly<Record<string, number>> = {
  UNKNOWN_APPLICATION: 10002,
  UNKNOWN_CHANNEL: 10003,
  UNKNOWN_GUILD: 10004,
  UNKNOWN_INVITE: 10006,
  UNKNOWN_MEMBER: 10007,
  UNKNOWN_MESSAGE: 10008,
  UNKNOWN_ROLE: 10011,
  UNKNOWN_USER: 10013,
  UNKNOWN_EMOJI: 10014,
  UNKNOWN_WEBHOOK: 10015,
  UNKNOWN_BAN: 10026,
  UNKNOWN_STICKER: 10060,
  UNKNOWN_INTERACTION: 10062,
  UNKNOWN_APPLICATION_COMMAND: 10063,
  BOTS_NOT_ALLOWED: 20001,
  BOTS_ONLY: 20002,
  SLOWMODE_RATE_LIMITED: 20016,
  MAX_PINS: 30003,
  MAX_RECIPIENTS: 30004,
  MAXIMUM_WEBHOOKS: 30007,
  MAXIMUM_EMOJIS_REACHED: 30008,
  MAX_REACTIONS: 30010,
  TOO_MANY_ATTACHMENTS: 30015,
  MAX_APPLICATION_COMMANDS: 30032,
  MAXIMUM_STICKERS_REACHED: 30039,
  MAX_PINNED_THREADS: 30047,
  REQUEST_ENTITY_TOO_LARGE: 40005,
  // It refuses a file over its limit with the same 413 as a body over it.
  FILE_TOO_LARGE: 40005,
  USER_BANNED: 40007,
  TARGET_NOT_IN_VOICE: 40032,
  INTERACTION_FAILED: 40043,
  CANNOT_SEND_IN_FORUM_CHANNEL: 40058,
  INTERACTION_ALREADY_ACKNOWLEDGED: 40060,
  TAG_REQUIRED: 40067,
  MISSING_ACCESS: 50001,
  NOT_A_BOT: 50002,
  CANNOT_BULK_DELETE_IN_DM: 50003,
  CANNOT_EDIT_MESSAGE_BY_OTHER: 50005,
  CANNOT_SEND_EMPTY_MESSAGE: 50006,
  CANNOT_SEND_MESSAGES_TO_USER: 50007,
  CANNOT_SEND_IN_NON_TEXT_CHANNEL: 50008,
  APPLICATION_HAS_NO_BOT: 50010,
  MISSING_PERMISSIONS: 50013,
  CANNOT_EXECUTE_ON_CHANNEL_TYPE: 50024,
  NOT_A_VOICE_CHANNEL: 50024,
  INVALID_OAUTH2_ACCESS_TOKEN: 50025,
  MISSING_OAUTH2_SCOPE: 50026,
  INVALID_WEBHOOK_TOKEN: 50027,
  INVALID_ROLE: 50028,
  INVALID_FORM_BODY: 50035,
  // Its "Invalid Form Body or invalid Content-Type provided": a body that is neither JSON nor readable multipart.
  INVALID_MULTIPART: 50035,
  UNSUPPORTED_MEDIA_TYPE: 50035,
  NOT_AN_IMAGE: 50046,
  THREAD_ARCHIVED: 50083,
  INVALID_JSON: 50109,
  IMAGE_QUEUE_FULL: 130000,
  THREAD_ALREADY_CREATED: 160004,
  THREAD_LOCKED: 160005,
  AUTOMOD_BLOCKED: 200000,
  WEBHOOK_FORUM_THREAD_REQUIRED: 220001,
  WEBHOOK_FORUM_THREAD_NAME_AND_ID: 220002,
  WEBHOOK_THREADS_ONLY_IN_FORUMS: 220003,
  WEBHOOK_SERVICES_NOT_IN_FORUMS: 220004,
  FAILED_TO_BAN_USERS: 500000,
};

const SPEC: ApiVersion = { formErrors: 'list', stickerList: 'page', errorCode: (code) => code, statusLineMessages: false };
const WIDELY_USED: ApiVersion = {
  formErrors: 'tree',
  stickerList: 'array',
  // Every other code is its general error, 0: what it answers itself for a missing or bad token (`401: Unauthorized`),
  // an unknown route, a refused method, a rate limit and its 503s, and what a client of it reads as "no specific
  // number" for refusals it has no number of its own for (this server's WRITE_CONFLICT, OWNER_CANNOT_LEAVE, ...).
  errorCode: (code) => WIDELY_USED_ERROR_NUMBERS[code] ?? 0,
  statusLineMessages: true,
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
