// The authorization page, {auth_url}/oauth2/authorize (the origin's root, and under /api/v1): the spec's OAuth2 flows
// as a person sees them. GET shows sign-in or consent; the page's forms POST back to the same URL, whose query is the
// authorization request, read and checked again on every request. A request that is not valid (unknown client_id,
// unregistered redirect_uri, response_type other than code, unknown scope) is shown on the page and never redirected.
// The page has its own session: a cookie holding a session token from the page's sign-in (the login use case), HttpOnly,
// Secure and SameSite=Lax, read only here (the API reads the Authorization header alone, so a cookie never
// authenticates an API call). Every form carries a CSRF token matched against a cookie (double submit); both cookies
// are __Host- prefixed, so no other origin, not even a sibling subdomain, can plant one.
import { timingSafeEqual } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { ParsedUrlQuery } from 'node:querystring';
import { login } from '../../commands/accounts.js';
import { type OAuth2Client, addBotToGuild, authorizeClient, manageableGuilds, oauth2Client } from '../../commands/oauth2.js';
import { DomainError, badRequest, forbidden } from '../../domain/errors.js';
import { BOT_SCOPES, OAuth2Error, SCOPES, type Scope, parseScopes } from '../../domain/oauth2.js';
import { newSecret } from '../../ports/secrets.js';
import { userById } from '../../projections/users.queries.js';
import { sessionUser } from '../auth.js';
import { type FormContext, botConsentView, consentView, messageView, signInView } from '../authorizePage.js';
import { NonJsonBody } from '../body.js';
import { type HttpDeps, requestMeta } from '../context.js';
import { STATUS } from '../errors.js';
import { sendPage } from '../html.js';
import type { Answer } from '../openapi/entry.js';
import { RateLimited } from '../rateLimit.js';
import { type ConditionalLimit, type Spend, route } from '../route.js';

const SESSION_COOKIE = '__Host-parley_session';
const CSRF_COOKIE = '__Host-parley_csrf';
const SNOWFLAKE = /^[0-9]{1,20}$/;
const MAX_UINT64 = 2n ** 64n - 1n;
const MAX_STATE_LENGTH = 2048;

interface AuthorizeRequest {
  client: OAuth2Client;
  scopes: Scope[];
  /** The bot flow: `bot` is among the scopes. */
  bot: boolean;
  /** The scopes that act for the person and need a code (all but the bot flow's). */
  userScopes: Scope[];
  redirectUri: string | null;
  state: string | null;
  /** The bot flow's permissions for the bot's managed role, and the guild the URL names, if any. */
  permissions: bigint;
  guildId: string | null;
}

const invalidRequest = (message: string) => badRequest('INVALID_AUTHORIZATION_REQUEST', message);

function single(query: ParsedUrlQuery, name: string): string | null {
  const value = query[name];
  if (Array.isArray(value)) throw invalidRequest(`${name} is given more than once`);
  return value ?? null;
}

/** The authorization request in the URL, checked whole before anything is shown: a bad one is never redirected. */
async function authorizeRequest(deps: HttpDeps, query: ParsedUrlQuery): Promise<AuthorizeRequest> {
  const clientId = single(query, 'client_id');
  if (!clientId) throw invalidRequest('client_id is required');
  const client = SNOWFLAKE.test(clientId) ? await oauth2Client(deps, clientId) : null;
  if (!client) throw invalidRequest('Unknown client_id: no application has it');
  const scopeText = single(query, 'scope');
  if (!scopeText) throw invalidRequest('scope is required');
  const scopes = parseScopes(scopeText);
  const bot = scopes.includes('bot');
  const userScopes = scopes.filter((scope) => !BOT_SCOPES.includes(scope));
  // The bot flow alone ends on this page; any other scope ends with a code at the redirect URI.
  const needsCode = !bot || userScopes.length > 0;
  const responseType = single(query, 'response_type');
  if (responseType === null ? needsCode : responseType !== 'code') throw invalidRequest('response_type must be code');
  const redirectUri = single(query, 'redirect_uri');
  if (needsCode && !redirectUri) throw invalidRequest('redirect_uri is required');
  if (redirectUri !== null && !client.redirect_uris.includes(redirectUri))
    throw invalidRequest('redirect_uri is not one of the redirect URIs the application registered');
  const state = single(query, 'state');
  if (state !== null && state.length > MAX_STATE_LENGTH) throw invalidRequest(`state is longer than ${MAX_STATE_LENGTH} characters`);
  if (bot && !client.botUserId) throw invalidRequest('This application has no bot to add');
  const permissionsText = single(query, 'permissions') ?? '0';
  if (!SNOWFLAKE.test(permissionsText) || BigInt(permissionsText) > MAX_UINT64) throw invalidRequest('permissions is a permission bitfield: a decimal integer');
  const guildId = single(query, 'guild_id');
  if (guildId !== null && !SNOWFLAKE.test(guildId)) throw invalidRequest('guild_id is not an id');
  return { client, scopes, bot, userScopes, redirectUri, state, permissions: BigInt(permissionsText), guildId };
}

