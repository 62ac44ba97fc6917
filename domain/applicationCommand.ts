// The application commands of one scope (stream application-commands-{appId}-{guildId|global}): an application's
// global commands, or its commands in one guild. One stream per scope, so name uniqueness, the per-type limits and a
// bulk overwrite are decided on one state and appended atomically. Who may manage them is the command layer's.
import type { Decider, DomainEvent } from './decider.js';
import { type FieldError, badRequest, invalidForm, notFound } from './errors.js';
import { normalizePermissions } from './permissions.js';

/** The spec's command types. */
export const ApplicationCommandType = { CHAT_INPUT: 1, USER: 2, MESSAGE: 3 } as const;
export type ApplicationCommandType = (typeof ApplicationCommandType)[keyof typeof ApplicationCommandType];

/** The spec's command option types. */
export const ApplicationCommandOptionType = {
  SUB_COMMAND: 1,
  SUB_COMMAND_GROUP: 2,
  STRING: 3,
  INTEGER: 4,
  BOOLEAN: 5,
  USER: 6,
  CHANNEL: 7,
  ROLE: 8,
  MENTIONABLE: 9,
  NUMBER: 10,
} as const;
export type ApplicationCommandOptionType = (typeof ApplicationCommandOptionType)[keyof typeof ApplicationCommandOptionType];

export interface ApplicationCommandOptionChoice {
  name: string;
  value: string | number;
  name_localizations?: Record<string, string> | null;
}

export interface ApplicationCommandOption {
  type: ApplicationCommandOptionType;
  name: string;
  description: string;
  required?: boolean;
  choices?: ApplicationCommandOptionChoice[];
  options?: ApplicationCommandOption[];
  min_value?: number;
  max_value?: number;
  min_length?: number;
  max_length?: number;
  channel_types?: number[];
  autocomplete?: boolean;
  name_localizations?: Record<string, string> | null;
  description_localizations?: Record<string, string> | null;
}

/** A command as stored and answered. `version` is the command's own counter, as a decimal string. */
export interface ApplicationCommandFields {
  id: string;
  application_id: string;
  /** null for a global command. */
  guild_id: string | null;
  name: string;
  description: string;
  type: ApplicationCommandType;
  options: ApplicationCommandOption[];
  default_member_permissions: string | null;
  dm_permission: boolean;
  nsfw: boolean;
  /** Interaction context types (0 guild, 1 bot DM, 2 private channel); null: not set. */
  contexts: number[] | null;
  /** Installation types (0 guild install, 1 user install); null: not set, as sent. */
  integration_types: number[] | null;
  name_localizations: Record<string, string> | null;
  description_localizations: Record<string, string> | null;
  version: string;
}

/** The whole command is carried, so the projection and the dispatches need no earlier event. */
export type ApplicationCommandCreated = DomainEvent<'ApplicationCommandCreated', { command: ApplicationCommandFields }>;
export type ApplicationCommandUpdated = DomainEvent<'ApplicationCommandUpdated', { command: ApplicationCommandFields }>;
export type ApplicationCommandDeleted = DomainEvent<'ApplicationCommandDeleted', { command: ApplicationCommandFields }>;
export type ApplicationCommandEvent = ApplicationCommandCreated | ApplicationCommandUpdated | ApplicationCommandDeleted;

