// The literal application command of the specs: every field with its default, a case overriding what it is about.
import type { ApplicationCommandDefinition, ApplicationCommandFields } from '../../domain/applicationCommand.js';

/** A slash command "ping" as a client defines it, nothing else set. */
export const commandDefinitionFields = (over: Partial<ApplicationCommandDefinition> = {}): ApplicationCommandDefinition => ({
  name: 'ping',
  name_localizations: null,
  description: 'Pong',
  description_localizations: null,
  type: 1,
  options: [],
  default_member_permissions: null,
  dm_permission: true,
  nsfw: false,
  contexts: null,
  integration_types: null,
  ...over,
});

/** That command as stored: global, of application 7, at version 1. */
export const applicationCommandFields = (id: string, over: Partial<ApplicationCommandFields> = {}): ApplicationCommandFields => ({
  id,
  application_id: '7',
  guild_id: null,
  ...commandDefinitionFields(),
  version: '1',
  ...over,
});