function cookie(ctx: Context, name: string): string | null {
  for (const pair of ctx.get('cookie').split(';')) {
    const [key, ...value] = pair.trim().split('=');
    if (key === name) return value.join('=');
  }
  return null;
}

/** Set by hand rather than with koa's cookies, which refuse Secure on a plain connection behind a TLS proxy. */
function setCookie(ctx: Context, name: string, value: string): void {
  ctx.append('Set-Cookie', `${name}=${value}; Path=/; Secure; HttpOnly; SameSite=Lax`);
}

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The visitor's CSRF token, made (and set as a cookie) on a first visit. */
function csrfToken(ctx: Context): string {
  const existing = cookie(ctx, CSRF_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{32}$/.test(existing)) return existing;
  const token = newSecret();
  setCookie(ctx, CSRF_COOKIE, token);
  return token;
}

/** The fields of the page's form, once its CSRF token matches the cookie's. */
function checkedForm(ctx: Context): Readonly<Record<string, string>> {
  const body = ctx.request.body;
  if (!(body instanceof NonJsonBody && body.type === 'application/x-www-form-urlencoded'))
    throw invalidRequest('The page posts an application/x-www-form-urlencoded form');
  const expected = cookie(ctx, CSRF_COOKIE);
  if (!expected || !body.fields.csrf || !sameText(expected, body.fields.csrf)) {
    throw forbidden('INVALID_CSRF_TOKEN', 'This form has expired or did not come from this page: reload the page and try again');
  }
  return body.fields;
}

/** Refusals as pages (the page's visitor is a person, not a client library), with a 429's Retry-After. */
async function answerAsPage(ctx: Context, next: Next) {
  try {
    await next();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    if (error instanceof RateLimited) ctx.set('Retry-After', String(Math.ceil(error.retryAfter)));
    const badLink = error.code === 'INVALID_AUTHORIZATION_REQUEST' || error instanceof OAuth2Error;
    const title = error instanceof RateLimited ? 'Too many requests' : badLink ? 'This authorization link does not work' : 'Nothing was authorized';
    sendPage(ctx, STATUS[error.kind], title, messageView({ title, text: error.message, error: true }));
  }
}

// The spec's Limits: the bot authorization URL, 10 per minute per application.
const botFlowLimit = {
  bucket: 'oauth2:authorize:bot',
  points: 10,
  durationSeconds: 60,
  key: (ctx: Context) => `app:${String(ctx.query.client_id)}`,
  when: 'The page of the bot flow (`bot` among the scopes), per application (client_id).',
} as const satisfies ConditionalLimit;

// Password guessing through the page is as slow as through POST /auth/login.
const signInLimit = {
  bucket: 'oauth2:authorize:signin',
  points: 60,
  durationSeconds: 60,
  key: (ctx: Context) => `ip:${ctx.ip}`,
  when: 'A sign-in (action=signin), per client address.',
} as const satisfies ConditionalLimit;

interface AuthorizePage {
  show(ctx: Context, spend: Spend<typeof botFlowLimit.bucket>): Promise<void>;
  submit(ctx: Context, spend: Spend<typeof signInLimit.bucket>): Promise<void>;
}

