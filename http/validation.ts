// Bodies and queries are described once as JSON schemas; ajv checks them and json-schema-to-ts derives their types.
// A failure answers 400 INVALID_FORM_BODY with one {path, message} per problem, paths in dot/index notation.
import { type AnySchemaObject, Ajv, type ErrorObject, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import formatsPlugin from 'ajv-formats';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { type FieldError, invalidForm } from '../domain/errors.js';
import { cleanName } from '../domain/text.js';
import { UINT64_PATTERN, snowflakeSchema } from '../contracts/schema.js';
import { NonJsonBody } from './body.js';
import { unsupportedMediaType } from './errors.js';

const addFormats = formatsPlugin as unknown as (ajv: Ajv) => Ajv;
const bodies = addFormats(new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }));
const queries = addFormats(new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, coerceTypes: true, useDefaults: true }));

/**
 * `cleanName: true` on a string: the name is replaced by its clean form (domain/text.ts), or refused, and its length
 * counted after cleaning. An empty string stays one where minLength allows it (an empty nick resets it).
 */
const cleanNameKeyword: SchemaValidateFunction = function check(
  _enabled: boolean,
  data: string,
  parentSchema?: AnySchemaObject,
  context?: Parameters<SchemaValidateFunction>[3],
) {
  const refuse = (message: string) => ((check as SchemaValidateFunction).errors = [{ keyword: 'cleanName', message, params: {} }]) && false;
  const min = (parentSchema?.minLength as number | undefined) ?? 0;
  if (data === '' && min === 0) return true;
  const cleaned = cleanName(data);
  if (!cleaned.ok) return refuse(cleaned.message);
  const length = [...cleaned.value].length;
  if (length < min) return refuse(`Must be ${min} or more in length.`);
  if (context) (context.parentData as Record<string | number, unknown>)[context.parentDataProperty] = cleaned.value;
  return true;
};
bodies.addKeyword({ keyword: 'cleanName', type: 'string', schemaType: 'boolean', modifying: true, errors: true, validate: cleanNameKeyword });

const compiled = new Map<Ajv, WeakMap<object, ValidateFunction>>([
  [bodies, new WeakMap()],
  [queries, new WeakMap()],
]);

export type { FromSchema, JSONSchema };

function messageOf(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'This field is required';
    case 'additionalProperties':
      return 'This field is not allowed here';
    case 'maxLength':
      return `Must be ${error.params.limit} or fewer in length.`;
    case 'minLength':
      return `Must be ${error.params.limit} or more in length.`;
    case 'enum':
      return `Must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}`;
    case 'pattern':
      // The snowflake pattern spells out every number up to 2^64 - 1: the person reading the answer needs its meaning.
      if (error.params.pattern === UINT64_PATTERN) return 'Must be a snowflake: a decimal string of a 64-bit unsigned integer';
      return error.message ?? 'Invalid value';
    default:
      return error.message ?? 'Invalid value';
  }
}

/** The widely used API's codes for the checks it shares with these schemas; the others are its BASE_TYPE_INVALID. */
const FIELD_ERROR_CODES: Record<string, string> = {
  required: 'BASE_TYPE_REQUIRED',
  maxLength: 'BASE_TYPE_MAX_LENGTH',
  maxItems: 'BASE_TYPE_MAX_LENGTH',
  minLength: 'BASE_TYPE_MIN_LENGTH',
  minItems: 'BASE_TYPE_MIN_LENGTH',
  maximum: 'NUMBER_TYPE_MAX',
  minimum: 'NUMBER_TYPE_MIN',
  enum: 'BASE_TYPE_CHOICES',
};

export function fieldErrors(errors: ErrorObject[]): FieldError[] {
  const seen = new Set<string>();
  const result: FieldError[] = [];
  for (const error of errors) {
    const segments = error.instancePath
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (error.keyword === 'required') segments.push(error.params.missingProperty);
    if (error.keyword === 'additionalProperties') segments.push(error.params.additionalProperty);
    const path = segments.join('.') || '_root';
    const message = messageOf(error);
    if (seen.has(path + message)) continue;
    seen.add(path + message);
    const code = FIELD_ERROR_CODES[error.keyword];
    result.push(code ? { path, message, code } : { path, message });
  }
  return result;
}

