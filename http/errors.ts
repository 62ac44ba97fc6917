// Every failure leaves as the spec's error body: {code, message} (the code numbered as the widely used API numbers it
// on its versions), plus errors[{path, message}] for form validation
// (nested as the widely used API has them on its versions: http/apiVersions.ts) and {retry_after, global} on a 429.
// A dependency unavailable for now answers 503 with Retry-After; unexpected failures are logged and answered 500
// without detail.
import type { Context, Next } from 'koa';
import { DomainError, type ErrorKind } from '../domain/errors.js';
import type { Logger } from '../ports/logger.js';
import { outageOf } from '../ports/outages.js';
import { formErrorsFor, versionOf } from './apiVersions.js';
import { closeAfterAnswer } from './lingeringClose.js';
import { RateLimited } from './rateLimit.js';

export const STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  // What the request depended on failed (an application's interactions endpoint): not the caller's doing, nor the service's.
  failed_dependency: 424,
  rate_limited: 429,
};

/** A webhook's URL carries its token, and so does an interaction's callback: logs name the route without it. */
export const redactPath = (path: string) => path.replace(/(\/(?:webhooks|interactions)\/\d+\/)[^/]+/, '$1[redacted]');

export const unauthorized = () => new DomainError('unauthorized', 'UNAUTHORIZED', '401: Unauthorized');

/** An HTTP refusal the domain has no word for; answered as {code, message} like the rest. */
const httpError = (status: number, message: string) => Object.assign(new Error(message), { status });

export const unsupportedMediaType = (type: string) => httpError(415, `This route takes application/json, not ${type}`);

export function errorHandler(log: Logger) {
  return async function handleErrors(ctx: Context, next: Next) {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        const message = versionOf(ctx).statusLineMessages ? '404: Not Found' : `No route for ${ctx.method} ${ctx.path}`;
        throw new DomainError('not_found', 'NOT_FOUND', message);
      }
    } catch (error) {
      answer(ctx, error, log);
      // The rest of a body too large to read is not worth receiving: the connection ends after this answer.
      if (ctx.status === 413) closeAfterAnswer(ctx);
    }
  };
}

/** Sets the spec's error body and status for a failure; unexpected ones are logged and answered 500 without detail. */
function answer(ctx: Context, error: unknown, log: Logger): void {
  if (error instanceof DomainError) {
    ctx.status = STATUS[error.kind];
    const retryAfter = error.kind === 'rate_limited' ? refuseForNow(ctx, error) : null;
    // A write that lost to others (WRITE_CONFLICT) appended nothing: the client may send it again.
    if (error.retryAfter !== undefined && retryAfter === null) ctx.set('Retry-After', String(Math.ceil(error.retryAfter)));
    ctx.body = {
      code: versionOf(ctx).errorCode(error.code),
      message: error.message,
      ...(error.errors ? { errors: formErrorsFor(versionOf(ctx), error.errors) } : {}),
      ...(retryAfter !== null ? { retry_after: retryAfter, global: false } : {}),
    };
    return;
  }
  const status = (error as { status?: number; expose?: boolean }).status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // Errors thrown by koa itself or by body parsing libraries (e.g. raw-body's 413 and 400).
    ctx.status = status;
    const version = versionOf(ctx);
    const message = status === 405 && version.statusLineMessages ? '405: Method Not Allowed' : (error as Error).message;
    ctx.body = { code: version.errorCode(httpCode(status)), message };
    return;
  }
  if (status === 503 || outageOf(error)) {
    // A dependency that cannot be reached for now (the read models of a distributed deployment, a database restarting
    // or out of connections): the error says what the client may be told, and when to come back.
    const { answer: message, retryAfter } = error as { answer?: string; retryAfter?: number };
    log.warn({ err: error, requestId: ctx.state.requestId, method: ctx.method, path: redactPath(ctx.path) }, 'request failed: a dependency is unavailable');
    ctx.status = 503;
    ctx.set('Retry-After', String(retryAfter ?? 1));
    ctx.body = { code: versionOf(ctx).errorCode('SERVICE_UNAVAILABLE'), message: message ?? 'Service Unavailable' };
    return;
  }
  log.error({ err: error, requestId: ctx.state.requestId, method: ctx.method, path: redactPath(ctx.path) }, 'request failed');
  ctx.status = 500;
  ctx.body = { code: versionOf(ctx).errorCode('INTERNAL_SERVER_ERROR'), message: 'Internal Server Error' };
}

/**
 * The headers of a 429, as clients of the widely used API read them; returns the seconds to wait. Every 429 says when
 * to come back (a client without Retry-After retries at once, in a loop) and whose limit it hit: a bucket's, or
 * slowmode's, is the caller's own (`user`); any other refusal (a full image queue) is the service's, `shared`, and clears within a
 * second. discord.py retries a 429 only if it has a Via header, which the widely used API's answers get from its
 * proxy: without one it takes the 429 for a ban and raises instead of waiting.
 */
function refuseForNow(ctx: Context, error: DomainError): number {
  // Slowmode is the caller's own limit too: their last send in the channel decides when the next may come.
  const own = error instanceof RateLimited || error.code === 'SLOWMODE_RATE_LIMITED';
  const [retryAfter, scope] = own ? [error.retryAfter ?? 1, 'user'] : [error.retryAfter ?? 1, 'shared'];
  ctx.set('Retry-After', String(Math.ceil(retryAfter)));
  ctx.set('X-RateLimit-Scope', scope);
  ctx.set('Via', '1.1 parley');
  return retryAfter;
}

function httpCode(status: number): string {
  switch (status) {
    case 413:
      return 'REQUEST_ENTITY_TOO_LARGE';
    case 415:
      return 'UNSUPPORTED_MEDIA_TYPE';
    case 405:
      return 'METHOD_NOT_ALLOWED';
    default:
      return 'BAD_REQUEST';
  }
}
