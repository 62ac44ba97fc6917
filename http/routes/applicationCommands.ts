// Application command routes of the spec, global (/applications/:id/commands) and per guild
// (/applications/:id/guilds/:guildId/commands): list, create (or overwrite by name and type), fetch, change, delete
// and bulk overwrite. Only the application's bot and its owner manage them; the spec's per-application limits are
// counted after that check, so nobody else can spend an application's budget.
import { ApplicationCommand, ApplicationCommandIndex } from '../../contracts/commands.js';
import { list } from '../../contracts/schema.js';
import type { Context, Next } from 'koa';
import {
  createApplicationCommand,
  deleteApplicationCommand,
  memberCommandIndex,
  overwriteApplicationCommands,
  requireCommandManager,
  updateApplicationCommand,
} from '../../commands/applicationCommands.js';
import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  type ApplicationCommandFields,
  type CommandScope,
  MAX_CHOICES,
  MAX_COMMANDS_PER_TYPE,
  MAX_OPTIONS,
  unknownApplicationCommand,
} from '../../domain/applicationCommand.js';
import { applicationCommandDoc } from '../../projections/applicationCommands.js';
import { applicationCommandById, applicationCommandsOf } from '../../projections/applicationCommands.queries.js';
import { applicationIdFor } from '../../projections/applications.queries.js';
import { applicationCommandObject, commandIndexObject } from '../../presenters/applicationCommands.js';
import { guildMembersOnly } from '../guildLimits.js';
import { guildParams as guildOnlyParams } from '../params.js';
import { actorMeta } from '../actor.js';
import type { HttpDeps } from '../context.js';
import { type Schema, paramsOf } from '../openapi/entry.js';
import type { LimitSpec } from '../rateLimit.js';
import { type Route, route } from '../route.js';
import { MAX_OPTION_VALUE, choiceSchema, localizations } from '../shared/applicationCommands.js';
import { bitfieldSchema, parseBody, snowflakeSchema } from '../validation.js';

const optionValue = { type: 'number', minimum: -MAX_OPTION_VALUE, maximum: MAX_OPTION_VALUE } as const;
const optionProperties = {
  type: { type: 'integer', enum: Object.values(ApplicationCommandOptionType) },
  name: { type: 'string', minLength: 1, maxLength: 32 },
  name_localizations: localizations,
  description: { type: 'string', minLength: 1, maxLength: 100 },
  description_localizations: localizations,
  required: { type: 'boolean' },
  choices: { type: 'array', maxItems: MAX_CHOICES, items: choiceSchema },
  min_value: optionValue,
  max_value: optionValue,
  min_length: { type: 'integer', minimum: 0, maximum: 6000 },
  max_length: { type: 'integer', minimum: 1, maximum: 6000 },
  channel_types: { type: 'array', maxItems: 25, uniqueItems: true, items: { type: 'integer', minimum: 0, maximum: 255 } },
  autocomplete: { type: 'boolean' },
} as const;
const optionRequired = ['type', 'name', 'description'] as const;
/**
 * Options nest at most three deep (group → subcommand → option), so the levels are spelled out instead of a
 * recursive $ref: an option too deep is refused by shape, and the derived type stays finite.
 */
const leafOption = { type: 'object', properties: optionProperties, required: optionRequired, additionalProperties: false } as const;
const optionsOf = <const T>(items: T) => ({ type: 'array', maxItems: MAX_OPTIONS, items }) as const;
const subcommandOption = {
  type: 'object',
  properties: { ...optionProperties, options: optionsOf(leafOption) },
  required: optionRequired,
  additionalProperties: false,
} as const;
const topOption = {
  type: 'object',
  properties: { ...optionProperties, options: optionsOf(subcommandOption) },
  required: optionRequired,
  additionalProperties: false,
} as const;

/** The fields of a command a client defines; the type-dependent rules (names, descriptions, option kinds) are the decider's. */
const commandProperties = {
  name: { type: 'string', minLength: 1, maxLength: 32 },
  name_localizations: localizations,
  description: { type: 'string', maxLength: 100 },
  description_localizations: localizations,
  type: { type: 'integer', enum: Object.values(ApplicationCommandType) },
  options: optionsOf(topOption),
  default_member_permissions: { ...bitfieldSchema, type: ['string', 'integer', 'null'] },
  dm_permission: { type: ['boolean', 'null'] },
  nsfw: { type: 'boolean' },
  contexts: { type: ['array', 'null'], uniqueItems: true, items: { type: 'integer', enum: [0, 1, 2] } },
  integration_types: { type: ['array', 'null'], uniqueItems: true, items: { type: 'integer', enum: [0, 1] } },
} as const;

