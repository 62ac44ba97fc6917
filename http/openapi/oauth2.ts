// The OAuth2 token endpoints (http/routes/oauth2.ts): form-encoded, the client authenticated by HTTP Basic or in the
// form, answers never cached, refusals in RFC 6749's {error, error_description}. The route reads its form by hand,
// with no schema of its own: the fields are described here.
import { ref } from './components.js';
import type { Answer, RouteDoc } from './entry.js';

const field = (description: string) => ({ type: 'string', description });
const client = {
  client_id: field('The application’s id, when the client does not authenticate with HTTP Basic.'),
  client_secret: field('Its client secret, likewise.'),
};
const refused = (description: string): Answer => ({ description, schema: ref('OAuth2Error') });
const refusals = {
  400: refused('`invalid_request`, `invalid_grant`, `invalid_scope` or `unsupported_grant_type`.'),
  401: refused('`invalid_client`: unknown client or wrong secret (with WWW-Authenticate: Basic).'),
};

export const oauth2Docs: RouteDoc[] = [
  {
    method: 'POST',
    path: '/oauth2/token',
    summary: 'Exchange an authorization code, or refresh a token',
    description: '`grant_type=authorization_code` with `code` and the `redirect_uri` it was issued for; a code used twice revokes what it gave. `grant_type=refresh_token` with `refresh_token` (and optionally fewer `scope`s): a new pair, the old one stops working.',
    tag: 'OAuth2',
    auth: 'client',
    body: {
      type: 'object',
      properties: {
        grant_type: { type: 'string', enum: ['authorization_code', 'refresh_token'] },
        code: field('The authorization code (authorization_code).'),
        redirect_uri: field('The redirect URI the code was issued for (authorization_code).'),
        refresh_token: field('The refresh token (refresh_token).'),
        scope: field('Space-separated scopes, at most those granted (refresh_token).'),
        ...client,
      },
      required: ['grant_type'],
    },
    formFields: true,
    responses: { 200: { description: 'The tokens (never cached).', schema: ref('OAuth2Token') }, ...refusals },
    errors: [],
  },
  {
    method: 'POST',
    path: '/oauth2/token/revoke',
    summary: 'Revoke a token',
    description: 'RFC 7009: 200 whether or not the token was valid, so that a revocation cannot probe for tokens; the grant’s other tokens stop working too.',
    tag: 'OAuth2',
    auth: 'client',
    body: { type: 'object', properties: { token: field('An access or refresh token.'), token_type_hint: field('Ignored.'), ...client }, required: ['token'] },
    formFields: true,
    responses: { 200: { description: 'Revoked, or nothing to revoke.', schema: { type: 'object', maxProperties: 0 } }, ...refusals },
    errors: [],
  },
];
