// The application command object of the widely used API. Global commands answer guild_id null, as the spec says;
// discord.js and discord.py both read a missing or null guild_id as global.
import type { ApplicationCommandDoc } from '../projections/applicationCommands.js';
import type { ParleyApplicationCommand } from './differences.js';

export function applicationCommandObject({
  _id,
  application_id,
  guild_id,
  name,
  name_localizations,
  description,
  description_localizations,
  type,
  options,
  default_member_permissions,
  dm_permission,
  nsfw,
  contexts,
  integration_types,
  version,
}: ApplicationCommandDoc): ParleyApplicationCommand {
  return {
    id: _id,
    application_id,
    guild_id,
    name,
    name_localizations,
    description,
    description_localizations,
    type,
    options,
    default_member_permissions,
    dm_permission,
    nsfw,
    contexts,
    integration_types,
    version,
  };
}
