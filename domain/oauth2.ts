// OAuth2 as the spec's section and RFC 6749 have it: the scopes an application may ask for, the redirect URIs it may
// register, and the refusals of the token endpoint, which answer in RFC 6749's {error, error_description} rather than
// the spec's {code, message} (clients of the widely used API read them with OAuth2 libraries).
import { DomainError, type FieldError } from './errors.js';

/** The spec's scopes, each in the plain words the authorization page shows. */
export const SCOPES = {
  identify: 'Know your username, avatar and discriminator',
  email: 'Know your email address',
  guilds: 'Know which servers you are in',
  'guilds.join': 'Join servers for you',
  'messages.read': 'Read the messages in the channels you can see',
  // Not in the spec's table: the analysts' event stream of a guild, for someone who may read its audit log.
  'guilds.events.read': 'Read the events of servers whose audit log you may view',
  connections: 'Know your linked accounts',
  bot: 'Add a bot to a server',
  // Not in the spec's table, but every bot invite of the widely used API's client libraries asks for it beside `bot`.
  'applications.commands': 'Create commands in a server',
} as const;

export type Scope = keyof typeof SCOPES;

/** Scopes that add a bot to a guild instead of acting for the person. */
export const BOT_SCOPES: readonly Scope[] = ['bot', 'applications.commands'];

export const isScope = (name: string): name is Scope => Object.hasOwn(SCOPES, name);

/** How long an authorization code may wait for its exchange (RFC 6749 §4.1.2 recommends at most 10 minutes). */
export const CODE_TTL_MS = 10 * 60_000;

export const MAX_REDIRECT_URIS = 10;

/** Loopback hosts a developer's own machine answers on; http is allowed there only (RFC 8252 §7.3). */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Why `uri` cannot be a redirect URI, or null when it can: absolute https, or http on loopback; no fragment, no user info. */
export function redirectUriProblem(uri: string): string | null {
  if (!URL.canParse(uri)) return 'Not an absolute URL';
  const url = new URL(uri);
  if (url.hash || uri.includes('#')) return 'A redirect URI has no fragment';
  if (url.username || url.password) return 'A redirect URI has no user name or password';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return 'Must be an https URL (http only on localhost, 127.0.0.1 or [::1])';
}

/** The form errors of a list of redirect URIs (each must be valid; at most MAX_REDIRECT_URIS, no repeats). */
export function redirectUrisErrors(uris: readonly string[]): FieldError[] {
  const errors: FieldError[] = uris.flatMap((uri, i) => {
    const problem = redirectUriProblem(uri) ?? (uris.indexOf(uri) !== i ? 'Listed twice' : null);
    return problem ? [{ path: `redirect_uris.${i}`, message: problem }] : [];
  });
  if (uris.length > MAX_REDIRECT_URIS) errors.push({ path: 'redirect_uris', message: `At most ${MAX_REDIRECT_URIS} redirect URIs` });
  return errors;
}

export type OAuth2ErrorCode = 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type' | 'invalid_scope';

/** A refusal of the token endpoints (RFC 6749 §5.2); elsewhere it reads as the spec's {code, message}. */
export class OAuth2Error extends DomainError {
  constructor(
    readonly error: OAuth2ErrorCode,
    description: string,
  ) {
    super(error === 'invalid_client' ? 'unauthorized' : 'invalid', error.toUpperCase(), description);
  }
}

/**
 * The scopes of a space-delimited `scope` parameter, in the order given, without repeats; refuses an unknown scope
 * or an empty list with invalid_scope.
 */
export function parseScopes(text: string): Scope[] {
  const names = [...new Set(text.split(' ').filter((name) => name !== ''))];
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length) throw new OAuth2Error('invalid_scope', `Unknown scope: ${unknown.join(', ')}`);
  if (names.length === 0) throw new OAuth2Error('invalid_scope', 'No scope was requested');
  return names as Scope[];
}
