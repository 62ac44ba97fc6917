// Helpers for the OAuth2 tests: an application registered as an OAuth2 client, the token endpoints called with a form,
// and the authorization page driven over HTTP as a browser without JavaScript would (cookies kept, CSRF token read from
// the form, redirects not followed, so the test sees where the page sends the person).
import { expect } from 'vitest';
import { type ApiResponse, type TestServer, type TestUser, registerUser, uniqueName } from '../support/server.js';

/** registerUser's password. */
export const PASSWORD = 'correct horse battery';
export const REDIRECT_URI = 'https://client.example/callback';

export interface TestClient {
  id: string;
  secret: string;
  name: string;
  owner: TestUser;
}

export async function registerClient(server: TestServer, redirectUris: string[] = [REDIRECT_URI], owner?: TestUser): Promise<TestClient> {
  const person = owner ?? (await registerUser(server));
  const name = uniqueName('app');
  const app = await server.api('POST', '/applications', { token: person.token, body: { name, redirect_uris: redirectUris } });
  if (app.status !== 201) throw new Error(`application failed: ${app.status} ${app.text}`);
  return { id: app.body.id, secret: app.body.client_secret, name, owner: person };
}

/** A bot for the client's application. */
export async function addBotUser(server: TestServer, client: TestClient): Promise<TestUser> {
  const bot = await server.api('POST', `/applications/${client.id}/bot`, { token: client.owner.token });
  if (bot.status !== 201) throw new Error(`bot failed: ${bot.status} ${bot.text}`);
  return { id: bot.body.id, token: bot.body.token, username: bot.body.username };
}

/** POSTs a form to an OAuth2 token endpoint (under /api/v1). */
export function tokenRequest(
  server: TestServer,
  path: '/oauth2/token' | '/oauth2/token/revoke',
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return server.api('POST', path, {
    rawBody: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}

export const basic = (id: string, secret: string) => ({
  authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
});

/** The authorization URL's query for the code flow. */
export function codeQuery(client: TestClient, over: Record<string, string> = {}): string {
  return new URLSearchParams({
    client_id: client.id,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'identify',
    state: 'st4te',
    ...over,
  }).toString();
}

/** One visitor of the page: cookies as a browser keeps them, forms as a browser posts them. */
export class PageVisitor {
  private readonly cookies = new Map<string, string>();

  constructor(
    private readonly server: TestServer,
    /** '' for the origin's root, '/api/v1' for the API's mount. */
    private readonly base = '',
  ) {}

  private keep(response: ApiResponse): ApiResponse {
    const set = response.headers['set-cookie'];
    for (const line of Array.isArray(set) ? set : set ? [set] : []) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return response;
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  private headers(): Record<string, string> {
    return this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {};
  }

  async get(query: string): Promise<ApiResponse> {
    return this.keep(await this.server.call('GET', `${this.base}/oauth2/authorize?${query}`, { headers: this.headers() }));
  }

  /** Posts the page's form with the CSRF token the last page showed (unless `fields` says otherwise). */
  async post(query: string, fields: Record<string, string>, page?: ApiResponse): Promise<ApiResponse> {
    const csrf = page ? csrfOf(page) : this.cookies.get('__Host-parley_csrf')!;
    const body = new URLSearchParams({ csrf, ...fields }).toString();
    return this.keep(
      await this.server.call('POST', `${this.base}/oauth2/authorize?${query}`, {
        rawBody: body,
        headers: { ...this.headers(), 'content-type': 'application/x-www-form-urlencoded' },
      }),
    );
  }

  /** Signs in through the page's form and follows the redirect back: the answer is the consent page. */
  async signIn(query: string, user: TestUser): Promise<ApiResponse> {
    const page = await this.get(query);
    const signedIn = await this.post(query, { action: 'signin', login: user.username, password: PASSWORD }, page);
    expect(signedIn.status, signedIn.text).toBe(303);
    return this.get(query);
  }
}

export function csrfOf(page: ApiResponse): string {
  const match = /name="csrf" value="([^"]+)"/.exec(page.text);
  if (!match) throw new Error(`no CSRF token on the page: ${page.text.slice(0, 500)}`);
  return match[1];
}

/** The parameters the page sent the person back with (its 303's Location). */
export function redirectedTo(response: ApiResponse): URL {
  expect(response.status, response.text).toBe(303);
  return new URL(String(response.headers.location));
}

/** Signs `user` in on the page, authorizes, and returns the code the redirect carries. */
export async function authorizedCode(server: TestServer, client: TestClient, user: TestUser, over: Record<string, string> = {}): Promise<string> {
  const visitor = new PageVisitor(server);
  const query = codeQuery(client, over);
  await visitor.signIn(query, user);
  const back = redirectedTo(await visitor.post(query, { action: 'authorize' }));
  return back.searchParams.get('code')!;
}

/** The tokens for `user` through the whole code flow. */
export async function grantedTokens(server: TestServer, client: TestClient, user: TestUser, scope = 'identify') {
  const code = await authorizedCode(server, client, user, { scope });
  const answer = await tokenRequest(server, '/oauth2/token', {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    client_id: client.id,
    client_secret: client.secret,
  });
  if (answer.status !== 200) throw new Error(`token exchange failed: ${answer.status} ${answer.text}`);
  return answer.body as { access_token: string; refresh_token: string; expires_in: number; scope: string; token_type: string };
}