function authorizePage(deps: HttpDeps): AuthorizePage {
  const formContext = (ctx: Context, csrf: string): FormContext => ({ action: `?${ctx.querystring}`, csrf });

  async function signedIn(ctx: Context): Promise<{ userId: string; username: string } | null> {
    const token = cookie(ctx, SESSION_COOKIE);
    const userId = token ? await sessionUser(deps.readStore, token) : null;
    const user = userId ? await userById(deps.readStore, userId) : null;
    return user ? { userId: user._id, username: user.username } : null;
  }

  function showSignIn(ctx: Context, request: AuthorizeRequest, csrf: string, failure?: { status: number; error: string; login: string }) {
    const view = signInView({ form: formContext(ctx, csrf), appName: request.client.name, error: failure?.error, login: failure?.login });
    sendPage(ctx, failure?.status ?? 200, `Sign in to ${request.client.name}`, view);
  }

  async function showConsent(ctx: Context, request: AuthorizeRequest, csrf: string, user: { userId: string; username: string }, error?: string) {
    const form = formContext(ctx, csrf);
    const formTargets = request.redirectUri ? [new URL(request.redirectUri).origin] : [];
    if (!request.bot) {
      const view = consentView({ form, appName: request.client.name, username: user.username, scopes: request.scopes, redirectOrigin: formTargets[0] });
      return sendPage(ctx, 200, `Authorize ${request.client.name}`, view, { formTargets });
    }
    const guilds = await manageableGuilds(deps, user.userId);
    const fixed = request.guildId !== null;
    const offered = fixed ? guilds.filter((guild) => guild.id === request.guildId) : guilds;
    if (fixed && offered.length === 0)
      throw forbidden('MISSING_PERMISSIONS', 'You cannot add a bot to the server this link names: that takes the Manage Server permission there');
    const view = botConsentView({
      form,
      appName: request.client.name,
      username: user.username,
      guilds: offered,
      fixed,
      permissions: request.permissions,
      userScopes: request.userScopes,
      error,
    });
    sendPage(ctx, error ? 400 : 200, `Add ${request.client.name} to a server`, view, { formTargets });
  }

  /** Ends at the client's redirect URI with these parameters and the state, unchanged. */
  function redirectBack(ctx: Context, request: AuthorizeRequest, parameters: Record<string, string>) {
    const target = new URL(request.redirectUri!);
    for (const [name, value] of Object.entries(parameters)) target.searchParams.set(name, value);
    if (request.state !== null) target.searchParams.set('state', request.state);
    ctx.redirect(target.href);
    ctx.status = 303;
  }

  async function signIn(
    ctx: Context,
    request: AuthorizeRequest,
    fields: Readonly<Record<string, string>>,
    csrf: string,
    spend: Spend<typeof signInLimit.bucket>,
  ) {
    await spend(signInLimit.bucket);
    const name = (fields.login ?? '').trim();
    const password = fields.password ?? '';
    if (!name || !password || name.length > 300 || password.length > 128) {
      return showSignIn(ctx, request, csrf, { status: 400, error: 'Enter your username or email, and your password.', login: name.slice(0, 300) });
    }
    try {
      const { token } = await login(deps, requestMeta(ctx), { login: name, password });
      setCookie(ctx, SESSION_COOKIE, token);
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'INVALID_FORM_BODY')) throw error;
      return showSignIn(ctx, request, csrf, { status: 400, error: error.errors?.[0]?.message ?? 'Login or password is invalid.', login: name });
    }
    // Post/redirect/get: the consent is a page of its own, which a reload does not post again.
    ctx.redirect(`?${ctx.querystring}`);
    ctx.status = 303;
  }

  async function authorize(
    ctx: Context,
    request: AuthorizeRequest,
    fields: Readonly<Record<string, string>>,
    user: { userId: string; username: string },
    csrf: string,
  ) {
    const meta = { ...requestMeta(ctx), actorId: user.userId };
    const back: Record<string, string> = {};
    let added: { added: boolean; guildName: string } | null = null;
    if (request.bot) {
      const guildId = request.guildId ?? fields.guild_id;
      if (request.guildId !== null && fields.guild_id !== undefined && fields.guild_id !== request.guildId)
        throw invalidRequest('guild_id differs from the link’s');
      if (!guildId || !SNOWFLAKE.test(guildId)) return showConsent(ctx, request, csrf, user, 'Choose a server first.');
      // The decider checks MANAGE_GUILD again: a forged guild_id the person cannot manage adds nothing (403).
      added = await addBotToGuild(deps, meta, { client: request.client, guildId, permissions: request.permissions });
      Object.assign(back, { guild_id: guildId, permissions: request.permissions.toString() });
    }
    if (!request.bot || request.userScopes.length > 0) {
      const { code } = await authorizeClient(deps, meta, { applicationId: request.client.id, scopes: request.scopes, redirectUri: request.redirectUri! });
      back.code = code;
    }
    if (request.redirectUri) return redirectBack(ctx, request, back);
    const title = added!.added ? `${request.client.name} was added to ${added!.guildName}` : `${request.client.name} is already in ${added!.guildName}`;
    sendPage(
      ctx,
      200,
      title,
      messageView({ title, text: added!.added ? 'The bot is now a member of the server, with the permissions shown.' : 'Nothing changed.' }),
    );
  }

  function cancel(ctx: Context, request: AuthorizeRequest) {
    if (request.redirectUri) return redirectBack(ctx, request, { error: 'access_denied', error_description: 'The person declined the authorization' });
    const title = 'Nothing was authorized';
    sendPage(ctx, 200, title, messageView({ title, text: `${request.client.name} was not given access.` }));
  }

  return {
    async show(ctx, spend) {
      const request = await authorizeRequest(deps, ctx.query);
      if (request.bot) await spend(botFlowLimit.bucket);
      const csrf = csrfToken(ctx);
      const user = await signedIn(ctx);
      if (!user) return showSignIn(ctx, request, csrf);
      await showConsent(ctx, request, csrf, user);
    },
    async submit(ctx, spend) {
      const request = await authorizeRequest(deps, ctx.query);
      const fields = checkedForm(ctx);
      const csrf = fields.csrf;
      if (fields.action === 'signin') return signIn(ctx, request, fields, csrf, spend);
      if (fields.action !== 'authorize' && fields.action !== 'cancel') throw invalidRequest('The form’s action is sign in, authorize or cancel');
      const user = await signedIn(ctx);
      if (!user) return showSignIn(ctx, request, csrf, { status: 401, error: 'Sign in first: your session has ended.', login: '' });
      if (fields.action === 'cancel') return cancel(ctx, request);
      await authorize(ctx, request, fields, user, csrf);
    },
  };
}

