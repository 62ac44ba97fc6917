// Interactions for a bot on the gateway (stream interaction-{id}, the stream clicks delivered to webhooks also use): a
// member invoking one of an application's commands, or using a component of a message the application's bot posted.
// The interaction is created with a token (kept sealed, and as its SHA-256 for checks) that the bot answers with: its
// first response (a message, a deferred message, an update or a deferred update of the component's message) is
// recorded once, so a second is refused. Follow-ups and edits are message events of their own. The checks of an
// invocation against the command (where it may be used, by whom, with which options) are pure and live here too.
import { type ApplicationCommandOption, ApplicationCommandOptionType as OptionType, ApplicationCommandType } from './applicationCommand.js';
import type { Decider, DomainEvent } from './decider.js';
import { DomainError, type FieldError, badRequest, forbidden, invalidForm, notFound } from './errors.js';
import { type MessageFields, MessageFlags, MessageType, type MessageUser } from './message.js';
import { Permission, hasPermission } from './permissions.js';

export const InteractionType = { APPLICATION_COMMAND: 2, MESSAGE_COMPONENT: 3 } as const;
/** The responses this service takes (the widely used API's PONG, autocomplete results and modals aside). */
export const InteractionCallbackType = {
  CHANNEL_MESSAGE_WITH_SOURCE: 4,
  DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: 5,
  DEFERRED_UPDATE_MESSAGE: 6,
  UPDATE_MESSAGE: 7,
} as const;
export type InteractionCallbackType = (typeof InteractionCallbackType)[keyof typeof InteractionCallbackType];
/** Where an interaction happened: a guild, or a DM with the application's bot. */
export const InteractionContextType = { GUILD: 0, BOT_DM: 1 } as const;
/** As in the widely used API: the token answers responses, follow-ups and edits for 15 minutes. */
export const INTERACTION_TOKEN_TTL_MS = 15 * 60 * 1000;
/** The spec's upload limit for a file, as interactions announce it (attachment_size_limit). */
export const ATTACHMENT_SIZE_LIMIT = 25 * 1024 * 1024;
/** The flags a response may set: ephemeral, embeds suppressed, silent, Components V2. */
export const RESPONSE_FLAGS = MessageFlags.EPHEMERAL | MessageFlags.SUPPRESS_EMBEDS | MessageFlags.SUPPRESS_NOTIFICATIONS | MessageFlags.IS_COMPONENTS_V2;

/** An option of an invocation, as the bot receives it: a value, or (for a subcommand or group) the options under it. */
export interface InvokedOption {
  name: string;
  type: number;
  value?: string | number | boolean;
  options?: InvokedOption[];
}

/** An option as a client sends it; checked against the command before anything else reads it. */
export interface GivenOption {
  name: string;
  type?: number;
  value?: unknown;
  options?: GivenOption[];
}

/** An id an option names that the command layer must find (and resolve for the bot), with where to report it. */
export interface NamedEntity {
  kind: 'user' | 'channel' | 'role' | 'mentionable';
  id: string;
  path: string;
  /** CHANNEL options: the channel types the command accepts, when it restricts them. */
  channelTypes?: number[];
}

/** The command as the invocation names it, with its checked options and the ids its options resolved to. */
export interface InvokedCommand {
  id: string;
  name: string;
  type: number;
  /** The guild the command is registered in; null for a global command. */
  guild_id: string | null;
  options: InvokedOption[];
  resolved: ResolvedIds;
  /** USER and MESSAGE commands: the user or message the command was used on. */
  target_id?: string;
  /** MESSAGE commands: the target message as it was when the command was used. */
  targetMessage?: MessageFields;
}

/** The users, roles and channels an invocation's options or a select's values name. */
export interface ResolvedIds {
  users: string[];
  roles: string[];
  channels: string[];
}

/** The component used, and its message as it was when used. */
export interface UsedComponent {
  custom_id: string;
  component_type: number;
  values?: string[];
  /** User, role, mentionable and channel selects: what the values name. */
  resolved?: ResolvedIds;
  message: MessageFields;
}

