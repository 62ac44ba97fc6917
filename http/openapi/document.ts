// The OpenAPI 3.1 document of the API, built (by http/app.ts) from what the route entries document (routeDocs,
// http/route.ts) and the operator's endpoints, which are no entries (http/openapi/operations.ts). Bodies, queries and
// parameters are the route modules' own ajv schemas. OpenAPI 3.1 speaks JSON Schema 2020-12, which those
// draft-07-style schemas already are but for ajv's own keywords: `cleanName` is dropped here and said in words. The
// objects answered are the contracts' (contracts/), each a component, and the hand-written components'.
import { ErrorBody, RateLimitError } from '../../contracts/errors.js';
import { CONTRACTS } from '../../contracts/index.js';
import { answeredTimestamp } from '../../contracts/schema.js';
import { SCOPES } from '../../domain/oauth2.js';
import { snowflakeSchema, timestampSchema } from '../validation.js';
import { COMPONENTS, type ComponentName, ref } from './components.js';
import { type Answer, type Auth, type RouteDoc, type Schema, TAGS, routeShape } from './entry.js';
import { ERRORS, type ErrorCode } from './errors.js';

const CLEAN_NAME =
  'Stored NFC-normalized and trimmed; refused with control characters, lone surrogates or nothing visible; its length is counted once cleaned.';

/** Patterns too long to read, each said once by a component (ajv keeps checking the exact pattern). */
const NAMED_PATTERNS = new Map<unknown, ComponentName>([
  [snowflakeSchema.pattern, 'Snowflake'],
  [timestampSchema.pattern, 'Timestamp'],
  [answeredTimestamp.pattern, 'Timestamp'],
]);

/** The contracts' objects by identity: wherever one appears (an answer, another object's field), it is its component. */
const NAMED_OBJECTS = new Map<unknown, string>(Object.entries(CONTRACTS).map(([name, schema]) => [schema, name]));

/** A string schema as a reference to the component `name`, with its other types (null, a bounded integer) beside it. */
function asComponent(
  name: ComponentName,
  { type, pattern: _pattern, format: _format, minimum, maximum, ...rest }: Record<string, unknown>,
): Record<string, unknown> {
  const others = [type].flat().filter((t) => t !== 'string');
  if (others.length === 0) return { ...ref(name), ...rest };
  const alternative = (t: unknown) =>
    t === 'integer' ? { type: t, ...(minimum === undefined ? {} : { minimum }), ...(maximum === undefined ? {} : { maximum }) } : { type: t };
  return { anyOf: [ref(name), ...others.map(alternative)], ...rest };
}

/**
 * A route schema as OpenAPI 3.1 takes it: ajv's `cleanName` keyword becomes a sentence of the description, and an id,
 * a timestamp or a contract's object a reference to its component.
 */
export function openApiSchema(schema: unknown): unknown {
  const name = NAMED_OBJECTS.get(schema);
  return name ? { $ref: `#/components/schemas/${name}` } : itself(schema);
}

/** The schema itself as OpenAPI 3.1 takes it, with what it holds as references. */
function itself(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(openApiSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const converted: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'cleanName' && typeof value === 'boolean') continue;
    converted[key] = openApiSchema(value);
  }
  if ((schema as { cleanName?: unknown }).cleanName === true) converted.description = [converted.description, CLEAN_NAME].filter(Boolean).join(' ');
  const named = NAMED_PATTERNS.get(converted.pattern);
  return named ? asComponent(named, converted) : converted;
}

const properties = (schema: Schema | undefined) => Object.entries((schema?.properties ?? {}) as Record<string, Schema>);
const requiredOf = (schema: Schema | undefined) => new Set((schema?.required as string[] | undefined) ?? []);

/** A query's booleans: parseQuery takes what clients send. */
const QUERY_BOOLEAN = 'true or false (1/0 and True/False are read too).';

