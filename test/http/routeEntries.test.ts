// Routes declared once (http/route.ts): the router the app serves, the OpenAPI document, the OAuth2 scope table and
// the rate-limit table are read from the same entries. Every route the API router serves is in the served document,
// an entry's route with the very body schema it validates with, and that document validates as OpenAPI 3.1.
import { validate } from '@readme/openapi-parser';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { CONTRACTS } from '../../contracts/index.js';
import { Role } from '../../contracts/roles.js';
import { API_ROUTES, apiRouter } from '../../http/app.js';
import { openApiSchema } from '../../http/openapi/document.js';
import { ERRORS } from '../../http/openapi/errors.js';
import { type Route, limits, route, scopes } from '../../http/route.js';
import { fileServer } from '../support/server.js';

const server = await fileServer();
const { body: document } = await server.api('GET', '/openapi.json');

/** The document's path template of a koa path: `/guilds/{guildId}` for `/guilds/:guildId`. */
const template = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/** Every method and path the API router answers (HEAD is GET's). */
/** The entries the document describes: not those a route of the same path passes requests on to (DMs' channels). */
const documented = API_ROUTES.filter((entry) => !entry.documentedBy);

const served = apiRouter(server.runtime).stack.flatMap((layer) =>
  layer.methods.filter((m) => m !== 'HEAD').map((method) => ({ method, path: String(layer.path), layer })),
);

describe('the API router and the document', () => {
  it('document every route the router serves, and the document validates as OpenAPI 3.1', async () => {
    expect(served.length).toBeGreaterThan(100);
    const missing = served.filter(({ method, path }) => !document.paths[template(path)]?.[method.toLowerCase()]).map(({ method, path }) => `${method} ${path}`);
    expect(missing).toEqual([]);
    const result = await validate(structuredClone(document));
    expect(result).toMatchObject({ valid: true, specification: 'OpenAPI' });
  });

  it('document each entry’s body, query and parameters with the schemas its route validates', () => {
    expect(API_ROUTES.length).toBeGreaterThan(10);
    // The reference's own routes are entries too, though they serve the document built from the entries.
    expect(documented.map((entry) => `${entry.method} ${entry.path}`)).toEqual(
      expect.arrayContaining(['GET /', 'GET /openapi.json', 'GET /docs', 'GET /docs/:asset']),
    );
    for (const entry of documented) {
      const operation = document.paths[template(entry.path)][entry.method.toLowerCase()];
      const where = `${entry.method} ${entry.path}`;
      // A form-bodied route (OAuth2) takes its fields as a form, not JSON.
      const bodyType = entry.formFields ? 'application/x-www-form-urlencoded' : 'application/json';
      if (entry.body) expect(operation.requestBody.content[bodyType].schema, where).toEqual(openApiSchema(entry.body));
      else expect(operation.requestBody, where).toBeUndefined();
      const query = Object.keys((entry.query?.properties ?? {}) as object);
      expect(
        operation.parameters.filter((p: { in: string }) => p.in === 'query').map((p: { name: string }) => p.name),
        where,
      ).toEqual(query);
    }
  });

  it('serve each entry with its buckets, and document the 429 and the buckets of exactly those that have one', () => {
    for (const entry of documented) {
      // A path with two entries (one passing requests on to the other) has a layer for each, in the entries' order.
      const samePath = (r: { method: string; path: string }) => r.method === entry.method && r.path === entry.path;
      const layer = served.filter(samePath)[API_ROUTES.filter(samePath).indexOf(entry)].layer;
      const where = `${entry.method} ${entry.path}`;
      const limited = layer.stack.filter((middleware) => middleware.name === 'limitRate').length;
      expect(limited, where).toBe(entry.limits?.length ?? 0);
      // The buckets every request spends, then those the handler spends on some requests (the authorization page's).
      const buckets = [...(entry.limits ?? []), ...(entry.spendsItself ?? [])];
      const operation = document.paths[template(entry.path)][entry.method.toLowerCase()];
      expect(operation['x-rate-limits'], where).toEqual(buckets.length ? buckets.map(({ key: _key, ...bucket }) => bucket) : undefined);
      // A send may be refused by the channel's slowmode, a 429 of the domain's.
      const ownRefusal = entry.errors.some((code) => ERRORS[code][0] === 429);
      expect(Object.keys(operation.responses).includes('429'), where).toBe(buckets.length > 0 || ownRefusal);
    }
  });

  it('serve both entries of a path where one passes requests on to the other, and document them once', () => {
    const passedTo = API_ROUTES.filter((entry) => entry.documentedBy);
    expect(passedTo.map((entry) => `${entry.method} ${entry.path}`).sort()).toEqual([
      'DELETE /channels/:channelId',
      'DELETE /channels/:channelId',
      'GET /channels/:channelId',
      'GET /channels/:channelId',
      'PATCH /channels/:channelId',
      'PATCH /channels/:channelId',
      'POST /channels/:channelId/threads',
      'POST /interactions',
      'POST /webhooks/:webhookId/:token',
    ]);
    for (const entry of passedTo) {
      const by = entry.documentedBy!;
      expect([by.method, by.path]).toEqual([entry.method, entry.path]);
      // The operation is the one entry of the path that the document describes.
      const documenting = documented.filter((other) => other.method === entry.method && other.path === entry.path);
      expect(documenting).toEqual([expect.objectContaining(by)]);
      const layers = served.filter(({ method, path }) => method === entry.method && path === entry.path);
      // A channel id is a guild channel's, a thread's or a DM's: /channels/:channelId has three entries.
      expect(layers).toHaveLength(entry.path === '/channels/:channelId' ? 3 : 2);
    }
  });

  it('spend one bucket for every route that names it: the users routes share the group’s `users` bucket', () => {
    const buckets = (method: string, path: string) =>
      served.find((r) => r.method === method && r.path === path)!.layer.stack.filter((m) => m.name === 'limitRate');
    const [meGroup, meRead] = buckets('GET', '/users/@me');
    const [userGroup, userRead] = buckets('GET', '/users/:userId');
    const [relationshipsGroup, relationships] = buckets('GET', '/users/@me/relationships');
    expect(userGroup).toBe(meGroup);
    expect(relationshipsGroup).toBe(meGroup);
    expect(userRead).toBe(meRead);
    expect(relationships).not.toBe(meRead);
  });
});

