// Checks JSON against a contract (contracts/) with ajv, as a client of the widely used API would read it: what is
// wrong is listed one problem a line, by where it is and what was found there.
import { Ajv, type ErrorObject } from 'ajv';
import formatsPlugin from 'ajv-formats';
import type { JSONSchema } from 'json-schema-to-ts';
import { expect } from 'vitest';
import { UINT64_PATTERN, answeredTimestamp } from '../../contracts/schema.js';

const addFormats = formatsPlugin as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }));

/** What a pattern means, for a problem's line. */
const PATTERNS: Record<string, string> = { [UINT64_PATTERN]: 'is not snowflake', [answeredTimestamp.pattern]: 'is not timestamp' };

function problemOf(error: ErrorObject, value: unknown): string {
  const at = `$${error.instancePath.replaceAll('/', '.')}`;
  if (error.keyword === 'required') return `${at}.${error.params.missingProperty as string}: missing`;
  const said = (error.keyword === 'pattern' && PATTERNS[error.params.pattern as string]) || error.message;
  const found = error.instancePath
    .split('/')
    .slice(1)
    .reduce<unknown>((inner, key) => (inner as Record<string, unknown>)[key], value);
  return `${at}: ${JSON.stringify(found)} ${said}`;
}

/** Each schema compiled once: the contracts are shared objects, checked many times. */
const compiled = new WeakMap<object, ReturnType<Ajv['compile']>>();

/** What is wrong with `value` as `schema` describes it; a nullable field's two alternatives make one problem. */
export function shapeProblems(value: unknown, schema: JSONSchema): string[] {
  const validate = compiled.get(schema as object) ?? ajv.compile(schema as object);
  compiled.set(schema as object, validate);
  if (validate(value)) return [];
  return validate.errors!.filter((error) => !error.schemaPath.includes('/anyOf/')).map((error) => problemOf(error, value));
}

export const expectShape = (value: unknown, schema: JSONSchema) => expect(shapeProblems(value, schema)).toEqual([]);