/** The widely used API's limits per scope: 100 slash commands, 5 user and 5 message context-menu commands. */
export const MAX_COMMANDS_PER_TYPE: Record<ApplicationCommandType, number> = { 1: 100, 2: 5, 3: 5 };
/** The spec's limits on options and choices, per level. */
export const MAX_OPTIONS = 25;
export const MAX_CHOICES = 25;
/** The widely used API's rule for slash-command and option names (lowercase is checked apart). */
export const CHAT_INPUT_NAME = /^[-_\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;

/** What a client defines: a command without the fields the service assigns. */
export type ApplicationCommandDefinition = Omit<ApplicationCommandFields, 'id' | 'application_id' | 'guild_id' | 'version'>;

/** A definition as a client may send it: everything but the name has a default. */
export type ApplicationCommandInput = Partial<Omit<ApplicationCommandDefinition, 'default_member_permissions' | 'dm_permission'>> & {
  name: string;
  /** A bitfield as a decimal string or an integer (discord.py sends integers). */
  default_member_permissions?: string | number | null;
  dm_permission?: boolean | null;
};

/** Whose commands a stream holds: an application's global ones (guildId null) or those in one guild. */
export interface CommandScope {
  applicationId: string;
  guildId: string | null;
}

export interface ApplicationCommandsState {
  /** The live commands of the scope, in creation order. */
  commands: ApplicationCommandFields[];
}

export type ApplicationCommandCommand =
  /** POST: creates the command, or overwrites the one of the same name and type (the widely used API's upsert). */
  | { type: 'UpsertApplicationCommand'; scope: CommandScope; id: string; definition: ApplicationCommandDefinition }
  /** PATCH: only the fields given change; the type cannot. */
  | { type: 'UpdateApplicationCommand'; scope: CommandScope; commandId: string; changes: Partial<ApplicationCommandDefinition> }
  | { type: 'DeleteApplicationCommand'; scope: CommandScope; commandId: string }
  /**
   * PUT: the scope's commands become exactly `definitions`. An entry keeps the id of the command it names by `id`, or
   * else of the one with its name and type; `newIds[i]` is the id of entry i if it is new.
   */
  | { type: 'OverwriteApplicationCommands'; scope: CommandScope; definitions: (ApplicationCommandDefinition & { id?: string })[]; newIds: string[] };

export const unknownApplicationCommand = () => notFound('UNKNOWN_APPLICATION_COMMAND', 'Unknown application command');

const maxCommandsReached = (type: ApplicationCommandType) =>
  badRequest('MAX_APPLICATION_COMMANDS', `Maximum number of application commands of type ${type} reached (${MAX_COMMANDS_PER_TYPE[type]})`);

const VALUE_OPTION_TYPES: readonly number[] = [ApplicationCommandOptionType.STRING, ApplicationCommandOptionType.INTEGER, ApplicationCommandOptionType.NUMBER];
const isSubcommandLike = (type: number) => type === ApplicationCommandOptionType.SUB_COMMAND || type === ApplicationCommandOptionType.SUB_COMMAND_GROUP;

// ---------------------------------------------------------------------------------------------------------------
// Definitions: defaults, a canonical form (so an unchanged definition compares equal), and the rules of the spec's
// Application command and Command option tables that depend on the type (the request schemas check the shapes).

function canonicalOption(option: ApplicationCommandOption): ApplicationCommandOption {
  const {
    type,
    name,
    description,
    required,
    choices,
    options,
    min_value,
    max_value,
    min_length,
    max_length,
    channel_types,
    autocomplete,
    name_localizations,
    description_localizations,
  } = option;
  return {
    type,
    name,
    ...(name_localizations ? { name_localizations } : {}),
    description,
    ...(description_localizations ? { description_localizations } : {}),
    // As the widely used API: `required` is answered only when true.
    ...(required ? { required } : {}),
    ...(choices
      ? { choices: choices.map((c) => ({ name: c.name, ...(c.name_localizations ? { name_localizations: c.name_localizations } : {}), value: c.value })) }
      : {}),
    ...(options ? { options: options.map(canonicalOption) } : {}),
    ...(channel_types ? { channel_types } : {}),
    ...(min_value !== undefined ? { min_value } : {}),
    ...(max_value !== undefined ? { max_value } : {}),
    ...(min_length !== undefined ? { min_length } : {}),
    ...(max_length !== undefined ? { max_length } : {}),
    ...(autocomplete !== undefined ? { autocomplete } : {}),
  };
}

const permissionsOf = (value: string | number | null) => (value === null ? null : normalizePermissions(value));

/** The definition a POST or PUT entry stands for: what was not sent takes its default. */
export function commandDefinition(input: ApplicationCommandInput): ApplicationCommandDefinition {
  return {
    name: input.name,
    name_localizations: input.name_localizations ?? null,
    description: input.description ?? '',
    description_localizations: input.description_localizations ?? null,
    type: input.type ?? ApplicationCommandType.CHAT_INPUT,
    options: (input.options ?? []).map(canonicalOption),
    default_member_permissions: permissionsOf(input.default_member_permissions ?? null),
    dm_permission: input.dm_permission ?? true,
    nsfw: input.nsfw ?? false,
    contexts: input.contexts ?? null,
    integration_types: input.integration_types ?? null,
  };
}

/** The fields a PATCH sent, in the same canonical form; a null dm_permission means the default, as in a POST. */
export function commandChanges(input: Partial<ApplicationCommandInput>): Partial<ApplicationCommandDefinition> {
  const { options, default_member_permissions, dm_permission, ...rest } = input;
  return {
    ...rest,
    ...(options !== undefined ? { options: options.map(canonicalOption) } : {}),
    ...(default_member_permissions !== undefined ? { default_member_permissions: permissionsOf(default_member_permissions) } : {}),
    ...(dm_permission !== undefined ? { dm_permission: dm_permission ?? true } : {}),
  };
}

/** Why `name` cannot name a slash command or an option, or null. */
function chatInputNameProblem(name: string): string | null {
  if (!CHAT_INPUT_NAME.test(name)) return 'Must be 1-32 letters, numbers, hyphens or underscores, without spaces';
  if (name !== name.toLowerCase()) return 'Must be lowercase';
  return null;
}

const at = (prefix: string, field: string) => (prefix ? `${prefix}.${field}` : field);

/** Where an option list sits: what it may hold depends on it. */
type OptionLevel = 'command' | 'group' | 'subcommand';

function optionErrors(options: ApplicationCommandOption[], path: string, level: OptionLevel): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  const nested = options.filter((o) => isSubcommandLike(o.type)).length;
  let optionalSeen = false;
  options.forEach((option, i) => {
    const p = `${path}.${i}`;
    const problem = chatInputNameProblem(option.name);
    if (problem) errors.push({ path: `${p}.name`, message: problem });
    else if (names.has(option.name)) errors.push({ path: `${p}.name`, message: 'Option names must be unique within one level' });
    names.add(option.name);

    const subcommandLike = isSubcommandLike(option.type);
    if (level === 'group' && option.type !== ApplicationCommandOptionType.SUB_COMMAND)
      errors.push({ path: `${p}.type`, message: 'A subcommand group holds only subcommands' });
    else if (level === 'subcommand' && subcommandLike) errors.push({ path: `${p}.type`, message: 'A subcommand cannot hold subcommands or groups' });
    else if (level === 'command' && nested && !subcommandLike) errors.push({ path: `${p}.type`, message: 'Options cannot sit beside subcommands or groups' });

    if (option.options !== undefined) {
      if (!subcommandLike) errors.push({ path: `${p}.options`, message: 'Only subcommands and subcommand groups have options' });
      else
        errors.push(...optionErrors(option.options, `${p}.options`, option.type === ApplicationCommandOptionType.SUB_COMMAND_GROUP ? 'group' : 'subcommand'));
    }
    if (!subcommandLike) {
      if (option.required && optionalSeen) errors.push({ path: `${p}.required`, message: 'Required options must be placed before optional options' });
      if (!option.required) optionalSeen = true;
    }
    errors.push(...valueRuleErrors(option, p));
  });
  return errors;
}