function check(ajv: Ajv, schema: JSONSchema, value: unknown): unknown {
  const cache = compiled.get(ajv)!;
  let validate = cache.get(schema as object);
  if (!validate) {
    validate = ajv.compile(schema as object);
    cache.set(schema as object, validate);
  }
  if (!validate(value)) throw invalidForm(fieldErrors(validate.errors ?? []));
  return value;
}

/** Validates a JSON body; a missing body counts as {} as in the widely used API. */
export function parseBody<const S extends JSONSchema, T = FromSchema<S>>(schema: S, body: unknown): T {
  if (body instanceof NonJsonBody) throw unsupportedMediaType(body.type);
  return check(bodies, schema, body === undefined ? {} : body) as T;
}

/** Query booleans as clients spell them: discord.js sends true/false, discord.py 1/0 (and Python's True/False). */
const QUERY_BOOLEANS: Record<string, boolean> = { true: true, True: true, '1': true, false: false, False: false, '0': false };

/** Validates query parameters, coercing numbers and booleans and filling defaults. */
export function parseQuery<const S extends JSONSchema, T = FromSchema<S>>(schema: S, query: Record<string, unknown>): T {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const value = { ...query };
  for (const [name, raw] of Object.entries(value)) {
    if (properties[name]?.type === 'boolean' && typeof raw === 'string' && Object.hasOwn(QUERY_BOOLEANS, raw)) value[name] = QUERY_BOOLEANS[raw];
  }
  return check(queries, schema, value) as T;
}

/** A name people type, between `minLength` and `maxLength` characters once cleaned (NFC, trimmed, visible). */
export const nameSchema = <const Min extends number, const Max extends number>(minLength: Min, maxLength: Max) =>
  ({ type: 'string', minLength, maxLength, cleanName: true }) as const;

/** Every id in a path, query or body: the contracts' own, since answers carry the same ids. */
export { snowflakeSchema };
export const nullableSnowflakeSchema = { type: ['string', 'null'], pattern: UINT64_PATTERN } as const;

/**
 * A 64-bit unsigned integer where a JSON number is also taken: its decimal string, or an integer small enough to be
 * exact (a larger one has lost its low digits in JSON.parse, and 1e21 would reach BigInt as "1e+21").
 */
export const uint64Schema = { type: ['string', 'integer'], pattern: UINT64_PATTERN, minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;

/**
 * A permission bitfield (roles, overwrites). The widely used API sends them as decimal strings, takes integers too,
 * and drops the bits it does not know, so any 64-bit value is taken and the domain keeps the bits that name
 * permissions; its clients hold bitfields in 64 bits, so anything wider cannot be one and is refused.
 */
export const bitfieldSchema = uint64Schema;

/** The widely used API's integer fields (positions, filters) are 32-bit. */
export const MAX_INT32 = 2 ** 31 - 1;

/**
 * An integer query parameter. ajv coerces an overflowing string such as "1e309" to Infinity and then skips every
 * numeric keyword (ajv-validator/ajv#2212); the nested type check sees the coerced value and refuses it.
 */
export const queryInteger = (minimum: number, maximum: number) => ({ type: 'integer', minimum, maximum, allOf: [{ type: 'integer' }] }) as const;

/** A list's page size: 1 to `maximum`, `fallback` when not given. */
export const pageLimit = <const D extends number>(maximum: number, fallback: D) => ({ ...queryInteger(1, maximum), default: fallback }) as const;

/**
 * An RFC 3339 timestamp that Date can hold: ajv's date-time also takes a leap second (23:59:60) and an offset of
 * hours alone, which Date.parse reads as NaN; the pattern leaves those out and the format checks the calendar.
 */
export const timestampSchema = {
  type: 'string',
  format: 'date-time',
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-5][0-9](?:\\.[0-9]+)?(?:[Zz]|[+-][0-9]{2}:?[0-9]{2})$',
} as const;