export const createSchema = { type: 'object', properties: commandProperties, required: ['name'], additionalProperties: false } as const;
export const updateSchema = { type: 'object', properties: commandProperties, additionalProperties: false } as const;
/** An entry may name the command it redefines by id (how a rename keeps it), as in the widely used API. */
export const overwriteSchema = {
  type: 'array',
  maxItems: Object.values(MAX_COMMANDS_PER_TYPE).reduce((a, b) => a + b),
  items: { type: 'object', properties: { id: snowflakeSchema, ...commandProperties }, required: ['name'], additionalProperties: false },
} as const;

export const globalParams = { type: 'object', properties: { id: snowflakeSchema }, required: ['id'] } as const;
export const guildParams = { type: 'object', properties: { id: snowflakeSchema, guildId: snowflakeSchema }, required: ['id', 'guildId'] } as const;
export const commandParams = { type: 'object', properties: { commandId: snowflakeSchema }, required: ['commandId'] } as const;

declare module 'koa' {
  interface DefaultState {
    /** The command scope a request was allowed to manage (set by the routes' access check). */
    commandScope?: CommandScope;
  }
}

const present = (command: ApplicationCommandFields) => applicationCommandObject(applicationCommandDoc(command));
const scopeOf = (ctx: Context) => ctx.state.commandScope!;

/**
 * The scope the path names (by the application's id, or its bot user's: applicationIdFor), once the caller is known
 * to manage it; before any limit is counted.
 */
const manager = (guildScoped: boolean) => (deps: HttpDeps) => async (ctx: Context, next: Next) => {
  const { id, guildId } = guildScoped ? parseBody(guildParams, ctx.params) : { ...parseBody(globalParams, ctx.params), guildId: null };
  const scope: CommandScope = { applicationId: await applicationIdFor(deps.readStore, id), guildId };
  await requireCommandManager(deps, scope, actorMeta(ctx).actorId);
  ctx.state.commandScope = scope;
  return next();
};

// The spec's Limits, per application: one bucket each, shared by its global and guild routes.
const perApplication = (ctx: Context) => scopeOf(ctx).applicationId;
const listLimit: LimitSpec = { bucket: 'application-commands:list', points: 5, durationSeconds: 5, key: perApplication };
const writeLimit: LimitSpec = { bucket: 'application-commands:write', points: 5, durationSeconds: 10, key: perApplication };
const overwriteLimit: LimitSpec = { bucket: 'application-commands:overwrite', points: 2, durationSeconds: 30, key: perApplication };

/** The command the path names, in the scope the path names (another scope's command is unknown here). */
async function commandInScope(deps: HttpDeps, ctx: Context, commandId: string) {
  const scope = scopeOf(ctx);
  const doc = await applicationCommandById(deps.readStore, commandId);
  if (!doc || doc.application_id !== scope.applicationId || doc.guild_id !== scope.guildId) throw unknownApplicationCommand();
  return doc;
}

const command = { description: 'The command.', schema: ApplicationCommand };
const WHO = 'The application’s bot or its owner (in a guild, the bot must be a member). Limits count per application.';