function parameters(entry: RouteDoc) {
  const where = `${entry.method} ${entry.path}`;
  const inPath = [...entry.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  const pathSchemas = Object.fromEntries(properties(entry.params));
  // A route that checks no parameters (none is an id) still names them, as strings.
  if (entry.params) for (const name of inPath.filter((n) => !pathSchemas[n])) throw new Error(`${where}: no schema for the path parameter :${name}`);
  const path = inPath.map((name) => ({ name, in: 'path', required: true, schema: openApiSchema(pathSchemas[name] ?? { type: 'string' }) }));
  const stray = Object.keys(pathSchemas).filter((name) => !inPath.includes(name));
  if (stray.length) throw new Error(`${where}: the parameter schema names ${stray.join(', ')}, which the path does not have`);
  const named = (place: 'query' | 'header', schema: Schema | undefined) => {
    const required = requiredOf(schema);
    return properties(schema).map(([name, property]) => ({
      name,
      in: place,
      required: required.has(name),
      ...(place === 'query' && property.type === 'boolean' ? { description: QUERY_BOOLEAN } : {}),
      schema: openApiSchema(property),
    }));
  };
  return [...path, ...named('query', entry.query), ...named('header', entry.headers)];
}

/** JSON, and where the route reads them, multipart (payload_json and files[n]) or a form whose `payload` holds the JSON. */
function requestBody(entry: RouteDoc) {
  if (!entry.body) return undefined;
  const schema = openApiSchema(entry.body);
  const content: Record<string, unknown> = { 'application/json': { schema } };
  if (entry.multipart) {
    content['multipart/form-data'] = {
      schema: {
        type: 'object',
        properties: { payload_json: { type: 'string', contentMediaType: 'application/json', contentSchema: schema, description: 'The JSON body.' } },
        patternProperties: {
          '^files\\[[0-9]+\\]$': { type: 'string', contentMediaType: 'application/octet-stream', description: 'A file, at most 25 MiB; at most 10 files.' },
        },
      },
      encoding: { payload_json: { contentType: 'application/json' } },
    };
  }
  if (entry.formFields) return { required: true, content: { 'application/x-www-form-urlencoded': { schema } } };
  if (entry.form) {
    content['application/x-www-form-urlencoded'] = {
      schema: {
        type: 'object',
        properties: { payload: { type: 'string', contentMediaType: 'application/json', contentSchema: schema } },
        required: ['payload'],
      },
    };
  }
  // A missing body counts as {}: only a list, or an object with required fields, must be sent.
  const required = entry.body.type === 'array' || requiredOf(entry.body).size > 0;
  return { required, content };
}

/** The refusals every route of the entry's kind can give, beside its own. */
function refusals(entry: RouteDoc): ErrorCode[] {
  const codes = new Set<ErrorCode>(entry.errors);
  // The API authenticates any Authorization header it is sent; the root's own routes are fetched without one.
  if (entry.root !== 'only') codes.add('UNAUTHORIZED');
  if (entry.auth === 'session') codes.add('BOTS_NOT_ALLOWED');
  if (entry.auth === 'bot') codes.add('BOTS_ONLY');
  if (entry.params || entry.query || entry.headers || entry.body) codes.add('INVALID_FORM_BODY');
  const more: ErrorCode[] = [
    ...(entry.body ? (['INVALID_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'REQUEST_ENTITY_TOO_LARGE'] as const) : []),
    ...(entry.multipart ? (['INVALID_MULTIPART', 'TOO_MANY_ATTACHMENTS', 'FILE_TOO_LARGE'] as const) : []),
  ];
  for (const code of more) codes.add(code);
  return [...codes];
}

const header = (description: string, schema: Schema) => ({ description, schema });
const HEADERS = {
  'X-RateLimit-Limit': header('Requests the bucket holds.', { type: 'integer' }),
  'X-RateLimit-Remaining': header('Requests left in the bucket.', { type: 'integer' }),
  'X-RateLimit-Reset': header('When the bucket is full again, in epoch seconds.', { type: 'number' }),
  'X-RateLimit-Reset-After': header('Seconds until the bucket is full again.', { type: 'number' }),
  'X-RateLimit-Bucket': header('The bucket’s id, a hash of its name.', { type: 'string' }),
  'Retry-After': header('Seconds to wait before trying again.', { type: 'integer' }),
  'X-RateLimit-Scope': header('Whose limit: `user` for the route’s bucket, `shared` when the image queue is full.', {
    type: 'string',
    enum: ['user', 'shared'],
  }),
  Via: header('Always sent on a 429: discord.py retries a 429 only with one.', { type: 'string' }),
};
const headerRefs = (names: (keyof typeof HEADERS)[]) => Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
const BUCKET_HEADERS = headerRefs(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-RateLimit-Reset-After', 'X-RateLimit-Bucket']);

/** One of the entry's own answers, with the bucket's headers on a limited route's success. */
function answered(answer: Answer, limited: boolean) {
  const schemas = answer.content ?? (answer.schema || answer.type ? { [answer.type ?? 'application/json']: answer.schema } : {});
  const content = Object.fromEntries(Object.entries(schemas).map(([type, schema]) => [type, schema ? { schema: openApiSchema(schema) } : {}]));
  return {
    description: answer.description,
    ...(limited ? { headers: BUCKET_HEADERS } : {}),
    ...(Object.keys(content).length ? { content } : {}),
  };
}

/** What an example body of these codes has beside its code and message. */
const EXAMPLE_EXTRAS: Partial<Record<ErrorCode, object>> = {
  INVALID_FORM_BODY: { errors: [{ path: 'name', message: 'This field is required' }] },
  RATE_LIMITED: { retry_after: 1.5, global: false },
  IMAGE_QUEUE_FULL: { retry_after: 1, global: false },
  SLOWMODE_RATE_LIMITED: { retry_after: 9.5, global: false },
};

/** One answer per status, listing its codes, each with an example body. */
function failures(codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERRORS[code][0], [...(byStatus.get(ERRORS[code][0]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, group]) => {
      const limited = status === 429;
      const examples = Object.fromEntries(group.map((code) => [code, { summary: code, value: { code, message: ERRORS[code][1], ...EXAMPLE_EXTRAS[code] } }]));
      return [
        String(status),
        {
          description: group.map((code) => `- \`${code}\`: ${ERRORS[code][1]}`).join('\n'),
          ...(limited ? { headers: headerRefs(['Retry-After', 'X-RateLimit-Scope', 'Via']) } : {}),
          content: { 'application/json': { schema: openApiSchema(limited ? RateLimitError : ErrorBody), examples } },
        },
      ];
    }),
  );
}

const SECURITY: Record<Auth, { security: Record<string, string[]>[]; note: string }> = {
  session: { security: [{ Bearer: [] }], note: 'A person’s session (`Authorization: Bearer <token>`); bot tokens are refused.' },
  bot: { security: [{ Bot: [] }], note: 'A bot token (`Authorization: Bot <token>`).' },
  any: { security: [{ Bot: [] }, { Bearer: [] }], note: 'A bot token or a person’s session.' },
  none: { security: [], note: 'No token needed.' },
  'webhook-token': { security: [], note: 'The token in the path is the credential: no Authorization header is needed.' },
  client: { security: [{ Client: [] }, {}], note: 'The OAuth2 client: HTTP Basic with its id and secret, or both in the form.' },
};

/** `getGuildsGuildIdMembers`: unique per method and path. */
const operationId = (entry: RouteDoc) =>
  `${entry.method.toLowerCase()}${entry.path.replace(/[^A-Za-z0-9]+([A-Za-z0-9]?)/g, (_, next: string) => next.toUpperCase())}`;

function operation(entry: RouteDoc) {
  const codes = refusals(entry);
  const limited = codes.includes('RATE_LIMITED');
  const { security, note } = SECURITY[entry.auth];
  const scoped = entry.oauth2Scope ? [...security, { OAuth2: [entry.oauth2Scope] }] : security;
  const body = requestBody(entry);
  // The entry's own answers, refusals in a format of its own among them, replace the catalogue's of their status.
  const own = Object.fromEntries(Object.entries(entry.responses).map(([status, answer]) => [status, answered(answer!, limited && Number(status) < 400)]));
  return {
    operationId: operationId(entry),
    summary: entry.summary,
    description: [entry.description, note].filter(Boolean).join('\n\n'),
    tags: [entry.tag],
    ...(entry.deprecated ? { deprecated: true } : {}),
    ...(entry.audit ? { 'x-audit-log-action': entry.audit } : {}),
    ...(entry.rateLimits ? { 'x-rate-limits': entry.rateLimits } : {}),
    parameters: parameters(entry),
    ...(body ? { requestBody: body } : {}),
    responses: Object.fromEntries(Object.entries({ ...failures(codes), ...own }).sort(([a], [b]) => Number(a) - Number(b))),
    ...(entry.root === 'only' ? {} : { security: scoped }),
  };
}

const API_SERVER = { url: '/api/v1', description: 'This server' };
const ROOT_SERVER = { url: '/', description: 'The origin’s root' };

/**
 * Builds the document; throws on entries that cannot be documented as written: two for one route, one path with two
 * sets of parameter names, a parameter schema naming a parameter the path lacks.
 */
export function openApiDocument(docs: readonly RouteDoc[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  const templates = new Map<string, string>();
  for (const entry of docs) {
    const template = entry.path.replace(/:(\w+)/g, '{$1}');
    const shape = routeShape('', entry.path);
    if ((templates.get(shape) ?? template) !== template) throw new Error(`${entry.path}: ${templates.get(shape)} is the same path with other parameter names`);
    templates.set(shape, template);
    const item = (paths[template] ??= entry.root ? { servers: [...(entry.root === 'also' ? [API_SERVER] : []), ROOT_SERVER] } : {});
    const method = entry.method.toLowerCase();
    if (item[method]) throw new Error(`${entry.method} ${entry.path} is documented twice`);
    item[method] = operation(entry);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Parley API',
      version: '1',
      summary: 'An event-sourced chat platform speaking the widely used chat-platform API’s shapes.',
      description: [
        'Every error answers `{code, message}` (`INVALID_FORM_BODY` adds `errors[{path, message}]`); a 204 carries no body.',
        'Ids are snowflakes as decimal strings (the `Snowflake` schema); timestamps look like `2026-01-01T00:00:00.000000+00:00` (`Timestamp`).',
        'Rate-limited routes name their buckets in `x-rate-limits` (`points` per `durationSeconds`, `when` for a bucket only some requests spend) and send `X-RateLimit-Limit`, `-Remaining`, `-Reset`, `-Reset-After` and `-Bucket`; every 429 adds `Retry-After`, `X-RateLimit-Scope` and `{retry_after, global: false}`. There is no global limit.',
        'The API answers under `/api/v1` and `/api` (the latest version); the CDN and the operator’s endpoints at the origin’s root.',
        'It answers under `/api/v9` and `/api/v10` too, for clients that pin the widely used API’s versions, in that API’s shapes where this document departs from them: an error’s `code` is that API’s number (`50013` for MISSING_PERMISSIONS, `0` where it has none), `INVALID_FORM_BODY` nests its `errors` by path (`{"content": {"_errors": [{"code", "message"}]}}`), and the guild sticker list is a plain array of every sticker.',
      ].join('\n\n'),
    },
    servers: [API_SERVER],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries({ ...COMPONENTS, ...CONTRACTS }).map(([name, schema]) => [name, itself(schema)])),
      headers: HEADERS,
      securitySchemes: {
        Bot: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'A bot token: `Authorization: Bot <token>`.' },
        Bearer: { type: 'http', scheme: 'bearer', description: 'A person’s session token (from POST /auth/login or /auth/register).' },
        Client: { type: 'http', scheme: 'basic', description: 'An OAuth2 client: its application id and client secret.' },
        OAuth2: {
          type: 'oauth2',
          description: 'An access token a person granted an application, for the routes its scopes name.',
          flows: {
            authorizationCode: { authorizationUrl: '/oauth2/authorize', tokenUrl: '/api/v1/oauth2/token', refreshUrl: '/api/v1/oauth2/token', scopes: SCOPES },
          },
        },
      },
    },
  };
}