/** The fields that belong to some option types only, and the values they bound. */
function valueRuleErrors(option: ApplicationCommandOption, p: string): FieldError[] {
  const errors: FieldError[] = [];
  const { STRING, INTEGER, NUMBER, CHANNEL } = ApplicationCommandOptionType;
  const only = (field: keyof ApplicationCommandOption, types: readonly number[], what: string) => {
    if (option[field] !== undefined && !types.includes(option.type)) errors.push({ path: `${p}.${field}`, message: `Only ${what} options have ${field}` });
  };
  only('choices', VALUE_OPTION_TYPES, 'STRING, INTEGER and NUMBER');
  only('autocomplete', VALUE_OPTION_TYPES, 'STRING, INTEGER and NUMBER');
  only('min_value', [INTEGER, NUMBER], 'INTEGER and NUMBER');
  only('max_value', [INTEGER, NUMBER], 'INTEGER and NUMBER');
  only('min_length', [STRING], 'STRING');
  only('max_length', [STRING], 'STRING');
  only('channel_types', [CHANNEL], 'CHANNEL');

  if (option.choices && VALUE_OPTION_TYPES.includes(option.type)) {
    const fits = (value: string | number) =>
      option.type === STRING ? typeof value === 'string' : option.type === INTEGER ? Number.isInteger(value) : typeof value === 'number';
    option.choices.forEach((choice, j) => {
      if (!fits(choice.value))
        errors.push({
          path: `${p}.choices.${j}.value`,
          message: `Must be ${option.type === STRING ? 'a string' : option.type === INTEGER ? 'an integer' : 'a number'}`,
        });
    });
    if (option.autocomplete) errors.push({ path: `${p}.autocomplete`, message: 'An option with choices cannot be autocompleted' });
  }
  if (option.type === INTEGER) {
    for (const field of ['min_value', 'max_value'] as const) {
      if (option[field] !== undefined && !Number.isInteger(option[field])) errors.push({ path: `${p}.${field}`, message: 'Must be an integer' });
    }
  }
  if (option.min_value !== undefined && option.max_value !== undefined && option.min_value > option.max_value) {
    errors.push({ path: `${p}.min_value`, message: 'Must not be greater than max_value' });
  }
  if (option.min_length !== undefined && option.max_length !== undefined && option.min_length > option.max_length) {
    errors.push({ path: `${p}.min_length`, message: 'Must not be greater than max_length' });
  }
  return errors;
}

