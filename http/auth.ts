// Authentication as the spec's table: "Bot <token>" for bot users, "Bearer <token>" for sessions (and OAuth2 access
// tokens). A token is looked up by its SHA-256 in the token read model. Only a bad or missing token answers 401:
// clients of the widely used API drop their token on any 401.
import type { Context, Next } from 'koa';
import { forbidden } from '../domain/errors.js';
import type { ReadStore } from '../ports/readStore.js';
import { sha256 } from '../ports/secrets.js';
import type { TokenDoc } from '../projections/users.js';
import { tokenByHash } from '../projections/users.queries.js';
import { unauthorized } from './errors.js';

export interface Auth {
  userId: string;
  kind: TokenDoc['kind'];
  /** Rate-limit key for "per token" buckets; never the token itself. */
  tokenHash: string;
}

declare module 'koa' {
  interface DefaultState {
    auth?: Auth;
  }
}

async function resolve(readStore: ReadStore, header: string): Promise<Auth | null> {
  const match = /^(Bot|Bearer)\s+(\S+)$/i.exec(header.trim());
  if (!match) return null;
  const tokenHash = sha256(match[2]);
  const token = await tokenByHash(readStore, tokenHash);
  if (!token) return null;
  const bot = match[1].toLowerCase() === 'bot';
  if (bot !== (token.kind === 'bot')) return null;
  return { userId: token.user_id, kind: token.kind, tokenHash };
}

/** Reads the Authorization header when there is one; a header that does not authenticate answers 401. */
export function authenticate(readStore: ReadStore) {
  return async function authenticateRequest(ctx: Context, next: Next) {
    const header = ctx.get('authorization');
    if (header) {
      const auth = await resolve(readStore, header);
      if (!auth) throw unauthorized();
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

/** For routes only a logged-in person may use (not bots). */
export function requireSession(ctx: Context): Auth {
  const auth = requireAuth(ctx);
  if (auth.kind !== 'session') throw forbidden('BOTS_NOT_ALLOWED', 'Bots cannot use this endpoint');
  return auth;
}
