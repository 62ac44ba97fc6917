// The API reference: the OpenAPI 3.1 document served at /api/v1/openapi.json is valid (@readme/openapi-parser), its
// schemas are JSON Schema 2020-12 with nothing of ajv's own left, it documents every route the routers have (and no
// route they lack), rate limits and error codes as the code has them; the page at /api/v1/docs renders it in a real
// browser from the server's own files under a Content-Security-Policy that allows only the server.
import { readFile, readdir } from 'node:fs/promises';
import { validate } from '@readme/openapi-parser';
import chromium from '@sparticuz/chromium';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import { chromium as playwright } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ROUTE_DOCS, apiRouter, rootRouter } from '../../http/app.js';
import { TAGS, routeShape } from '../../http/openapi/entry.js';
import { ERRORS } from '../../http/openapi/errors.js';
import { fileServer, registerUser } from '../support/server.js';

const server = await fileServer();

/** The routes a router answers, by shape (two modules may answer one path), with whether any of them is limited. */
function routesOf(router: ReturnType<typeof apiRouter>) {
  const routes = new Map<string, { route: string; limited: boolean }>();
  for (const layer of router.stack) {
    if (typeof layer.path !== 'string' || !layer.path.startsWith('/')) continue;
    const limited = layer.stack.some((middleware) => middleware.name === 'limitRate');
    for (const method of layer.methods.filter((m) => m !== 'HEAD')) {
      const key = routeShape(method, layer.path);
      routes.set(key, { route: `${method} ${layer.path}`, limited: limited || (routes.get(key)?.limited ?? false) });
    }
  }
  return routes;
}

const api = routesOf(apiRouter(server.runtime));
/** The router createApp mounts at the origin's root. */
const root = routesOf(rootRouter(server.runtime));
type Entry = (typeof ROUTE_DOCS)[number];
const entryKey = (entry: Entry) => routeShape(entry.method, entry.path);
/** Where an entry says its route is served. */
const servedAt = (entry: Entry) => (entry.root === 'only' ? [root] : entry.root === 'also' ? [api, root] : [api]);

describe('GET /api/v1/openapi.json', () => {
  it('answers the document without a token, under /api too, and it validates as OpenAPI 3.1', async () => {
    const served = await server.api('GET', '/openapi.json');
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('application/json');
    expect(served.body.openapi).toBe('3.1.0');
    expect((await server.call('GET', '/api/openapi.json')).body).toEqual(served.body);

    const result = await validate(structuredClone(served.body));
    expect(result).toMatchObject({ valid: true, specification: 'OpenAPI' });
    expect(result.warnings).toEqual([]);
  });

  it('refuses a document the validator should refuse (the check can fail)', async () => {
    const { body } = await server.api('GET', '/openapi.json');
    const broken = structuredClone(body);
    broken.paths['/guilds/{guildId}'].get.parameters = [];
    expect((await validate(broken)).valid).toBe(false);
  });

  it('holds every schema as JSON Schema 2020-12, with no ajv-only keyword left (ajv strict mode)', async () => {
    const { body: document } = await server.api('GET', '/openapi.json');
    const ajv = (formatsPlugin as unknown as (a: Ajv2020) => Ajv2020)(new Ajv2020({ strict: true, allowUnionTypes: true }));
    const local = (schema: unknown) => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"components#/$defs/'));
    ajv.addSchema({ $id: 'components', $defs: local(document.components.schemas) });
    const schemas: [string, unknown][] = [];
    const collect = (node: unknown, at: string) => {
      if (typeof node !== 'object' || node === null) return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'schema') schemas.push([`${at}/schema`, value]);
        else if (at !== '/components') collect(value, `${at}/${key}`);
      }
    };
    collect(document, '');
    expect(schemas.length).toBeGreaterThan(200);
    const problems = schemas.flatMap(([at, schema]) => {
      try {
        ajv.compile(local(schema));
        return [];
      } catch (error) {
        return [`${at}: ${(error as Error).message}`];
      }
    });
    expect(problems).toEqual([]);
    expect(JSON.stringify(document)).not.toContain('cleanName');
  });

  it('documents the route schemas themselves: a body, a query and a path parameter', async () => {
    const { body: document } = await server.api('GET', '/openapi.json');
    const createGuild = document.paths['/guilds'].post;
    expect(createGuild.requestBody.content['application/json'].schema).toMatchObject({
      required: ['name'],
      additionalProperties: false,
      properties: { name: { minLength: 2, maxLength: 100 } },
    });
    expect(createGuild.responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Guild' });
    const listMessages = document.paths['/channels/{channelId}/messages'].get;
    expect(listMessages.parameters).toContainEqual(
      expect.objectContaining({ name: 'channelId', in: 'path', required: true, schema: { $ref: '#/components/schemas/Snowflake' } }),
    );
    expect(listMessages.parameters).toContainEqual(
      expect.objectContaining({ name: 'limit', in: 'query', required: false, schema: expect.objectContaining({ minimum: 1, maximum: 100, default: 50 }) }),
    );
    const send = document.paths['/channels/{channelId}/messages'].post;
    expect(Object.keys(send.requestBody.content)).toEqual(['application/json', 'multipart/form-data']);
    expect(send.responses['404'].content['application/json'].examples).toHaveProperty('UNKNOWN_CHANNEL');
    expect(document.paths['/users/@me'].get.responses['429'].headers).toHaveProperty('Retry-After');
    expect(document.paths['/users/@me'].patch.security).toEqual([{ Bot: [] }, { Bearer: [] }]);
    expect(document.paths['/users/@me'].get.security).toEqual([{ Bot: [] }, { Bearer: [] }, { OAuth2: ['identify'] }]);
    expect(document.paths['/avatars/{userId}/{file}'].servers).toEqual([{ url: '/', description: 'The origin’s root' }]);
  });
});