// The query and the form are read by hand (a bad request is shown on the page): these schemas only describe them.
const field = (description: string) => ({ type: 'string', description }) as const;
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

const authorizeForm = {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['signin', 'authorize', 'cancel'] },
    csrf: field('The page’s CSRF token (matched against its cookie).'),
    login: field('signin: a username or an email.'),
    password: field('signin: the password.'),
    guild_id: field('authorize, bot flow: the guild chosen.'),
  },
  required: ['action', 'csrf'],
} as const;

const htmlPage = (description: string): Answer => ({ description, type: 'text/html', schema: { type: 'string' } });
/** Its answers, refusals among them, are pages, for the person in front of them. */
const answers = {
  200: htmlPage('Sign-in, consent (or for the bot flow, the guild to add it to), or what was done.'),
  400: htmlPage('A request that cannot be authorized (unknown client_id, unregistered redirect_uri, unknown scope…): shown, never redirected.'),
  403: htmlPage('The form did not come from this page (CSRF), or the person cannot add a bot to the guild the link names.'),
  429: htmlPage('Too many bot authorizations for this application, or sign-ins from this address (`x-rate-limits`); with Retry-After.'),
};
const base = {
  tag: 'OAuth2',
  auth: 'none',
  guards: [() => answerAsPage],
  query: authorizeQuery,
  readsItself: ['query', 'body'],
  errors: [],
  root: 'also',
} as const;

export const showAuthorizePageRoute = route({
  ...base,
  method: 'GET',
  path: '/oauth2/authorize',
  summary: 'Show the authorization page',
  description: 'Sign-in when the page has no session (its own cookie, never read by the API), else consent.',
  responses: answers,
  spendsItself: [botFlowLimit],
  handle: (ctx, { spend }, deps) => authorizePage(deps).show(ctx, spend),
});

export const submitAuthorizePageRoute = route({
  ...base,
  method: 'POST',
  path: '/oauth2/authorize',
  summary: 'Sign in, authorize or cancel',
  description:
    'The page’s forms post back to the same URL. Authorizing redirects (303) to the redirect URI with `code` (and `guild_id`, `permissions` for the bot flow) and `state`; cancelling with `error=access_denied`.',
  body: authorizeForm,
  formFields: true,
  audit: 'BOT_ADD',
  responses: {
    ...answers,
    303: { description: 'To the redirect URI with the outcome, or back to the page after signing in.' },
    401: htmlPage('The page’s session has ended: sign in again.'),
  },
  spendsItself: [signInLimit],
  handle: (ctx, { spend }, deps) => authorizePage(deps).submit(ctx, spend),
});

/** The authorization page, at the origin's root and under the API's prefixes. */
export const oauth2AuthorizeRoutes = [showAuthorizePageRoute, submitAuthorizePageRoute];
