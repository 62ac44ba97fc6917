// The OAuth2 token endpoints (the spec's OAuth2 table, RFC 6749 §3.2 and RFC 7009): form-encoded requests, the client
// authenticated by HTTP Basic or by client_id and client_secret in the form (RFC 6749 §2.3.1, one way only), answers
// never cached, and refusals in RFC 6749 §5.2's {error, error_description}, which OAuth2 client libraries read.
import { OAuth2Refusal, OAuth2Token } from '../../contracts/applications.js';
import type { Context, Next } from 'koa';
import { authenticateClient, exchangeCode, refreshGrant, revokeToken } from '../../commands/oauth2.js';
import { DomainError } from '../../domain/errors.js';
import { OAuth2Error, parseScopes } from '../../domain/oauth2.js';
import { NonJsonBody } from '../body.js';
import { type HttpDeps, requestMeta } from '../context.js';
import type { Answer } from '../openapi/entry.js';
import { RateLimited } from '../rateLimit.js';
import { route } from '../route.js';

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

/** The client the request authenticates as. */
async function client(deps: HttpDeps, ctx: Context, fields: Readonly<Record<string, string>>) {
  const [clientId, clientSecret] = clientCredentials(ctx, fields);
  // The client_id is an application id: anything else names no client (and no stream to load).
  if (!/^[0-9]{1,20}$/.test(clientId)) throw new OAuth2Error('invalid_client', 'Unknown client, or a wrong client secret');
  return authenticateClient(deps, clientId, clientSecret);
}

// The forms are read by hand (formFields, required): these schemas only describe them.
const field = (description: string) => ({ type: 'string', description }) as const;
const clientFields = {
  client_id: field('The application’s id, when the client does not authenticate with HTTP Basic.'),
  client_secret: field('Its client secret, likewise.'),
} as const;

const tokenForm = {
  type: 'object',
  properties: {
    grant_type: { type: 'string', enum: ['authorization_code', 'refresh_token'] },
    code: field('The authorization code (authorization_code).'),
    redirect_uri: field('The redirect URI the code was issued for (authorization_code).'),
    refresh_token: field('The refresh token (refresh_token).'),
    scope: field('Space-separated scopes, at most those granted (refresh_token).'),
    ...clientFields,
  },
  required: ['grant_type'],
} as const;

const revokeForm = {
  type: 'object',
  properties: { token: field('An access or refresh token.'), token_type_hint: field('Ignored.'), ...clientFields },
  required: ['token'],
} as const;

const refused = (description: string): Answer => ({ description, schema: OAuth2Refusal });
/** RFC 6749 §5.2's refusals, in place of the catalogue's. */
const refusals = {
  400: refused('`invalid_request`, `invalid_grant`, `invalid_scope` or `unsupported_grant_type`.'),
  401: refused('`invalid_client`: unknown client or wrong secret (with WWW-Authenticate: Basic).'),
};
const base = { tag: 'OAuth2', auth: 'client', guards: [() => answerAsOAuth2], readsItself: ['body'], formFields: true, errors: [] } as const;

export const tokenRoute = route({
  ...base,
  method: 'POST',
  path: '/oauth2/token',
  summary: 'Exchange an authorization code, or refresh a token',
  description:
    '`grant_type=authorization_code` with `code` and the `redirect_uri` it was issued for; a code used twice revokes what it gave. `grant_type=refresh_token` with `refresh_token` (and optionally fewer `scope`s): a new pair, the old one stops working.',
  body: tokenForm,
  responses: { 200: { description: 'The tokens (never cached).', schema: OAuth2Token }, ...refusals },
  async handle(ctx, _input, deps) {
    const fields = formFields(ctx);
    const authenticated = await client(deps, ctx, fields);
    const accessTokenTtl = deps.config.oauth2AccessTokenTtl;
    switch (fields.grant_type) {
      case 'authorization_code':
        return exchangeCode(deps, requestMeta(ctx), authenticated, {
          code: required(fields, 'code'),
          redirectUri: required(fields, 'redirect_uri'),
          accessTokenTtl,
        });
      case 'refresh_token': {
        const scopes = fields.scope ? parseScopes(fields.scope) : null;
        return refreshGrant(deps, requestMeta(ctx), authenticated, { refreshToken: required(fields, 'refresh_token'), scopes, accessTokenTtl });
      }
      case undefined:
      case '':
        throw invalidRequest('grant_type is required');
      default:
        throw new OAuth2Error('unsupported_grant_type', 'grant_type is authorization_code or refresh_token');
    }
  },
});

export const revokeRoute = route({
  ...base,
  method: 'POST',
  path: '/oauth2/token/revoke',
  summary: 'Revoke a token',
  description: 'RFC 7009: 200 whether or not the token was valid, so that a revocation cannot probe for tokens; the grant’s other tokens stop working too.',
  body: revokeForm,
  responses: { 200: { description: 'Revoked, or nothing to revoke.', schema: { type: 'object', maxProperties: 0 } }, ...refusals },
  async handle(ctx, _input, deps) {
    const fields = formFields(ctx);
    const authenticated = await client(deps, ctx, fields);
    await revokeToken(deps, requestMeta(ctx), authenticated, required(fields, 'token'));
    return {};
  },
});

export const oauth2Routes = [tokenRoute, revokeRoute];