describe('ids and timestamps', () => {
  it('are named schemas, referenced wherever a route takes one: no long pattern is left inline', async () => {
    const { body: document } = await server.api('GET', '/openapi.json');
    expect(document.components.schemas.Snowflake).toMatchObject({
      type: 'string',
      pattern: '^[0-9]{1,20}$',
      description: expect.stringContaining('18446744073709551615'),
    });
    expect(document.components.schemas.Timestamp).toMatchObject({ type: 'string', format: 'date-time', description: expect.stringContaining('RFC 3339') });
    const patterns: string[] = [];
    const collect = (node: unknown) => {
      if (typeof node !== 'object' || node === null) return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'pattern' && typeof value === 'string') patterns.push(value);
        else collect(value);
      }
    };
    collect(document);
    expect(patterns.filter((pattern) => pattern.length > 60)).toEqual([]);
    const createRole = document.paths['/guilds/{guildId}/roles'].post.requestBody.content['application/json'].schema;
    expect(createRole.properties.permissions).toEqual({
      anyOf: [{ $ref: '#/components/schemas/Snowflake' }, { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }],
    });
    const editGuild = document.paths['/guilds/{guildId}'].patch.requestBody.content['application/json'].schema;
    expect(editGuild.properties.afk_channel_id).toEqual({ anyOf: [{ $ref: '#/components/schemas/Snowflake' }, { type: 'null' }] });
  });

  it('are checked by the routes as exactly as before: the largest 64-bit id passes the check, one more is refused', async () => {
    const token = (await registerUser(server)).token;
    expect((await server.api('GET', '/channels/18446744073709551615', { token })).body.code).toBe('UNKNOWN_CHANNEL');
    const refused = await server.api('GET', '/channels/18446744073709551616', { token });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('INVALID_FORM_BODY');
    expect((await server.api('GET', '/channels/1/messages/pins?before=2026-01-01T23:59:60Z', { token })).body.code).toBe('INVALID_FORM_BODY');
  });
});

describe('the entries', () => {
  it('cover every route of the API router and of the origin’s root', () => {
    const documented = (router: typeof api) => new Set(ROUTE_DOCS.filter((entry) => servedAt(entry).includes(router)).map(entryKey));
    const missing = [api, root].flatMap((router) =>
      [...router].filter(([key]) => !documented(router).has(key)).map(([, { route }]) => `${router === root ? 'at the root: ' : ''}${route}`),
    );
    expect(missing).toEqual([]);
  });

  it('name only real routes: the routers’, or the operator’s endpoints answered before them', async () => {
    const stale = ROUTE_DOCS.filter((entry) => !servedAt(entry).every((router) => router.has(entryKey(entry))));
    expect(stale.map((entry) => `${entry.method} ${entry.path}`)).toEqual(['GET /healthz', 'GET /readyz', 'GET /metrics']);
    for (const entry of stale) expect((await server.call(entry.method, entry.path)).body.code).not.toBe('NOT_FOUND');
  });

  it('give every path parameter its route’s schema', () => {
    const withoutParams = ROUTE_DOCS.filter((entry) => entry.path.includes('/:') && !entry.params).map((entry) => `${entry.method} ${entry.path}`);
    expect(withoutParams).toEqual([]);
  });

  it('say a route is rate limited (429, X-RateLimit-*) on every request exactly where the router limits it', () => {
    // A bucket with `when` is spent by the handler on some requests only (the authorization page's): no router layer.
    const limitedByEntry = ROUTE_DOCS.filter((entry) => entry.rateLimits?.some((bucket) => !bucket.when))
      .map(entryKey)
      .sort();
    const limitedByRouter = [...new Set([...api, ...root].filter(([, { limited }]) => limited).map(([key]) => key))].sort();
    expect(limitedByEntry).toEqual(limitedByRouter);
  });

  it('name only error codes the code base gives', async () => {
    const files = await Promise.all(
      ['domain', 'commands', 'http', 'infra'].flatMap(async (dir) =>
        (await readdir(dir, { recursive: true }))
          .filter((f) => f.endsWith('.ts') && !`${dir}/${f}`.startsWith('http/openapi/'))
          .map((f) => readFile(`${dir}/${f}`, 'utf8')),
      ),
    );
    // The route entries' own lists of the refusals they document are no evidence that anything gives them.
    const documented = /\b(?:errors|refusals)\b[^:=\n]*[:=] \[[^\]]*\]/g;
    const source = (await Promise.all(files.flat())).join('\n').replace(documented, '');
    expect(Object.keys(ERRORS).filter((code) => !source.includes(`'${code}'`))).toEqual([]);
  });
});

