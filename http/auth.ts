// Authentication as the spec's table: "Bot <token>" for bot users, "Bearer <token>" for sessions and OAuth2 access
// tokens. A token is looked up by its SHA-256 in the token read models. Only a bad, expired or missing token answers
// 401: clients of the widely used API drop their token on any 401.
// An OAuth2 access token acts for its person only where one of its scopes says so (the scope table, derived from the
// route entries by http/route.ts); anywhere else it is refused with 403 before any route runs, so it can append nothing.
import type { Context, Next } from 'koa';
import { forbidden } from '../domain/errors.js';
import type { Scope } from '../domain/oauth2.js';
import type { Clock } from '../ports/clock.js';
import type { ReadStore } from '../ports/readStore.js';
import { sha256 } from '../ports/secrets.js';
import { oauth2TokenByHash } from '../projections/oauth2.queries.js';
import { tokenByHash } from '../projections/users.queries.js';
import { unauthorized } from './errors.js';

export interface Auth {
  userId: string;
  kind: 'session' | 'bot' | 'oauth2';
  /** Rate-limit key for "per token" buckets; never the token itself. */
  tokenHash: string;
  /** What an OAuth2 access token was granted, and to which application; absent for sessions and bots. */
  scopes?: readonly Scope[];
  applicationId?: string;
}

declare module 'koa' {
  interface DefaultState {
    auth?: Auth;
  }
}

/** A route an OAuth2 access token may call (GET only; its path without the version prefix), and the scope it needs. */
export interface ScopedRoute {
  path: RegExp;
  scope: Scope;
}

/** The token endpoints authenticate the client themselves (HTTP Basic or the form): the header is theirs. */
const CLIENT_AUTHENTICATED = /^\/oauth2\/token(?:\/revoke)?\/?$/i;

async function resolve(readStore: ReadStore, clock: Clock, header: string): Promise<Auth | null> {
  const match = /^(Bot|Bearer)\s+(\S+)$/i.exec(header.trim());
  if (!match) return null;
  const tokenHash = sha256(match[2]);
  const bot = match[1].toLowerCase() === 'bot';
  const token = await tokenByHash(readStore, tokenHash);
  if (token) return bot === (token.kind === 'bot') ? { userId: token.user_id, kind: token.kind, tokenHash } : null;
  if (bot) return null;
  const granted = await oauth2TokenByHash(readStore, tokenHash);
  if (!granted || Date.parse(granted.expires_at) <= clock.now()) return null;
  return { userId: granted.user_id, kind: 'oauth2', tokenHash, scopes: granted.scopes, applicationId: granted.application_id };
}

/** Refuses an OAuth2 access token on a route none of its scopes opens. */
function requireScopeFor(ctx: Context, auth: Auth, scoped: readonly ScopedRoute[]): void {
  const path = ctx.state.api?.path ?? null;
  const route = path !== null && (ctx.method === 'GET' || ctx.method === 'HEAD') ? scoped.find((r) => r.path.test(path)) : undefined;
  if (!route) throw forbidden('OAUTH2_ROUTE_NOT_ALLOWED', 'An OAuth2 access token cannot call this route: it reads only what its scopes grant');
  if (!auth.scopes?.includes(route.scope)) throw forbidden('MISSING_OAUTH2_SCOPE', `This route needs the ${route.scope} scope`);
}

/** Reads the Authorization header when there is one; a header that does not authenticate answers 401. */
export function authenticate(readStore: ReadStore, clock: Clock, scoped: readonly ScopedRoute[]) {
  return async function authenticateRequest(ctx: Context, next: Next) {
    const header = ctx.get('authorization');
    if (header && !CLIENT_AUTHENTICATED.test(ctx.state.api?.path ?? '')) {
      const auth = await resolve(readStore, clock, header);
      if (!auth) throw unauthorized();
      if (auth.kind === 'oauth2') requireScopeFor(ctx, auth, scoped);
      ctx.state.auth = auth;
    }
    return next();
  };
}

export function requireAuth(ctx: Context): Auth {
  const auth = ctx.state.auth as Auth | undefined;
  if (!auth) throw unauthorized();
  return auth;
}

/** For routes only a logged-in person may use (not bots, not OAuth2 clients). */
export function requireSession(ctx: Context): Auth {
  const auth = requireAuth(ctx);
  if (auth.kind !== 'session') throw forbidden('BOTS_NOT_ALLOWED', 'Bots cannot use this endpoint');
  return auth;
}

/** Whether the caller may see what `scope` covers: always for sessions and bots, by its grant for an OAuth2 token. */
export const hasScope = (auth: Auth, scope: Scope) => auth.kind !== 'oauth2' || auth.scopes!.includes(scope);

/** The user a session token (the authorization page's cookie) belongs to, or null. */
export async function sessionUser(readStore: ReadStore, token: string): Promise<string | null> {
  const found = await tokenByHash(readStore, sha256(token));
  return found?.kind === 'session' ? found.user_id : null;
}