describe('the tables read from the entries', () => {
  it('count the buckets a handler spends itself: the authorization page’s bot flow (the spec’s 10 a minute) and sign-in', () => {
    const table = limits(API_ROUTES);
    expect(table.get('oauth2:authorize:bot')).toMatchObject({ points: 10, durationSeconds: 60 });
    expect(table.get('oauth2:authorize:signin')).toMatchObject({ points: 60, durationSeconds: 60 });
    const page = document.paths['/oauth2/authorize'];
    expect(page.get['x-rate-limits']).toEqual([expect.objectContaining({ bucket: 'oauth2:authorize:bot', points: 10, when: expect.any(String) })]);
    expect(page.post['x-rate-limits']).toEqual([expect.objectContaining({ bucket: 'oauth2:authorize:signin', points: 60, when: expect.any(String) })]);
    expect(page.get.responses['200'].headers).toHaveProperty('X-RateLimit-Bucket');
  });

  it('open to OAuth2 tokens exactly the scoped routes, ids matched as digits', () => {
    const table = scopes(API_ROUTES);
    const scopeOf = (path: string) => table.find((r) => r.path.test(path))?.scope;
    expect(scopeOf('/users/@me')).toBe('identify');
    expect(scopeOf('/Users/@me/')).toBe('identify');
    expect(scopeOf('/users/@me/relationships')).toBeUndefined();
    expect(scopeOf('/users/123')).toBeUndefined();
    // messages.read opens a channel's messages and one message, not its pins.
    expect(scopeOf('/channels/1/messages')).toBe('messages.read');
    expect(scopeOf('/channels/1/messages/2/')).toBe('messages.read');
    expect(scopeOf('/channels/1/messages/pins')).toBeUndefined();
    expect(scopeOf('/channels/1/messages/2/reactions/x')).toBeUndefined();
    const scoped = route({
      method: 'GET',
      path: '/channels/:channelId/things',
      summary: 's',
      tag: 'Channels',
      auth: 'any',
      params: { type: 'object', properties: { channelId: { type: 'string' } } },
      scope: 'messages.read',
      responses: { 200: { description: 'd' } },
      errors: [],
      handle: () => [],
    });
    expect(scopes([scoped])[0].path.test('/channels/abc/things')).toBe(true);
  });

  it('refuse a scope on a route that writes, and one bucket name with two limits', () => {
    const entry = (over: Partial<Route>): Route =>
      route({
        method: 'GET',
        path: '/x',
        summary: 's',
        tag: 'Users',
        auth: 'any',
        responses: { 200: { description: 'd' } },
        errors: [],
        handle: () => [],
        ...over,
      });
    expect(() => scopes([entry({ method: 'POST', scope: 'identify' })])).toThrow(/OAuth2 tokens read only/);
    const one = { bucket: 'b', points: 1, durationSeconds: 1 };
    expect(limits([entry({ limits: [one] }), entry({ limits: [one] })]).get('b')).toBe(one);
    expect(() => limits([entry({ limits: [one] }), entry({ limits: [{ ...one, points: 2 }] })])).toThrow(/declared twice/);
  });
});

describe('answers declared by contracts', () => {
  const entry = { method: 'GET', path: '/x/:roleId', summary: 's', tag: 'Roles', auth: 'any', errors: [] } as const;
  const answers = { 200: { description: 'The role.', schema: Role } } as const;
  const role = {
    id: '1',
    name: 'r',
    color: 0,
    colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
    hoist: false,
    position: 0,
    permissions: '0',
    managed: false,
    mentionable: false,
    flags: 0,
  };

  it('type the handler by its success answer: what the contract does not describe is a compile error', async () => {
    const typed = route({ ...entry, responses: answers, handle: () => role });
    // @ts-expect-error a role's permissions are a decimal string
    route({ ...entry, responses: answers, handle: () => ({ ...role, permissions: 0 }) });
    // @ts-expect-error every role has its position
    route({ ...entry, responses: answers, handle: () => ({ ...role, position: undefined }) });
    // A handler that writes its own answer returns nothing; an answer that is not JSON is not typed.
    route({ ...entry, responses: answers, handle: (ctx) => void (ctx.body = '{}') });
    route({ ...entry, responses: { 200: { description: 'A page.', type: 'text/html', schema: { type: 'string' } } }, handle: () => Buffer.from('') });
    // What the type lets through, the schema the reference shows takes too.
    const validate = new Ajv({ strict: false }).compile(Role);
    expect(validate(await typed.handle(undefined as never, undefined as never, undefined as never))).toBe(true);
  });

  it('are their contracts’ components, referred to wherever they appear', () => {
    expect(Object.keys(document.components.schemas)).toEqual(expect.arrayContaining(Object.keys(CONTRACTS)));
    expect(document.components.schemas.Role).toMatchObject({ type: 'object', description: Role.description, required: Role.required });
    expect(document.paths['/guilds/{guildId}/roles'].get.responses['200'].content['application/json'].schema).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/Role' },
    });
    expect(document.components.schemas.Guild.properties.roles).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Role' } });
  });
});