describe('GET /api/v1/docs', () => {
  it('answers the page with a policy allowing only the server, and its scripts and styles load from the server', async () => {
    const page = await server.api('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toMatch(/default-src 'none'; script-src 'self'; style-src 'self';/);
    expect(page.text).not.toMatch(/<script>|<style|style=|https?:\/\//);
    const assets = [...page.text.matchAll(/<(?:script src|link rel="stylesheet" href)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets).toEqual(['/api/v1/docs/swagger-ui.css', '/api/v1/docs/swagger-ui-bundle.js', '/api/v1/docs/reference.js']);
    for (const path of assets) {
      const file = await server.call('GET', path);
      expect(file.status, path).toBe(200);
      expect(file.headers['content-type'], path).toMatch(path.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
      expect(file.text.length, path).toBeGreaterThan(path.endsWith('reference.js') ? 100 : 100_000);
    }
    expect((await server.call('GET', '/api/docs')).text).toContain('data-document="/api/openapi.json"');
    expect((await server.api('GET', '/docs/index.html')).status).toBe(400);
  });

  it('renders every tag and the routes in a browser, with no request leaving the server and no policy violation', { timeout: 120_000 }, async () => {
    const browser = await playwright.launch({
      executablePath: await chromium.executablePath(),
      // Same-origin rules on (the point is what the policy allows), and no background connections to the outside.
      args: [
        ...chromium.args.filter((arg) => arg !== '--disable-web-security'),
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    try {
      const context = await browser.newContext({ ignoreHTTPSErrors: true });
      const page = await context.newPage();
      const elsewhere: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith(server.origin) && !request.url().startsWith('data:')) elsewhere.push(request.url());
      });
      // Scripts as strings: they run in the page, whose DOM this project's types do not describe.
      await page.addInitScript({
        content:
          "window.violations = []; document.addEventListener('securitypolicyviolation', (e) => window.violations.push(e.violatedDirective + ' ' + e.blockedURI));",
      });
      const violations = () => page.evaluate('window.violations');
      await page.goto(`${server.origin}/api/v1/docs`);
      // The reference's first route, as Swagger UI writes its path.
      const first = ROUTE_DOCS[0].path.replace(/:(\w+)/g, '{$1}');
      await page.locator('.opblock-summary-path', { hasText: first }).first().waitFor({ timeout: 60_000 });
      // Swagger UI renders a long list as it scrolls into view: its filter (by tag or path) brings each group up.
      const filter = page.locator('.operation-filter-input');
      for (const tag of Object.keys(TAGS)) {
        await filter.fill(tag);
        await page.locator(`.opblock-tag[data-tag="${tag}"]`).waitFor({ timeout: 10_000 });
      }
      await filter.fill('Members');
      await page.locator('.opblock-summary-path', { hasText: '/guilds/{guildId}/members/{userId}/roles/{roleId}' }).first().waitFor();
      expect(await violations()).toEqual([]);

      // The policy is enforced in this browser: an inline script is blocked and reported.
      await page.evaluate("{ const script = document.createElement('script'); script.textContent = 'window.inlineRan = true'; document.body.append(script); }");
      await expect.poll(violations).toEqual([expect.stringMatching(/^script-src/)]);
      expect(await page.evaluate('window.inlineRan')).toBeUndefined();
      expect(elsewhere).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
