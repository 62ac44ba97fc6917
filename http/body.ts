// Request bodies: JSON (or a URL-encoded form, for the OAuth2 token routes) read up to a size limit. Multipart bodies
// are left to the routes that take files.
import type { Context, Next } from 'koa';
import getRawBody from 'raw-body';
import { DomainError, badRequest } from '../domain/errors.js';

declare module 'koa' {
  interface Request {
    body?: unknown;
  }
}

export function bodyParser(limit: number) {
  return async function parseBody(ctx: Context, next: Next) {
    const hasBody = ctx.request.length > 0 || (ctx.get('transfer-encoding') !== '' && ctx.request.length === undefined);
    const type = ctx.request.type;
    if (!hasBody || ctx.method === 'GET' || ctx.method === 'HEAD' || type === 'multipart/form-data') return next();
    const form = type === 'application/x-www-form-urlencoded';
    if (type && type !== 'application/json' && !type.endsWith('+json') && !form && type !== 'text/plain') {
      throw new DomainError('invalid', 'UNSUPPORTED_MEDIA_TYPE', `Unsupported Content-Type ${type}: send application/json`);
    }
    const text = await getRawBody(ctx.req, { limit, length: ctx.request.length, encoding: 'utf8' });
    if (text.trim() === '') return next();
    if (form) {
      ctx.request.body = Object.fromEntries(new URLSearchParams(text));
      return next();
    }
    try {
      ctx.request.body = JSON.parse(text);
    } catch {
      throw badRequest('INVALID_JSON', 'The request body contains invalid JSON.');
    }
    return next();
  };
}
