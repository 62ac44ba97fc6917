// Bodies and queries are described once as JSON schemas; ajv checks them and json-schema-to-ts derives their types.
// A failure answers 400 INVALID_FORM_BODY with one {path, message} per problem, paths in dot/index notation.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formatsPlugin from 'ajv-formats';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { type FieldError, invalidForm } from '../domain/errors.js';

const addFormats = formatsPlugin as unknown as (ajv: Ajv) => Ajv;
const bodies = addFormats(new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }));
const queries = addFormats(new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, coerceTypes: true, useDefaults: true }));
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
    default:
      return error.message ?? 'Invalid value';
  }
}

export function fieldErrors(errors: ErrorObject[]): FieldError[] {
  const seen = new Set<string>();
  const result: FieldError[] = [];
  for (const error of errors) {
    const segments = error.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (error.keyword === 'required') segments.push(error.params.missingProperty);
    if (error.keyword === 'additionalProperties') segments.push(error.params.additionalProperty);
    const path = segments.join('.') || '_root';
    const message = messageOf(error);
    if (seen.has(path + message)) continue;
    seen.add(path + message);
    result.push({ path, message });
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
  return check(bodies, schema, body === undefined ? {} : body) as T;
}

/** Validates query parameters, coercing numbers and booleans and filling defaults. */
export function parseQuery<const S extends JSONSchema, T = FromSchema<S>>(schema: S, query: Record<string, unknown>): T {
  return check(queries, schema, { ...query }) as T;
}

export const snowflakeSchema = { type: 'string', pattern: '^[0-9]{1,20}$' } as const;
