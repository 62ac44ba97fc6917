// The application command object of the widely used API. Global commands answer guild_id null, as the spec says;
// discord.js and discord.py both read a missing or null guild_id as global.
import { createHash } from 'node:crypto';
import type { ApplicationCommandDoc } from '../projections/applicationCommands.js';
import type { ApplicationDoc } from '../projections/applications.js';
import type { ParleyApplicationCommand } from './differences.js';

/** The stored fields a command is answered with, in the API's order; a stored document may hold others. */
const ANSWERED_FIELDS = [
  'application_id',
  'guild_id',
  'name',
  'name_localizations',
  'description',
  'description_localizations',
  'type',
  'options',
  'default_member_permissions',
  'dm_permission',
  'nsfw',
  'contexts',
  'integration_types',
  'version',
] as const;

export function applicationCommandObject(doc: ApplicationCommandDoc): ParleyApplicationCommand {
  return { id: doc._id, ...pick(doc, ANSWERED_FIELDS) };
}

function pick<T, K extends keyof T>(from: T, keys: readonly K[]): Pick<T, K> {
  const picked = {} as Pick<T, K>;
  for (const key of keys) picked[key] = from[key];
  return picked;
}

/**
 * A member's command index, as the widely used client reads it: the applications (with their bots' ids), their
 * commands, and a version that changes whenever the list does (a digest of the commands' ids and versions).
 */
export function commandIndexObject(applications: ApplicationDoc[], commands: ApplicationCommandDoc[]) {
  const version = createHash('sha256')
    .update(commands.map((c) => `${c._id}:${c.version}`).join(','))
    .digest('hex')
    .slice(0, 16);
  return {
    applications: applications.map((a) => ({ id: a._id, name: a.name, description: a.description ?? '', icon: a.icon ?? null, bot_id: a.bot_user_id })),
    application_commands: commands.map(applicationCommandObject),
    version,
  };
}