/** Everything the bot's INTERACTION_CREATE is built from, the token aside. */
export interface BotInteraction {
  id: string;
  applicationId: string;
  botUserId: string;
  type: number;
  guildId: string | null;
  channelId: string;
  userId: string;
  command: InvokedCommand | null;
  component: UsedComponent | null;
  /** The invoker's permissions in the channel (guilds only), and the bot's there: decimal strings. */
  memberPermissions: string | null;
  appPermissions: string;
  locale: string;
  guildLocale: string | null;
  createdAt: string;
  expiresAt: string;
}

export type InteractionCreated = DomainEvent<'InteractionCreated', { interaction: BotInteraction; tokenHash: string; sealedToken: string }>;
/** `messageId` is the response's message (@original): a new one for 4 and 5, the component's message for 6 and 7. */
export type InteractionResponded = DomainEvent<
  'InteractionResponded',
  {
    interactionId: string;
    applicationId: string;
    guildId: string | null;
    channelId: string;
    responseType: InteractionCallbackType;
    messageId: string;
    respondedAt: string;
  }
>;
export type BotInteractionEvent = InteractionCreated | InteractionResponded;

export interface BotInteractionState {
  interaction: BotInteraction | null;
  tokenHash: string | null;
  response: { type: InteractionCallbackType; messageId: string } | null;
}

export type BotInteractionCommand =
  | { type: 'CreateInteraction'; interaction: BotInteraction; tokenHash: string; sealedToken: string }
  /** `messageId`: the new message of a response 4 or 5 (6 and 7 answer with the component's message). */
  | { type: 'Respond'; tokenHash: string; responseType: InteractionCallbackType; messageId: string | null; at: number };

export const unknownInteraction = () => notFound('UNKNOWN_INTERACTION', 'Unknown interaction');
export const unknownCommand = () => notFound('UNKNOWN_APPLICATION_COMMAND', 'Unknown application command');
export const invalidInteractionToken = () => new DomainError('unauthorized', 'INVALID_WEBHOOK_TOKEN', 'Invalid Webhook Token');

