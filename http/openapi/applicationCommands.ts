// The application command routes (http/routes/applicationCommands.ts), global and per guild.
import { commandParams, createSchema, globalParams, guildParams, overwriteSchema, updateSchema } from '../routes/applicationCommands.js';
import { listOf, ref } from './components.js';
import { type RouteDoc, type Schema, paramsOf } from './entry.js';

const command = { description: 'The command.', schema: ref('ApplicationCommand') };
const WHO = 'The application’s bot or its owner (in a guild, the bot must be a member). Limits count per application.';

/** The same six routes for each scope: the application's global commands and its commands in one guild. */
function scope(path: string, params: Schema, where: string, errors: readonly ('UNKNOWN_GUILD' | 'UNKNOWN_APPLICATION')[]): RouteDoc[] {
  const base = { tag: 'Application commands', auth: 'any', description: WHO } as const;
  const one = { ...base, path: `${path}/:commandId`, params: paramsOf(params, commandParams) };
  const known = ['MISSING_ACCESS', ...errors] as const;
  return [
    { ...base, method: 'GET', path, summary: `List ${where}`, params, responses: { 200: { description: 'The commands.', schema: listOf('ApplicationCommand') } }, errors: [...known, 'RATE_LIMITED'] },
    {
      ...base,
      method: 'POST',
      path,
      summary: `Create ${where.replace('commands', 'a command')}`,
      description: `${WHO} A command of the same name and type is overwritten (200) instead of created (201).`,
      params,
      body: createSchema,
      responses: { 200: command, 201: command },
      errors: [...known, 'MAX_APPLICATION_COMMANDS', 'RATE_LIMITED'],
    },
    {
      ...base,
      method: 'PUT',
      path,
      summary: `Overwrite ${where}`,
      description: `${WHO} The list replaces them all; an entry with an id redefines that command (a rename keeps it).`,
      params,
      body: overwriteSchema,
      responses: { 200: { description: 'The commands now.', schema: listOf('ApplicationCommand') } },
      errors: [...known, 'MAX_APPLICATION_COMMANDS', 'RATE_LIMITED'],
    },
    { ...one, method: 'GET', summary: `Get one of ${where}`, responses: { 200: command }, errors: [...known, 'UNKNOWN_APPLICATION_COMMAND'] },
    { ...one, method: 'PATCH', summary: `Change one of ${where}`, body: updateSchema, responses: { 200: command }, errors: [...known, 'UNKNOWN_APPLICATION_COMMAND', 'RATE_LIMITED'] },
    { ...one, method: 'DELETE', summary: `Delete one of ${where}`, responses: { 204: { description: 'Deleted.' } }, errors: [...known, 'UNKNOWN_APPLICATION_COMMAND', 'RATE_LIMITED'] },
  ];
}

export const applicationCommandDocs: RouteDoc[] = [
  ...scope('/applications/:id/commands', globalParams, 'global commands', ['UNKNOWN_APPLICATION']),
  ...scope('/applications/:id/guilds/:guildId/commands', guildParams, 'guild commands', ['UNKNOWN_APPLICATION', 'UNKNOWN_GUILD']),
];