/** The spec's rules for a whole command; `prefix` places the paths inside a bulk array ("1.name"). */
export function definitionErrors(definition: ApplicationCommandDefinition, prefix = ''): FieldError[] {
  const errors: FieldError[] = [];
  if (definition.type === ApplicationCommandType.CHAT_INPUT) {
    const problem = chatInputNameProblem(definition.name);
    if (problem) errors.push({ path: at(prefix, 'name'), message: problem });
    const length = [...definition.description].length;
    if (length < 1 || length > 100) errors.push({ path: at(prefix, 'description'), message: 'Must be between 1 and 100 in length.' });
    errors.push(...optionErrors(definition.options, at(prefix, 'options'), 'command'));
  } else {
    // Context-menu commands: the name is what the menu shows, so spaces and capitals are allowed; nothing else is.
    if (definition.description !== '') errors.push({ path: at(prefix, 'description'), message: 'Context menu commands cannot have a description' });
    if (definition.options.length) errors.push({ path: at(prefix, 'options'), message: 'Context menu commands cannot have options' });
  }
  return errors;
}

function requireValid(definition: ApplicationCommandDefinition) {
  const errors = definitionErrors(definition);
  if (errors.length) throw invalidForm(errors);
}

// ---------------------------------------------------------------------------------------------------------------
// The decider.

const sameKind = (a: { name: string; type: number }, b: { name: string; type: number }) => a.name === b.name && a.type === b.type;

function definitionOf(command: ApplicationCommandFields): ApplicationCommandDefinition {
  const { id: _id, application_id: _app, guild_id: _guild, version: _version, ...definition } = command;
  return definition;
}

/** A stable rendering for comparing definitions: keys sorted at every depth. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
}

const unchanged = (command: ApplicationCommandFields, definition: ApplicationCommandDefinition) =>
  canonicalJson(definitionOf(command)) === canonicalJson(definition);

const nextVersion = (version: string) => String(BigInt(version) + 1n);

function created(scope: CommandScope, id: string, definition: ApplicationCommandDefinition): ApplicationCommandCreated {
  return {
    type: 'ApplicationCommandCreated',
    data: { command: { id, application_id: scope.applicationId, guild_id: scope.guildId, ...definition, version: '1' } },
  };
}

/** The command redefined, its id and scope kept and its version one higher; nothing when the definition is the same. */
function updated(command: ApplicationCommandFields, definition: ApplicationCommandDefinition): ApplicationCommandUpdated[] {
  if (unchanged(command, definition)) return [];
  const { id, application_id, guild_id } = command;
  return [{ type: 'ApplicationCommandUpdated', data: { command: { id, application_id, guild_id, ...definition, version: nextVersion(command.version) } } }];
}

function requireCommand(state: ApplicationCommandsState, commandId: string): ApplicationCommandFields {
  const command = state.commands.find((c) => c.id === commandId);
  if (!command) throw unknownApplicationCommand();
  return command;
}

