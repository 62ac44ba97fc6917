// What one documented route says: the route modules' own schemas (never a second description of a body), who may
// call it, what it answers and the refusals it can give. A route entry (http/route.ts) is one of these with its
// handler, buckets and scope; routeDocs reads it as this. http/openapi/document.ts turns them into the OpenAPI
// document; test/http/openapi.test.ts holds them against the routers.
import type { Scope } from '../../domain/oauth2.js';
import type { AuditActionName } from '../../projections/auditLog.js';
import type { ErrorCode } from './errors.js';

/** A JSON schema as a route module declares it (`as const`). */
export type Schema = Readonly<Record<string, unknown>>;

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call: a person's session (`Bearer`), a bot (`Bot`), either, nobody in particular, or the holder of the
 * webhook or interaction token in the path (which is the credential, no Authorization header needed), or an OAuth2
 * client (HTTP Basic with its id and secret, or both in the form).
 */
export type Auth = 'session' | 'bot' | 'any' | 'none' | 'webhook-token' | 'client';

/** The groups of the reference, in the order it shows them. */
export const TAGS = {
  Accounts: 'Registering, logging in, applications and their bots (outside the spec, in the widely used API’s shapes).',
  Users: 'The caller’s own user, other users, and the caller’s guilds.',
  Guilds: 'Guilds: create, read, change, delete, leave.',
  Channels: 'A guild’s channels and their permission overwrites; one channel (a DM too) by id.',
  Roles: 'A guild’s roles, within the role hierarchy.',
  Members: 'A guild’s members, their roles, and bans.',
  Expressions: 'A guild’s custom emojis and stickers.',
  Invites: 'Invites of a channel, a guild or a sticker pack, and vanity URLs.',
  'Audit log': 'What happened in a guild, derived from its events.',
  Threads: 'Threads under text and announcement channels, and their members (a thread is also a channel by id).',
  Messages: 'Messages, typing, pins and reactions.',
  DMs: 'Direct messages and group DMs.',
  Webhooks: 'Webhook management, the token routes, execution and the code-host and chat adapters.',
  'Application commands': 'Global and per-guild application commands.',
  Interactions: 'Component clicks, command invocations and the bot’s responses and follow-ups.',
  OAuth2: 'The authorization page and the token endpoints.',
  Gateway: 'Where the WebSocket gateway is.',
  CDN: 'User content at the origin’s root: avatars, icons, attachments.',
  Operations: 'The operator’s endpoints at the origin’s root.',
  Reference: 'This document and the page that renders it.',
  Console: 'The moderator console, a page at the origin’s root.',
} as const;

export type Tag = keyof typeof TAGS;

/**
 * One answer: its description, and the schema of its body (JSON unless `type` names another media type), or for an
 * answer that comes in several media types, the schema of each.
 */
export interface Answer {
  description: string;
  schema?: Schema;
  type?: string;
  content?: Record<string, Schema>;
}

/** A rate-limit bucket: `points` requests per `durationSeconds` for each key, and `burst` more at once. */
export interface RateLimitDoc {
  bucket: string;
  points: number;
  durationSeconds: number;
  burst?: number;
  burstSeconds?: number;
  when?: string;
}

export interface RouteDoc {
  method: Method;
  /** Koa form, relative to /api/v1 (or to the origin for `root` routes): '/guilds/:guildId'. */
  path: string;
  summary: string;
  description?: string;
  tag: Tag;
  auth: Auth;
  /** The route's path parameter schema; every parameter of the path must have a property here. */
  params?: Schema;
  query?: Schema;
  headers?: Schema;
  /** The schema the route validates its body with. */
  body?: Schema;
  /** The body may also come as multipart/form-data: payload_json holding the body, and files[n]. */
  multipart?: boolean;
  /** The body may also come as an application/x-www-form-urlencoded form whose `payload` field holds it. */
  form?: boolean;
  /** The body is an application/x-www-form-urlencoded form of these fields, not JSON. */
  formFields?: boolean;
  /** An OAuth2 access token with this scope may call the route too (http/auth.ts). */
  oauth2Scope?: Scope;
  /**
   * The audit-log action its events record (those it may record, when it depends on the request), shown as
   * `x-audit-log-action`: actions projections/auditLog.ts declares for the events it audits; every route that records
   * one says which (test/http/auditActions.test.ts).
   */
  audit?: AuditActionName | readonly AuditActionName[];
  /** Its answers by status; a refusal here (a route that refuses in a format of its own) replaces the catalogue's. */
  responses: Partial<Record<number, Answer>>;
  /** The buckets it spends (shown as `x-rate-limits`); `when` for one spent on some of its requests only. */
  rateLimits?: readonly RateLimitDoc[];
  /** The refusals the route gives besides those every route of its kind can give (document.ts adds those). */
  errors: readonly ErrorCode[];
  /** Served at the origin's root (the CDN, the operator's endpoints) instead of under /api/v1, or there too. */
  root?: 'only' | 'also';
  deprecated?: true;
}

/** A path parameter schema of several route schemas' properties (a route that checks its parameters in parts). */
export const paramsOf = (...schemas: (Schema | undefined)[]): Schema | undefined =>
  schemas.every((s): s is Schema => s !== undefined)
    ? {
        type: 'object',
        properties: Object.assign({}, ...schemas.map((s) => s.properties)),
        required: schemas.flatMap((s) => (s.required as string[] | undefined) ?? []),
      }
    : undefined;

/** A path of the router with its parameter names erased: two layers of one shape answer the same requests. */
export const routeShape = (method: string, path: string) => `${method} ${path.replace(/:\w+/g, ':')}`;
