// The reference's named schemas that are not objects the API answers with (those are the contracts, contracts/): an id
// and a timestamp, which the routes' schemas point at instead of repeating the exact patterns ajv checks, with the
// prose that says what they are.
import { MAX_SNOWFLAKE } from '../../domain/snowflake.js';
import type { Schema } from './entry.js';

export const COMPONENTS = {
  // An id's exact pattern spells out 0..2^64-1 digit by digit in some 400 characters: see document.ts.
  Snowflake: {
    type: 'string',
    pattern: '^[0-9]{1,20}$',
    description: `An id (a snowflake), or a permission bitfield: a 64-bit unsigned integer as a decimal string, 0 to ${MAX_SNOWFLAKE}. The pattern shown is the short form: a value above ${MAX_SNOWFLAKE} is refused too.`,
    examples: ['1234567890123456789'],
  },
  Timestamp: {
    type: 'string',
    format: 'date-time',
    description:
      'An RFC 3339 timestamp with seconds and an offset (`Z`, or `+hh:mm`): `2026-01-01T00:00:00.000000+00:00`. A leap second (`23:59:60`) or an offset of hours alone is refused.',
  },
} satisfies Record<string, Schema>;

export type ComponentName = keyof typeof COMPONENTS;

/** One of these, where a schema refers to it. */
export const ref = (name: ComponentName): Schema => ({ $ref: `#/components/schemas/${name}` });