/** Compares two SHA-256 hex digests without stopping at the first difference. */
function sameDigest(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/**
 * The interaction a token opens for the follow-up and edit routes: its application's, with the token's digest, within
 * the 15 minutes. A wrong or expired token answers 401 INVALID_WEBHOOK_TOKEN, as the widely used API does.
 */
export function requireLiveToken(state: BotInteractionState, applicationId: string, tokenHash: string, at: number): BotInteraction {
  const interaction = state.interaction;
  if (!interaction || interaction.applicationId !== applicationId || !sameDigest(state.tokenHash!, tokenHash)) throw invalidInteractionToken();
  if (at > Date.parse(interaction.expiresAt)) throw invalidInteractionToken();
  return interaction;
}

const updatesMessage = (type: InteractionCallbackType) =>
  type === InteractionCallbackType.DEFERRED_UPDATE_MESSAGE || type === InteractionCallbackType.UPDATE_MESSAGE;

/**
 * The interaction a callback's token opens: it is known and not expired (else 404 UNKNOWN_INTERACTION, as the widely
 * used API answers) and the token is its own (else 401).
 */
export function requireCallbackToken(state: BotInteractionState, tokenHash: string, at: number): BotInteraction {
  const interaction = state.interaction;
  if (!interaction || at > Date.parse(interaction.expiresAt)) throw unknownInteraction();
  if (!sameDigest(state.tokenHash!, tokenHash)) throw invalidInteractionToken();
  return interaction;
}

/**
 * The interaction, if it may take this response now: its token opens it (requireCallbackToken), it has no response
 * yet (else 400 INTERACTION_ALREADY_ACKNOWLEDGED), and only a component interaction updates its message (types 6 and 7).
 */
export function assertMayRespond(state: BotInteractionState, tokenHash: string, responseType: InteractionCallbackType, at: number): BotInteraction {
  const interaction = requireCallbackToken(state, tokenHash, at);
  if (state.response) throw badRequest('INTERACTION_ALREADY_ACKNOWLEDGED', 'Interaction has already been acknowledged.');
  if (updatesMessage(responseType) && !interaction.component) {
    throw invalidForm([{ path: 'type', message: 'Only a component interaction can update its message (types 6 and 7)' }]);
  }
  return interaction;
}

function respond(command: Extract<BotInteractionCommand, { type: 'Respond' }>, state: BotInteractionState): BotInteractionEvent[] {
  const interaction = assertMayRespond(state, command.tokenHash, command.responseType, command.at);
  const messageId = updatesMessage(command.responseType) ? interaction.component!.message.id : command.messageId;
  if (!messageId) throw invalidForm([{ path: 'type', message: 'This response needs a message' }]);
  return [
    {
      type: 'InteractionResponded',
      data: {
        interactionId: interaction.id,
        applicationId: interaction.applicationId,
        guildId: interaction.guildId,
        channelId: interaction.channelId,
        responseType: command.responseType,
        messageId,
        respondedAt: new Date(command.at).toISOString(),
      },
    },
  ];
}

export const botInteractionDecider: Decider<BotInteractionState, BotInteractionCommand, BotInteractionEvent> = {
  initialState: () => ({ interaction: null, tokenHash: null, response: null }),

  decide(command, state) {
    switch (command.type) {
      case 'CreateInteraction':
        if (state.interaction) throw new DomainError('conflict', 'INTERACTION_EXISTS', 'Interaction already exists');
        return [{ type: 'InteractionCreated', data: { interaction: command.interaction, tokenHash: command.tokenHash, sealedToken: command.sealedToken } }];
      case 'Respond':
        return respond(command, state);
    }
  },

  // The stream of a click delivered to a webhook has other events: they leave this state as it is (no interaction).
  evolve(state, event) {
    if (event.type === 'InteractionCreated') return { interaction: event.data.interaction, tokenHash: event.data.tokenHash, response: null };
    if (event.type === 'InteractionResponded') return { ...state, response: { type: event.data.responseType, messageId: event.data.messageId } };
    return state;
  },
};

// ---------------------------------------------------------------------------------------------------------------
// Invocations checked against the command.

/** What the command layer knows of a command when it is invoked (the fields of the application commands read model). */
export interface CommandScope {
  application_id: string;
  guild_id: string | null;
  dm_permission: boolean;
  /** Interaction contexts (0 guild, 1 bot DM, 2 private channel); null: not restricted. */
  contexts: readonly number[] | null;
}

/**
 * A command of `applicationId` usable where it is invoked: in a guild its guild's commands and the global ones, in a
 * DM with the bot only global commands with dm_permission. Any other answers 404 UNKNOWN_APPLICATION_COMMAND.
 */
export function assertCommandAvailable(command: CommandScope, applicationId: string, guildId: string | null): void {
  const context = guildId ? InteractionContextType.GUILD : InteractionContextType.BOT_DM;
  const scoped = guildId ? command.guild_id === null || command.guild_id === guildId : command.guild_id === null && command.dm_permission;
  if (command.application_id !== applicationId || !scoped || (command.contexts && !command.contexts.includes(context))) throw unknownCommand();
}

/**
 * What a command takes besides its options: a USER or MESSAGE (context menu) command a target_id and no options, a
 * slash command no target.
 */
export function assertTargetFits(commandType: number, targetId: string | undefined, options: readonly unknown[] | undefined): void {
  const menu = commandType === ApplicationCommandType.USER || commandType === ApplicationCommandType.MESSAGE;
  const errors: FieldError[] = [];
  if (menu && targetId === undefined) errors.push({ path: 'data.target_id', message: 'This field is required' });
  if (!menu && targetId !== undefined) errors.push({ path: 'data.target_id', message: 'Only user and message commands take a target' });
  if (menu && options?.length) errors.push({ path: 'data.options', message: 'Context menu commands take no options' });
  if (errors.length) throw invalidForm(errors);
}

/**
 * Whether a member with `permissions` may use a command: USE_APPLICATION_COMMANDS, and every bit of its
 * default_member_permissions ("0": administrators only). The owner and administrators hold every bit.
 */
export function mayUseCommand(permissions: bigint, defaultMemberPermissions: string | null): boolean {
  if (!hasPermission(permissions, Permission.USE_APPLICATION_COMMANDS)) return false;
  if (defaultMemberPermissions === null) return true;
  const required = BigInt(defaultMemberPermissions);
  return required === 0n ? hasPermission(permissions, Permission.ADMINISTRATOR) : hasPermission(permissions, required);
}

/** mayUseCommand with the member's permissions in the channel, or 403 MISSING_PERMISSIONS saying which check failed. */
export function assertMayUseCommand(permissions: bigint, defaultMemberPermissions: string | null): void {
  if (!hasPermission(permissions, Permission.USE_APPLICATION_COMMANDS)) throw forbidden('MISSING_PERMISSIONS', 'Missing Permissions: USE_APPLICATION_COMMANDS');
  if (!mayUseCommand(permissions, defaultMemberPermissions))
    throw forbidden('MISSING_PERMISSIONS', 'Missing Permissions: this command needs permissions you do not have');
}

const SNOWFLAKE = /^\d{1,20}$/;
const NAMED: Partial<Record<number, NamedEntity['kind']>> = {
  [OptionType.USER]: 'user',
  [OptionType.CHANNEL]: 'channel',
  [OptionType.ROLE]: 'role',
  [OptionType.MENTIONABLE]: 'mentionable',
};
const isGroup = (option: ApplicationCommandOption) => option.type === OptionType.SUB_COMMAND || option.type === OptionType.SUB_COMMAND_GROUP;

/** Why `value` is not a valid value of the declared option, or null when it is. */
function valueProblem(declared: ApplicationCommandOption, value: unknown): string | null {
  switch (declared.type) {
    case OptionType.STRING: {
      if (typeof value !== 'string') return 'Must be a string';
      const length = [...value].length;
      if (declared.min_length !== undefined && length < declared.min_length) return `Must be ${declared.min_length} or more in length.`;
      if (declared.max_length !== undefined && length > declared.max_length) return `Must be ${declared.max_length} or fewer in length.`;
      break;
    }
    case OptionType.INTEGER:
    case OptionType.NUMBER: {
      const integer = declared.type === OptionType.INTEGER;
      if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isSafeInteger(value)))
        return integer ? 'Must be an integer' : 'Must be a number';
      if (declared.min_value !== undefined && value < declared.min_value) return `Must be at least ${declared.min_value}`;
      if (declared.max_value !== undefined && value > declared.max_value) return `Must be at most ${declared.max_value}`;
      break;
    }
    case OptionType.BOOLEAN:
      if (typeof value !== 'boolean') return 'Must be a boolean';
      break;
    default:
      if (typeof value !== 'string' || !SNOWFLAKE.test(value)) return 'Must be an id (a snowflake)';
  }
  if (declared.choices?.length && !declared.choices.some((choice) => choice.value === value)) return 'Must be one of the choices';
  return null;
}

