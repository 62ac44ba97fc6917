// The building blocks of the contracts: JSON schemas that keep their literal types, so that FromSchema derives from
// each the TypeScript type of what it describes. ajv checks requests with them (http/validation.ts), the reference
// shows them (http/openapi/), and the conformance test checks answers with them.
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { MAX_SNOWFLAKE } from '../domain/snowflake.js';

/**
 * A pattern for the decimal strings of 0..max with at most max's digits (leading zeros allowed): shorter strings, then
 * for each digit of max one alternative that keeps max's prefix and puts a lower digit there, then max itself.
 */
function decimalAtMost(max: bigint): string {
  const digits = max.toString();
  const rest = (n: number) => (n ? `[0-9]{${n}}` : '');
  const lower = [...digits].flatMap((d, i) => (d === '0' ? [] : [`${digits.slice(0, i)}[0-${Number(d) - 1}]${rest(digits.length - 1 - i)}`]));
  return `^(?:[0-9]{1,${digits.length - 1}}|${[...lower, digits].join('|')})$`;
}

/** The decimal string of a 64-bit unsigned integer: what an id or a bitfield is in the widely used API. */
export const UINT64_PATTERN = decimalAtMost(MAX_SNOWFLAKE);

/** Every id in a path, query, body or answer; a wider value is refused, since no id can have it. */
export const snowflakeSchema = { type: 'string', pattern: UINT64_PATTERN } as const;

/** A timestamp as the API writes it (presenters/timestamps.ts): microseconds and +00:00, which every client reads. */
export const answeredTimestamp = {
  type: 'string',
  format: 'date-time',
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}\\+00:00$',
} as const;

export const string = { type: 'string' } as const;
export const integer = { type: 'integer' } as const;
export const boolean = { type: 'boolean' } as const;
export const snowflakes = { type: 'array', items: snowflakeSchema } as const;
/** An object whose fields the contract leaves to the spec's own page (an embed's footer, a role's tags). */
export const anyObject = { type: 'object' } as const;
export const anyArray = { type: 'array' } as const;

export const nullable = <const S extends JSONSchema>(schema: S) => ({ anyOf: [schema, { type: 'null' }] }) as const;
export const list = <const S extends JSONSchema>(items: S) => ({ type: 'array', items }) as const;
/** An id or null (a channel's parent, a message's webhook), and a text or null (an avatar's hash, a topic). */
export const nullableId = nullable(snowflakeSchema);
export const nullableString = nullable(string);

/**
 * An object schema: its `required` fields are always there, its `optional` ones only sometimes. A type, not an
 * interface, so that it is a `Schema` (a record) where the reference takes one.
 */
export type ObjectSchema<
  R extends Record<string, JSONSchema> = Record<string, JSONSchema>,
  O extends Record<string, JSONSchema> = Record<string, JSONSchema>,
> = {
  readonly type: 'object';
  readonly description: string;
  readonly properties: R & O;
  readonly required: readonly (keyof R & string)[];
};

/** An object with these fields; it may carry more (clients of the widely used API ignore what they do not know). */
export function object<const R extends Record<string, JSONSchema>, const O extends Record<string, JSONSchema> = {}>(
  description: string,
  required: R,
  optional?: O,
): ObjectSchema<R, O> {
  return { type: 'object', description, properties: { ...required, ...optional } as R & O, required: Object.keys(required) };
}

/**
 * `schema` with more fields (or fields changed): a dispatch's object is its resource's with the fields of its event, a
 * channel of one type its channel's with the fields that type always has.
 */
export function extend<
  R0 extends Record<string, JSONSchema>,
  O0 extends Record<string, JSONSchema>,
  const R extends Record<string, JSONSchema>,
  const O extends Record<string, JSONSchema> = {},
>(schema: ObjectSchema<R0, O0>, description: string, required: R, optional?: O): ObjectSchema<Omit<R0, keyof O> & R, Omit<O0, keyof R> & O> {
  const kept = schema.required.filter((name) => !(optional && name in optional) && !(name in required));
  return {
    type: 'object',
    description,
    properties: { ...schema.properties, ...optional, ...required } as never,
    required: [...kept, ...Object.keys(required)] as never,
  };
}

/** Fields an object's type may carry beyond those listed are not typed: the listed ones are what the contract says. */
type Listed<T> = T extends readonly (infer I)[] ? Listed<I>[] : T extends object ? { [K in keyof T as string extends K ? never : K]: Listed<T[K]> } : T;

/** The TypeScript type of what a contract schema describes. */
export type Contract<S extends JSONSchema> = Listed<FromSchema<S>>;
