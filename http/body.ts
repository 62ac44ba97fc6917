// Request bodies: JSON read up to a size limit. A URL-encoded form or a multipart body is kept as a NonJsonBody for
// the routes that take one (webhook adapters read forms, message sends multipart); every other route's parseBody
// answers it with 415, so a `curl -d` without a JSON Content-Type is told so instead of losing its body.
import type { Context, Next } from 'koa';
import getRawBody from 'raw-body';
import { badRequest, invalidForm } from '../domain/errors.js';
import { parseJsonKeepingIds } from '../domain/snowflake.js';
import { unsupportedMediaType } from './errors.js';

declare module 'koa' {
  interface Request {
    body?: unknown;
  }
}

/**
 * Far deeper than any route's shape (an embed's extra fields, a code host's payload). JSON.parse takes any depth, but
 * JSON.stringify, ajv and the projectors recurse: a deeper body is refused before it reaches any of them, so it can
 * neither overflow a stack nor enter the log as an event the read side cannot process.
 */
export const MAX_JSON_DEPTH = 32;

/** Refuses a parsed JSON value nested deeper than MAX_JSON_DEPTH, naming the path where it gets too deep. */
export function refuseDeepJson(value: unknown): void {
  // Iterative on purpose: the value may be deeper than the call stack.
  const stack: { value: unknown; depth: number; path: string }[] = [{ value, depth: 0, path: '' }];
  while (stack.length > 0) {
    const { value: node, depth, path } = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= MAX_JSON_DEPTH) throw invalidForm([{ path: path || '_root', message: `Nested deeper than ${MAX_JSON_DEPTH} levels` }]);
    for (const [key, child] of Object.entries(node)) {
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: depth + 1, path: path ? `${path}.${key}` : key });
    }
  }
}

/** Parses a JSON body or payload_json: 400 INVALID_JSON when it is not JSON, INVALID_FORM_BODY when it is too deep. */
export function parseJsonText(text: string, what: string): unknown {
  let value: unknown;
  try {
    value = parseJsonKeepingIds(text);
  } catch {
    throw badRequest('INVALID_JSON', `${what} contains invalid JSON.`);
  }
  refuseDeepJson(value);
  return value;
}

/** A form (its fields read) or a multipart body (left unread for the route): not JSON, so parseBody refuses it. */
export class NonJsonBody {
  constructor(
    readonly type: string,
    readonly fields: Readonly<Record<string, string>> = {},
  ) {}
}

export function bodyParser(limit: number) {
  return async function parseBody(ctx: Context, next: Next) {
    // A GET's or HEAD's body is never read: its headers are not looked at either.
    if (ctx.method === 'GET' || ctx.method === 'HEAD') return next();
    const hasBody = ctx.request.length > 0 || (ctx.get('transfer-encoding') !== '' && ctx.request.length === undefined);
    if (!hasBody) return next();
    const type = ctx.request.type;
    if (type === 'multipart/form-data') {
      ctx.request.body = new NonJsonBody(type);
      return next();
    }
    const form = type === 'application/x-www-form-urlencoded';
    if (type && type !== 'application/json' && !type.endsWith('+json') && !form && type !== 'text/plain') {
      throw unsupportedMediaType(type);
    }
    // raw-body refuses a declared Content-Length over the limit before reading, and a chunked body once it passes it.
    const text = await getRawBody(ctx.req, { limit, length: ctx.request.length, encoding: 'utf8' });
    if (text.trim() === '') return next();
    ctx.request.body = form ? new NonJsonBody(type, Object.fromEntries(new URLSearchParams(text))) : parseJsonText(text, 'The request body');
    return next();
  };
}
