// The authorization page (http/routes/oauth2Authorize.ts), at the origin's root and under /api/v1: what a person sees
// of the OAuth2 flows. The route reads its query and form by hand, with no schema of its own: they are described here.
// Its refusals are pages too, for the person in front of them.
import { SCOPES } from '../../domain/oauth2.js';
import type { Answer, RouteDoc } from './entry.js';

const field = (description: string) => ({ type: 'string', description });
/** The authorization request, in the URL of both the page and its forms. */
const authorizeQuery = {
  type: 'object',
  properties: {
    client_id: field('The application’s id.'),
    scope: field(`Space-separated: ${Object.keys(SCOPES).join(', ')}. \`bot\` adds the application’s bot to a guild.`),
    response_type: field('`code` (required unless the only scopes are the bot’s).'),
    redirect_uri: field('One of the application’s registered redirect URIs (required for a code).'),
    state: field('Handed back unchanged, at most 2048 characters.'),
    permissions: field('The bot flow: the bot’s permission bitfield, a decimal integer.'),
    guild_id: field('The bot flow: the guild to add the bot to.'),
  },
  required: ['client_id', 'scope'],
} as const;
const page = (description: string): Answer => ({ description, type: 'text/html', schema: { type: 'string' } });
const pages = {
  200: page('Sign-in, consent (or for the bot flow, the guild to add it to), or what was done.'),
  400: page('A request that cannot be authorized (unknown client_id, unregistered redirect_uri, unknown scope…): shown, never redirected.'),
  403: page('The form did not come from this page (CSRF), or the person cannot add a bot to the guild the link names.'),
  429: page('Too many bot authorizations for this application (10 a minute), or sign-ins from this address; with Retry-After.'),
};

export const oauth2AuthorizeDocs: RouteDoc[] = [
  {
    method: 'GET',
    path: '/oauth2/authorize',
    summary: 'Show the authorization page',
    description: 'Sign-in when the page has no session (its own cookie, never read by the API), else consent.',
    tag: 'OAuth2',
    auth: 'none',
    query: authorizeQuery,
    responses: pages,
    errors: [],
    root: 'also',
  },
  {
    method: 'POST',
    path: '/oauth2/authorize',
    summary: 'Sign in, authorize or cancel',
    description: 'The page’s forms post back to the same URL. Authorizing redirects (303) to the redirect URI with `code` (and `guild_id`, `permissions` for the bot flow) and `state`; cancelling with `error=access_denied`.',
    tag: 'OAuth2',
    auth: 'none',
    query: authorizeQuery,
    body: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['signin', 'authorize', 'cancel'] },
        csrf: field('The page’s CSRF token (matched against its cookie).'),
        login: field('signin: a username or an email.'),
        password: field('signin: the password.'),
        guild_id: field('authorize, bot flow: the guild chosen.'),
      },
      required: ['action', 'csrf'],
    },
    formFields: true,
    responses: { ...pages, 303: { description: 'To the redirect URI with the outcome, or back to the page after signing in.' }, 401: page('The page’s session has ended: sign in again.') },
    errors: [],
    root: 'also',
  },
];