interface CheckedOptions {
  options: InvokedOption[];
  /** The ids the options name, for the command layer to find. */
  named: NamedEntity[];
}

/**
 * Checks the options of an invocation against the command's declared options: a command with subcommands takes
 * exactly one of them (and, in a group, one of its subcommands); otherwise every option sent must be declared, once,
 * of its declared type, with a value within its choices and bounds, and every required option must be there. All the
 * problems are reported together as 400 INVALID_FORM_BODY with paths like data.options.0.value.
 */
export function checkCommandOptions(
  declared: readonly ApplicationCommandOption[],
  given: readonly GivenOption[] | undefined,
  path = 'data.options',
): CheckedOptions {
  const errors: FieldError[] = [];
  const checked = checkLevel(declared, given ?? [], path, errors);
  if (errors.length) throw invalidForm(errors);
  return checked;
}

function checkLevel(declared: readonly ApplicationCommandOption[], given: readonly GivenOption[], path: string, errors: FieldError[]): CheckedOptions {
  const result: CheckedOptions = { options: [], named: [] };
  if (declared.some(isGroup)) {
    if (given.length !== 1) {
      errors.push({ path, message: `Choose exactly one of: ${declared.map((o) => o.name).join(', ')}` });
      return result;
    }
    const [option] = given;
    const sub = declared.find((o) => o.name === option.name);
    if (!sub) errors.push({ path: `${path}.0.name`, message: 'Unknown subcommand' });
    else if (option.type !== undefined && option.type !== sub.type) errors.push({ path: `${path}.0.type`, message: `Must be ${sub.type}` });
    else if (option.value !== undefined) errors.push({ path: `${path}.0.value`, message: 'A subcommand takes options, not a value' });
    else {
      const inner = checkLevel(sub.options ?? [], option.options ?? [], `${path}.0.options`, errors);
      result.options.push({ name: sub.name, type: sub.type, options: inner.options });
      result.named.push(...inner.named);
    }
    return result;
  }
  const seen = new Set<string>();
  given.forEach((option, i) => {
    const at = `${path}.${i}`;
    const match = declared.find((o) => o.name === option.name);
    if (!match) return errors.push({ path: `${at}.name`, message: 'Unknown option' });
    if (seen.has(match.name)) return errors.push({ path: `${at}.name`, message: 'Given more than once' });
    seen.add(match.name);
    if (option.type !== undefined && option.type !== match.type) return errors.push({ path: `${at}.type`, message: `Must be ${match.type}` });
    if (option.options !== undefined) return errors.push({ path: `${at}.options`, message: 'Only subcommands take options' });
    const problem = option.value === undefined ? 'This field is required' : valueProblem(match, option.value);
    if (problem) return errors.push({ path: `${at}.value`, message: problem });
    const value = option.value as string | number | boolean;
    result.options.push({ name: match.name, type: match.type, value });
    const kind = NAMED[match.type];
    if (kind)
      result.named.push({ kind, id: value as string, path: `${at}.value`, ...(match.channel_types?.length ? { channelTypes: match.channel_types } : {}) });
  });
  for (const option of declared) {
    if (option.required && !seen.has(option.name)) errors.push({ path: `${path}.${option.name}`, message: `The required option "${option.name}" is missing` });
  }
  return result;
}