/** The same six routes for each scope: the application's global commands and its commands in one guild. */
function scopeRoutes(path: string, params: Schema, where: string, errors: readonly ('UNKNOWN_GUILD' | 'UNKNOWN_APPLICATION')[]): Route[] {
  const base = { tag: 'Application commands', auth: 'any', description: WHO, guards: [manager(params === guildParams)] } as const;
  // The scope's parameters are the guard's; the command's id is checked here.
  const one = { ...base, path: `${path}/:commandId`, params: paramsOf(params, commandParams), readsItself: ['params'] } as const;
  const known = ['MISSING_ACCESS', ...errors] as const;
  return [
    route({
      ...base,
      method: 'GET',
      path,
      summary: `List ${where}`,
      params,
      limits: [listLimit],
      responses: { 200: { description: 'The commands.', schema: list(ApplicationCommand) } },
      errors: known,
      handle: async (ctx, _input, deps) =>
        (await applicationCommandsOf(deps.readStore, scopeOf(ctx).applicationId, scopeOf(ctx).guildId)).map(applicationCommandObject),
    }),
    route({
      ...base,
      method: 'POST',
      path,
      summary: `Create ${where.replace('commands', 'a command')}`,
      description: `${WHO} A command of the same name and type is overwritten (200) instead of created (201).`,
      params,
      body: createSchema,
      limits: [writeLimit],
      responses: { 200: command, 201: command },
      errors: [...known, 'MAX_APPLICATION_COMMANDS'],
      async handle(ctx, { body }, deps) {
        const { command: created, created: isNew } = await createApplicationCommand(deps, actorMeta(ctx), scopeOf(ctx), body);
        ctx.status = isNew ? 201 : 200;
        ctx.body = present(created);
      },
    }),
    route({
      ...base,
      method: 'PUT',
      path,
      summary: `Overwrite ${where}`,
      description: `${WHO} The list replaces them all; an entry with an id redefines that command (a rename keeps it).`,
      params,
      body: overwriteSchema,
      limits: [overwriteLimit],
      responses: { 200: { description: 'The commands now.', schema: list(ApplicationCommand) } },
      errors: [...known, 'MAX_APPLICATION_COMMANDS'],
      handle: async (ctx, { body }, deps) => (await overwriteApplicationCommands(deps, actorMeta(ctx), scopeOf(ctx), body)).map(present),
    }),
    route({
      ...one,
      method: 'GET',
      summary: `Get one of ${where}`,
      responses: { 200: command },
      errors: [...known, 'UNKNOWN_APPLICATION_COMMAND'],
      handle: async (ctx, _input, deps) => applicationCommandObject(await commandInScope(deps, ctx, parseBody(commandParams, ctx.params).commandId)),
    }),
    route({
      ...one,
      method: 'PATCH',
      summary: `Change one of ${where}`,
      body: updateSchema,
      // After the command's id, as the id is checked first.
      readsItself: ['params', 'body'],
      limits: [writeLimit],
      responses: { 200: command },
      errors: [...known, 'UNKNOWN_APPLICATION_COMMAND'],
      async handle(ctx, _input, deps) {
        const { commandId } = parseBody(commandParams, ctx.params);
        const body = parseBody(updateSchema, ctx.request.body);
        return present(await updateApplicationCommand(deps, actorMeta(ctx), scopeOf(ctx), commandId, body));
      },
    }),
    route({
      ...one,
      method: 'DELETE',
      summary: `Delete one of ${where}`,
      limits: [writeLimit],
      responses: { 204: { description: 'Deleted.' } },
      errors: [...known, 'UNKNOWN_APPLICATION_COMMAND'],
      handle: (ctx, _input, deps) => deleteApplicationCommand(deps, actorMeta(ctx), scopeOf(ctx), parseBody(commandParams, ctx.params).commandId),
    }),
  ];
}

export const commandIndexRoute = route({
  method: 'GET',
  path: '/guilds/:guildId/application-command-index',
  summary: 'List the commands a member can use in a guild',
  description:
    'The widely used client’s command index: the applications whose bots are members, and their global and guild commands the caller may use there (contexts allowing guilds, USE_APPLICATION_COMMANDS and `default_member_permissions`). Members only.',
  tag: 'Application commands',
  auth: 'any',
  guards: [guildMembersOnly],
  params: guildOnlyParams,
  responses: { 200: { description: 'The applications and their commands.', schema: ApplicationCommandIndex } },
  errors: ['UNKNOWN_GUILD'],
  async handle(ctx, { params }, deps) {
    const { applications, commands } = await memberCommandIndex(deps, params.guildId, actorMeta(ctx).actorId);
    return commandIndexObject(applications, commands);
  },
});

export const applicationCommandRoutes = [
  commandIndexRoute,
  ...scopeRoutes('/applications/:id/commands', globalParams, 'global commands', ['UNKNOWN_APPLICATION']),
  ...scopeRoutes('/applications/:id/guilds/:guildId/commands', guildParams, 'guild commands', ['UNKNOWN_APPLICATION', 'UNKNOWN_GUILD']),
];
