// The OAuth2 token endpoints (the spec's OAuth2 table, RFC 6749 §3.2 and RFC 7009): form-encoded requests, the client
// authenticated by HTTP Basic or by client_id and client_secret in the form (RFC 6749 §2.3.1, one way only), answers
// never cached, and refusals in RFC 6749 §5.2's {error, error_description}, which OAuth2 client libraries read.
import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { authenticateClient, exchangeCode, refreshGrant, revokeToken } from '../../commands/oauth2.js';
import { DomainError } from '../../domain/errors.js';
import { OAuth2Error, parseScopes } from '../../domain/oauth2.js';
import { NonJsonBody } from '../body.js';
import { type HttpDeps, requestMeta } from '../context.js';
import { RateLimited } from '../rateLimit.js';

const invalidRequest = (description: string) => new OAuth2Error('invalid_request', description);

/** Every answer of the token endpoints: never stored (RFC 6749 §5.1), refusals in RFC 6749 §5.2's form. */
async function answerAsOAuth2(ctx: Context, next: Next) {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
  try {
    await next();
  } catch (error) {
    // A rate limit keeps the spec's 429 and its Retry-After; an unexpected failure stays a logged 500.
    if (!(error instanceof DomainError) || error instanceof RateLimited) throw error;
    const refusal = error instanceof OAuth2Error ? error : invalidRequest(error.message);
    ctx.status = refusal.error === 'invalid_client' ? 401 : 400;
    if (ctx.status === 401) ctx.set('WWW-Authenticate', 'Basic realm="parley", charset="UTF-8"');
    ctx.body = { error: refusal.error, error_description: refusal.message };
  }
}

/** The form's fields; JSON or any other body is refused, as the spec's table and RFC 6749 §4.1.3 ask for a form. */
function formFields(ctx: Context): Readonly<Record<string, string>> {
  const body = ctx.request.body;
  if (body === undefined) return {};
  if (body instanceof NonJsonBody && body.type === 'application/x-www-form-urlencoded') return body.fields;
  throw invalidRequest('The token endpoints take an application/x-www-form-urlencoded form');
}

function required(fields: Readonly<Record<string, string>>, name: string): string {
  const value = fields[name];
  if (!value) throw invalidRequest(`${name} is required`);
  return value;
}

/** RFC 6749 §2.3.1: Basic's user name and password are each form-encoded before base64. */
function formDecoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw new OAuth2Error('invalid_client', 'The Basic credentials are not form-encoded');
  }
}

/** The client's id and secret, from HTTP Basic or the form. */
function clientCredentials(ctx: Context, fields: Readonly<Record<string, string>>): [string, string] {
  const header = ctx.get('authorization');
  if (header) {
    const basic = /^Basic\s+([A-Za-z0-9+/]+={0,2})$/i.exec(header.trim());
    if (!basic) throw new OAuth2Error('invalid_client', 'Authenticate the client with HTTP Basic, or with client_id and client_secret in the form');
    if (fields.client_secret !== undefined) throw invalidRequest('Authenticate the client one way only: HTTP Basic or the form');
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new OAuth2Error('invalid_client', 'The Basic credentials are not client_id:client_secret');
    const [id, secret] = [formDecoded(decoded.slice(0, colon)), formDecoded(decoded.slice(colon + 1))];
    if (fields.client_id !== undefined && fields.client_id !== id) throw invalidRequest('client_id differs from the Basic credentials');
    return [id, secret];
  }
  if (!fields.client_id || fields.client_secret === undefined) throw new OAuth2Error('invalid_client', 'Client authentication is required');
  return [fields.client_id, fields.client_secret];
}

export function oauth2Routes(deps: HttpDeps): Router {
  const router = new Router();

  async function client(ctx: Context, fields: Readonly<Record<string, string>>) {
    const [clientId, clientSecret] = clientCredentials(ctx, fields);
    // The client_id is an application id: anything else names no client (and no stream to load).
    if (!/^[0-9]{1,20}$/.test(clientId)) throw new OAuth2Error('invalid_client', 'Unknown client, or a wrong client secret');
    return authenticateClient(deps, clientId, clientSecret);
  }

  router.post('/oauth2/token', answerAsOAuth2, async (ctx) => {
    const fields = formFields(ctx);
    const authenticated = await client(ctx, fields);
    const accessTokenTtl = deps.config.oauth2AccessTokenTtl;
    switch (fields.grant_type) {
      case 'authorization_code':
        ctx.body = await exchangeCode(deps, requestMeta(ctx), authenticated, { code: required(fields, 'code'), redirectUri: required(fields, 'redirect_uri'), accessTokenTtl });
        return;
      case 'refresh_token': {
        const scopes = fields.scope ? parseScopes(fields.scope) : null;
        ctx.body = await refreshGrant(deps, requestMeta(ctx), authenticated, { refreshToken: required(fields, 'refresh_token'), scopes, accessTokenTtl });
        return;
      }
      case undefined:
      case '':
        throw invalidRequest('grant_type is required');
      default:
        throw new OAuth2Error('unsupported_grant_type', 'grant_type is authorization_code or refresh_token');
    }
  });

  // RFC 7009: 200 whether or not the token was valid, so that a revocation cannot probe for tokens.
  router.post('/oauth2/token/revoke', answerAsOAuth2, async (ctx) => {
    const fields = formFields(ctx);
    const authenticated = await client(ctx, fields);
    await revokeToken(deps, requestMeta(ctx), authenticated, required(fields, 'token'));
    ctx.body = {};
  });

  return router;
}