// ---------------------------------------------------------------------------------------------------------------
// What the messages of a response say of their interaction.

/** The authorizing integration: the guild the application is installed in, or "0" in a DM with its bot. */
export const integrationOwners = (interaction: Pick<BotInteraction, 'guildId'>) => ({ '0': interaction.guildId ?? '0' });

/**
 * The fields a response message gets from its interaction: its type, the application, interaction_metadata (with the
 * original response's id on follow-ups, the component's message on component interactions) and, for commands, the
 * older `interaction` summary; component responses reply to the component's message.
 */
export function responseFields(interaction: BotInteraction, invoker: MessageUser, originalResponseId: string | null) {
  const command = interaction.command;
  const name = command ? [command.name, ...subcommandPath(command.options)].join(' ') : undefined;
  const component = interaction.component;
  const fields: Required<Pick<MessageFields, 'type' | 'application_id' | 'interaction_metadata'>> &
    Partial<Pick<MessageFields, 'interaction' | 'message_reference'>> = {
    // As the widely used API types them: 20 answers a slash command, 19 (a reply to its message) a component.
    type: component ? MessageType.REPLY : MessageType.CHAT_INPUT_COMMAND,
    application_id: interaction.applicationId,
    interaction_metadata: {
      id: interaction.id,
      type: interaction.type,
      user: invoker,
      authorizing_integration_owners: integrationOwners(interaction),
      ...(command ? { name, command_type: command.type } : {}),
      ...(originalResponseId ? { original_response_message_id: originalResponseId } : {}),
      ...(component ? { interacted_message_id: component.message.id } : {}),
    },
  };
  if (command) fields.interaction = { id: interaction.id, type: interaction.type, name: name!, user: invoker };
  if (component) {
    fields.message_reference = {
      message_id: component.message.id,
      channel_id: interaction.channelId,
      ...(interaction.guildId ? { guild_id: interaction.guildId } : {}),
    };
  }
  return fields;
}

/** The subcommand group and subcommand an invocation chose. */
function subcommandPath(options: readonly InvokedOption[]): string[] {
  const [first] = options;
  return first?.options ? [first.name, ...subcommandPath(first.options)] : [];
}
