// The role object, one shape for role routes, role events and the roles inside guild objects (presenters/roles.ts).
// developers/topics/permissions.mdx, "Role Structure" and "Role Colors Object".
import { anyObject, boolean, integer, nullable, object, snowflakeSchema, string } from './schema.js';

export const Role = object(
  'A role (presenters/roles.ts); a bot’s managed role carries its tags.',
  {
    id: snowflakeSchema,
    name: string,
    color: integer,
    colors: object('The role’s colors.', { primary_color: integer, secondary_color: nullable(integer), tertiary_color: nullable(integer) }),
    hoist: boolean,
    position: integer,
    permissions: { type: 'string', description: 'The permission bitfield as a decimal string.' },
    managed: boolean,
    mentionable: boolean,
    flags: integer,
  },
  { icon: nullable(string), unicode_emoji: nullable(string), tags: anyObject },
);