function overwrite(
  state: ApplicationCommandsState,
  command: Extract<ApplicationCommandCommand, { type: 'OverwriteApplicationCommands' }>,
): ApplicationCommandEvent[] {
  const { definitions, newIds, scope } = command;
  const errors: FieldError[] = [];
  const seen = new Map<string, number>();
  const seenIds = new Set<string>();
  definitions.forEach((definition, i) => {
    const key = `${definition.type}:${definition.name}`;
    if (seen.has(key)) errors.push({ path: `${i}.name`, message: `Application command names must be unique per type (same as entry ${seen.get(key)})` });
    seen.set(key, i);
    if (definition.id === undefined) return;
    const named = state.commands.find((c) => c.id === definition.id);
    if (!named) errors.push({ path: `${i}.id`, message: 'Unknown application command' });
    else if (named.type !== definition.type) errors.push({ path: `${i}.type`, message: 'The type of a command cannot be changed' });
    else if (seenIds.has(definition.id)) errors.push({ path: `${i}.id`, message: 'A command can be named only once' });
    seenIds.add(definition.id);
  });
  errors.push(...definitions.flatMap(({ id: _, ...definition }, i) => definitionErrors(definition, String(i))));
  if (errors.length) throw invalidForm(errors);
  for (const type of [ApplicationCommandType.CHAT_INPUT, ApplicationCommandType.USER, ApplicationCommandType.MESSAGE]) {
    if (definitions.filter((d) => d.type === type).length > MAX_COMMANDS_PER_TYPE[type]) throw maxCommandsReached(type);
  }

  // Each entry keeps the command it names by id, else the one of its name and type that no entry named by id.
  const claimed = new Set(definitions.flatMap((d) => (d.id ? [d.id] : [])));
  const kept = definitions.map((definition) =>
    definition.id ? requireCommand(state, definition.id) : state.commands.find((c) => !claimed.has(c.id) && sameKind(c, definition)),
  );
  const keptIds = new Set(kept.flatMap((c) => (c ? [c.id] : [])));
  const deleted: ApplicationCommandEvent[] = state.commands
    .filter((c) => !keptIds.has(c.id))
    .map((c) => ({ type: 'ApplicationCommandDeleted', data: { command: c } }));
  const written = definitions.flatMap(({ id: _, ...definition }, i): ApplicationCommandEvent[] => {
    const existing = kept[i];
    return existing ? updated(existing, definition) : [created(scope, newIds[i], definition)];
  });
  // Deletions first, so no moment of the stream holds two commands of one name.
  return [...deleted, ...written];
}

export const applicationCommandsDecider: Decider<ApplicationCommandsState, ApplicationCommandCommand, ApplicationCommandEvent> = {
  initialState: () => ({ commands: [] }),
  decide(command, state) {
    switch (command.type) {
      case 'UpsertApplicationCommand': {
        const { definition } = command;
        requireValid(definition);
        const existing = state.commands.find((c) => sameKind(c, definition));
        if (existing) return updated(existing, definition);
        if (state.commands.filter((c) => c.type === definition.type).length >= MAX_COMMANDS_PER_TYPE[definition.type])
          throw maxCommandsReached(definition.type);
        return [created(command.scope, command.id, definition)];
      }
      case 'UpdateApplicationCommand': {
        const existing = requireCommand(state, command.commandId);
        if (command.changes.type !== undefined && command.changes.type !== existing.type) {
          throw invalidForm([{ path: 'type', message: 'The type of a command cannot be changed' }]);
        }
        const definition = { ...definitionOf(existing), ...command.changes };
        requireValid(definition);
        if (state.commands.some((c) => c.id !== existing.id && sameKind(c, definition))) {
          throw invalidForm([{ path: 'name', message: 'An application command of this type with this name already exists' }]);
        }
        return updated(existing, definition);
      }
      case 'DeleteApplicationCommand':
        return [{ type: 'ApplicationCommandDeleted', data: { command: requireCommand(state, command.commandId) } }];
      case 'OverwriteApplicationCommands':
        return overwrite(state, command);
    }
  },
  evolve(state, event) {
    const { command } = event.data;
    switch (event.type) {
      case 'ApplicationCommandCreated':
        return { commands: [...state.commands, command] };
      case 'ApplicationCommandUpdated':
        return { commands: state.commands.map((c) => (c.id === command.id ? command : c)) };
      case 'ApplicationCommandDeleted':
        return { commands: state.commands.filter((c) => c.id !== command.id) };
    }
  },
};
