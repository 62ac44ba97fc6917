// Role objects, one shape for role routes, role events and the roles inside guild objects.
import type { APIRole } from 'discord-api-types/v10';
import type { RoleDoc } from '../projections/guilds.js';
import { NO_FLAGS } from './flags.js';

/** A role object; a bot's managed role carries its tags. The service has no role icons or role flags. */
export function roleObject(doc: RoleDoc): APIRole {
  return {
    id: doc._id,
    name: doc.name,
    color: doc.color,
    colors: { primary_color: doc.color, secondary_color: null, tertiary_color: null },
    hoist: doc.hoist,
    icon: null,
    unicode_emoji: null,
    position: doc.position,
    permissions: doc.permissions,
    managed: doc.tags !== undefined,
    mentionable: doc.mentionable,
    flags: NO_FLAGS,
    ...(doc.tags ? { tags: doc.tags } : {}),
  };
}
