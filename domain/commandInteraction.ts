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

export const InteractionType = { APPLICATION_COMMAND: 2, MESSAGE_COMPONENT: 3, APPLICATION_COMMAND_AUTOCOMPLETE: 4, MODAL_SUBMIT: 5 } as const;
/** The responses this service takes (the widely used API's PONG aside: it answers only the endpoint's checks). */
export const InteractionCallbackType = {
  CHANNEL_MESSAGE_WITH_SOURCE: 4,
  DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: 5,
  DEFERRED_UPDATE_MESSAGE: 6,
  UPDATE_MESSAGE: 7,
  APPLICATION_COMMAND_AUTOCOMPLETE_RESULT: 8,
  MODAL: 9,
} as const;
export type InteractionCallbackType = (typeof InteractionCallbackType)[keyof typeof InteractionCallbackType];
/** Where an interaction happened: a guild, or a DM with the application's bot. */
export const InteractionContextType = { GUILD: 0, BOT_DM: 1 } as const;
/** As in the widely used API: the token answers responses, follow-ups and edits for 15 minutes. */
export const INTERACTION_TOKEN_TTL_MS = 15 * 60 * 1000;
/**
 * As in the widely used API: an interaction not acknowledged (answered or deferred) within 3 seconds fails for its
 * invoker, and a later initial response answers UNKNOWN_INTERACTION.
 */
export const ACKNOWLEDGE_WITHIN_MS = 3000;
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
  /** Autocomplete: the option the user is typing in. */
  focused?: boolean;
}

/** An option as a client sends it; checked against the command before anything else reads it. */
export interface GivenOption {
  name: string;
  type?: number;
  value?: unknown;
  options?: GivenOption[];
  focused?: boolean;
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

/** A text input of a modal, as the bot defines it (type 4; style 1 short, 2 paragraph). */
export interface TextInput {
  type: 4;
  custom_id: string;
  style: 1 | 2;
  label: string;
  min_length?: number;
  max_length?: number;
  /** As in the widely used API: true unless false is sent. */
  required?: boolean;
  value?: string;
  placeholder?: string;
}

/** A modal a bot shows (response type 9): 1 to 5 action rows of one text input each. */
export interface Modal {
  custom_id: string;
  title: string;
  components: { type: 1; components: [TextInput] }[];
}

/** A text input's value as the user submitted it, in the modal's rows. */
export interface SubmittedRow {
  type: 1;
  components: { type: 4; custom_id: string; value: string }[];
}

/** A modal submitted: its id, the values (every input of the modal, in its order), and where it came from. */
export interface SubmittedModal {
  custom_id: string;
  components: SubmittedRow[];
  /** The interaction that showed the modal. */
  shownBy: string;
  /** The component's message, when the modal answered a component interaction (the bot may then update it). */
  message: MessageFields | null;
}

/** An autocomplete choice, as the bot offers it (response type 8). */
export interface AutocompleteChoice {
  name: string;
  value: string | number;
  name_localizations?: Record<string, string> | null;
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
  /** The command invoked, or (autocomplete) being filled in. */
  command: InvokedCommand | null;
  component: UsedComponent | null;
  /** A modal submit's values (absent from interactions recorded before modals). */
  modal?: SubmittedModal | null;
  /** The nonce the user's client sent, given back with what its user receives (a modal, choices). */
  nonce?: string;
  /** The invoker's permissions in the channel (guilds only), and the bot's there: decimal strings. */
  memberPermissions: string | null;
  appPermissions: string;
  locale: string;
  guildLocale: string | null;
  createdAt: string;
  expiresAt: string;
}

/** How an interaction reaches its bot: INTERACTION_CREATE on the gateway (absent), or POSTed to its interactions endpoint. */
export type InteractionDelivery = 'gateway' | 'endpoint';
export type InteractionCreated = DomainEvent<
  'InteractionCreated',
  { interaction: BotInteraction; tokenHash: string; sealedToken: string; delivery?: 'endpoint' }
>;
/**
 * `messageId` is the response's message (@original): a new one for 4 and 5, the component's message for 6 and 7, none
 * for 8 and 9, whose modal or choices go to the invoking user (`userId`, with the nonce their client sent).
 */
export type InteractionResponded = DomainEvent<
  'InteractionResponded',
  {
    interactionId: string;
    applicationId: string;
    guildId: string | null;
    channelId: string;
    responseType: InteractionCallbackType;
    messageId: string | null;
    respondedAt: string;
    userId?: string;
    nonce?: string;
    modal?: Modal;
    choices?: AutocompleteChoice[];
  }
>;
/**
 * Why an interaction failed for its invoker: the endpoint did not answer in time, could not be reached, answered a
 * status other than 2xx, or answered something that is no response it could take; or, on the gateway, the bot did not
 * acknowledge it within 3 seconds.
 */
export type InteractionFailure = 'endpoint_timeout' | 'endpoint_unreachable' | 'endpoint_status' | 'endpoint_invalid_response' | 'not_acknowledged';
/** The interaction failed for its invoker; its token then takes no initial response (UNKNOWN_INTERACTION). */
export type InteractionFailed = DomainEvent<
  'InteractionFailed',
  { interactionId: string; applicationId: string; userId: string; channelId: string; reason: InteractionFailure; nonce?: string }
>;
/** The modal the interaction showed was submitted (once), as the interaction `submitId`. */
export type ModalSubmitted = DomainEvent<'ModalSubmitted', { interactionId: string; submitId: string; userId: string; submittedAt: string }>;
export type BotInteractionEvent = InteractionCreated | InteractionResponded | InteractionFailed | ModalSubmitted;

export interface BotInteractionState {
  interaction: BotInteraction | null;
  tokenHash: string | null;
  response: { type: InteractionCallbackType; messageId: string | null; modal?: Modal } | null;
  delivery: InteractionDelivery;
  failed: boolean;
  modalSubmitted: boolean;
}

/** What a response carries beside its type: the new message of 4 or 5 (6 and 7 answer with the component's), or a modal, or choices. */
export interface ResponseContent {
  messageId: string | null;
  modal?: Modal;
  choices?: AutocompleteChoice[];
}

export type BotInteractionCommand =
  | { type: 'CreateInteraction'; interaction: BotInteraction; tokenHash: string; sealedToken: string; delivery?: InteractionDelivery }
  /** A no-op once the interaction was acknowledged or had already failed: the acknowledgement won the race. */
  | { type: 'Fail'; reason: InteractionFailure }
  | ({ type: 'Respond'; tokenHash: string; responseType: InteractionCallbackType; at: number } & ResponseContent)
  /** The shown modal's user submits it, as the new interaction `submitId`, with `rows` as the user sent them. */
  | { type: 'SubmitModal'; userId: string; submitId: string; rows: GivenRow[]; at: number };

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
/** Responses 8 and 9 make no message: their choices or modal go to the invoking user. */
const showsUser = (type: InteractionCallbackType) =>
  type === InteractionCallbackType.APPLICATION_COMMAND_AUTOCOMPLETE_RESULT || type === InteractionCallbackType.MODAL;

/** The message responses 6 and 7 update: the component's, or for a modal submit the component's that showed the modal. */
export const sourceMessage = (interaction: BotInteraction): MessageFields | null => interaction.component?.message ?? interaction.modal?.message ?? null;

/**
 * Why the interaction does not take this response type, or null: autocomplete takes only its choices (8) and nothing
 * else takes choices; a modal (9) answers a command or a component, never a modal submit (as the widely used API,
 * 400 on `type`); only an interaction with a component's message updates it (6 and 7).
 */
function responseTypeProblem(interaction: BotInteraction, type: InteractionCallbackType): string | null {
  const { APPLICATION_COMMAND_AUTOCOMPLETE_RESULT: CHOICES, MODAL } = InteractionCallbackType;
  if (interaction.type === InteractionType.APPLICATION_COMMAND_AUTOCOMPLETE)
    return type === CHOICES ? null : 'An autocomplete interaction is answered only with its choices (type 8)';
  if (type === CHOICES) return 'Only an autocomplete interaction is answered with choices (type 8)';
  if (type === MODAL && interaction.type === InteractionType.MODAL_SUBMIT) return 'A modal submit cannot be answered with another modal';
  if (updatesMessage(type) && !sourceMessage(interaction)) return 'Only a component interaction can update its message (types 6 and 7)';
  return null;
}

/**
 * Whether the interaction can no longer take an initial response: it failed, or, on the gateway, it went unanswered
 * for 3 seconds. An endpoint's answer is bounded by its request's timeout instead, and a failure there is recorded.
 */
const pastAcknowledgement = (state: BotInteractionState, interaction: BotInteraction, at: number) =>
  state.failed || (!state.response && state.delivery === 'gateway' && at > Date.parse(interaction.createdAt) + ACKNOWLEDGE_WITHIN_MS);

/**
 * The interaction a callback's token opens: it is known, not expired and still open to a first response (else 404
 * UNKNOWN_INTERACTION, as the widely used API answers) and the token is its own (else 401).
 */
export function requireCallbackToken(state: BotInteractionState, tokenHash: string, at: number): BotInteraction {
  const interaction = state.interaction;
  if (!interaction || at > Date.parse(interaction.expiresAt) || pastAcknowledgement(state, interaction, at)) throw unknownInteraction();
  if (!sameDigest(state.tokenHash!, tokenHash)) throw invalidInteractionToken();
  return interaction;
}

/**
 * The interaction, if it may take this response now: its token opens it (requireCallbackToken), it has no response
 * yet (else 400 INTERACTION_ALREADY_ACKNOWLEDGED), and it takes responses of this type (responseTypeProblem).
 */
export function assertMayRespond(state: BotInteractionState, tokenHash: string, responseType: InteractionCallbackType, at: number): BotInteraction {
  const interaction = requireCallbackToken(state, tokenHash, at);
  if (state.response) throw badRequest('INTERACTION_ALREADY_ACKNOWLEDGED', 'Interaction has already been acknowledged.');
  const problem = responseTypeProblem(interaction, responseType);
  if (problem) throw invalidForm([{ path: 'type', message: problem }]);
  return interaction;
}

/** The widely used API's bound on a text input's length, and its default maximum. */
export const TEXT_INPUT_MAX_LENGTH = 4000;

/**
 * The rules of a modal its schema cannot state: text inputs' custom ids unique within it, min_length not above
 * max_length, a prefilled value within max_length. Paths under `data`, as the bot sent them.
 */
export function modalErrors(modal: Modal): FieldError[] {
  const errors: FieldError[] = [];
  const ids = new Set<string>();
  modal.components.forEach((row, i) => {
    const input = row.components[0];
    const at = `data.components.${i}.components.0`;
    if (ids.has(input.custom_id)) errors.push({ path: `${at}.custom_id`, message: 'Custom ids must be unique within a modal' });
    ids.add(input.custom_id);
    const max = input.max_length ?? TEXT_INPUT_MAX_LENGTH;
    if (input.min_length !== undefined && input.min_length > max) errors.push({ path: `${at}.min_length`, message: 'Must not be greater than max_length' });
    if (input.value !== undefined && [...input.value].length > max) errors.push({ path: `${at}.value`, message: `Must be ${max} or fewer in length.` });
  });
  return errors;
}

/** The option an autocomplete is for. */
const focusedOption = (options: readonly InvokedOption[]): InvokedOption | undefined =>
  options.reduce<InvokedOption | undefined>((found, option) => found ?? (option.focused ? option : focusedOption(option.options ?? [])), undefined);

/** Choices whose values are not of the focused option's type (a string, an integer, a number), at their paths. */
export function choiceErrors(interaction: BotInteraction, choices: readonly AutocompleteChoice[]): FieldError[] {
  const type = focusedOption(interaction.command?.options ?? [])?.type;
  const [fits, what] =
    type === OptionType.INTEGER
      ? [(v: unknown) => Number.isSafeInteger(v), 'an integer']
      : type === OptionType.NUMBER
        ? [(v: unknown) => typeof v === 'number', 'a number']
        : [(v: unknown) => typeof v === 'string', 'a string'];
  return choices.flatMap((choice, i) => (fits(choice.value) ? [] : [{ path: `data.choices.${i}.value`, message: `Must be ${what}, as the focused option` }]));
}

function respond(command: Extract<BotInteractionCommand, { type: 'Respond' }>, state: BotInteractionState): BotInteractionEvent[] {
  const { responseType, modal, choices } = command;
  const interaction = assertMayRespond(state, command.tokenHash, responseType, command.at);
  const shown = showsUser(responseType);
  const messageId = updatesMessage(responseType) ? sourceMessage(interaction)!.id : shown ? null : command.messageId;
  if (!messageId && !shown) throw invalidForm([{ path: 'type', message: 'This response needs a message' }]);
  if (responseType === InteractionCallbackType.MODAL) {
    if (!modal) throw invalidForm([{ path: 'data', message: 'A modal response needs its modal' }]);
    const errors = modalErrors(modal);
    if (errors.length) throw invalidForm(errors);
  }
  if (responseType === InteractionCallbackType.APPLICATION_COMMAND_AUTOCOMPLETE_RESULT) {
    const errors = choiceErrors(interaction, choices ?? []);
    if (errors.length) throw invalidForm(errors);
  }
  return [
    {
      type: 'InteractionResponded',
      data: {
        interactionId: interaction.id,
        applicationId: interaction.applicationId,
        guildId: interaction.guildId,
        channelId: interaction.channelId,
        responseType,
        messageId,
        respondedAt: new Date(command.at).toISOString(),
        ...(shown ? { userId: interaction.userId, ...(interaction.nonce !== undefined ? { nonce: interaction.nonce } : {}) } : {}),
        ...(responseType === InteractionCallbackType.MODAL ? { modal } : {}),
        ...(responseType === InteractionCallbackType.APPLICATION_COMMAND_AUTOCOMPLETE_RESULT ? { choices: choices ?? [] } : {}),
      },
    },
  ];
}

/** A row of a modal submit as the user's client sends it. */
export interface GivenRow {
  type?: number;
  components: { type?: number; custom_id: string; value: string }[];
}

/**
 * The modal the interaction showed, if `userId` may submit it at `at`: only the user it was shown to, within the
 * interaction token's life (else 404 UNKNOWN_INTERACTION, as for an interaction never shown to them), and only once.
 */
export function assertMaySubmitModal(state: BotInteractionState, userId: string, at: number): Modal {
  const interaction = state.interaction;
  const modal = state.response?.modal;
  if (!interaction || !modal || interaction.userId !== userId || at > Date.parse(interaction.expiresAt)) throw unknownInteraction();
  if (state.modalSubmitted) throw badRequest('INTERACTION_ALREADY_ACKNOWLEDGED', 'This modal was already submitted');
  return modal;
}

/**
 * The submitted values checked against the modal shown: every id one of its text inputs, once; each required one
 * (all but those with required false) present and not empty; lengths within min_length and max_length (an empty
 * optional value aside). All problems together at their paths (data.components.0.components.0.value); the values come
 * back as the modal's rows, in its order, an optional input not sent as "".
 */
export function checkModalSubmit(modal: Modal, given: readonly GivenRow[]): SubmittedRow[] {
  const inputs = modal.components.map((row) => row.components[0]);
  const values = new Map<string, string>();
  const errors: FieldError[] = [];
  given.forEach((row, i) =>
    row.components.forEach((component, j) => {
      const at = `data.components.${i}.components.${j}`;
      const input = inputs.find((candidate) => candidate.custom_id === component.custom_id);
      if (!input) return errors.push({ path: `${at}.custom_id`, message: 'Unknown component: not a text input of the modal shown' });
      if (values.has(input.custom_id)) return errors.push({ path: `${at}.custom_id`, message: 'Given more than once' });
      values.set(input.custom_id, component.value);
      const length = [...component.value].length;
      const max = input.max_length ?? TEXT_INPUT_MAX_LENGTH;
      if (length === 0 && input.required !== false) errors.push({ path: `${at}.value`, message: 'This field is required' });
      else if (length > 0 && input.min_length !== undefined && length < input.min_length)
        errors.push({ path: `${at}.value`, message: `Must be ${input.min_length} or more in length.` });
      else if (length > max) errors.push({ path: `${at}.value`, message: `Must be ${max} or fewer in length.` });
    }),
  );
  for (const input of inputs) {
    if (input.required !== false && !values.has(input.custom_id))
      errors.push({ path: 'data.components', message: `The required text input "${input.custom_id}" is missing` });
  }
  if (errors.length) throw invalidForm(errors);
  return inputs.map((input) => ({ type: 1, components: [{ type: 4, custom_id: input.custom_id, value: values.get(input.custom_id) ?? '' }] }));
}

export const botInteractionDecider: Decider<BotInteractionState, BotInteractionCommand, BotInteractionEvent> = {
  initialState: () => ({ interaction: null, tokenHash: null, response: null, delivery: 'gateway', failed: false, modalSubmitted: false }),

  decide(command, state) {
    switch (command.type) {
      case 'CreateInteraction':
        if (state.interaction) throw new DomainError('conflict', 'INTERACTION_EXISTS', 'Interaction already exists');
        return [
          {
            type: 'InteractionCreated',
            data: {
              interaction: command.interaction,
              tokenHash: command.tokenHash,
              sealedToken: command.sealedToken,
              ...(command.delivery === 'endpoint' ? { delivery: 'endpoint' as const } : {}),
            },
          },
        ];
      case 'Respond':
        return respond(command, state);
      case 'Fail': {
        const interaction = state.interaction;
        if (!interaction) throw unknownInteraction();
        if (state.response || state.failed) return [];
        const { id: interactionId, applicationId, userId, channelId, nonce } = interaction;
        return [{ type: 'InteractionFailed', data: { interactionId, applicationId, userId, channelId, reason: command.reason, ...(nonce ? { nonce } : {}) } }];
      }
      case 'SubmitModal': {
        const interaction = state.interaction!;
        checkModalSubmit(assertMaySubmitModal(state, command.userId, command.at), command.rows);
        const submittedAt = new Date(command.at).toISOString();
        return [{ type: 'ModalSubmitted', data: { interactionId: interaction.id, submitId: command.submitId, userId: command.userId, submittedAt } }];
      }
    }
  },

  // The stream of a click delivered to a webhook has other events: they leave this state as it is (no interaction).
  evolve(state, event) {
    switch (event.type) {
      case 'InteractionCreated': {
        const { interaction, tokenHash, delivery } = event.data;
        return { interaction, tokenHash, response: null, delivery: delivery ?? 'gateway', failed: false, modalSubmitted: false };
      }
      case 'InteractionResponded': {
        const { responseType: type, messageId, modal } = event.data;
        return { ...state, response: { type, messageId, ...(modal ? { modal } : {}) } };
      }
      case 'InteractionFailed':
        return { ...state, failed: true };
      case 'ModalSubmitted':
        return { ...state, modalSubmitted: true };
      default:
        return state;
    }
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

/** An invocation's options are complete; an autocomplete's are partial, one of them the focused one being typed. */
type OptionsMode = 'invoke' | 'autocomplete';

/** The widely used API's bound on what a user types in an option. */
const MAX_TYPED_LENGTH = 6000;

/**
 * Checks the options of an invocation against the command's declared options: a command with subcommands takes
 * exactly one of them (and, in a group, one of its subcommands); otherwise every option sent must be declared, once,
 * of its declared type, with a value within its choices and bounds, and every required option must be there. All the
 * problems are reported together as 400 INVALID_FORM_BODY with paths like data.options.0.value.
 *
 * An autocomplete (`mode` 'autocomplete') sends the options typed so far: required ones may be missing, and exactly one
 * is `focused`, an option declared with autocomplete whose value is the text typed so far (a string, for numbers too).
 */
export function checkCommandOptions(
  declared: readonly ApplicationCommandOption[],
  given: readonly GivenOption[] | undefined,
  path = 'data.options',
  mode: OptionsMode = 'invoke',
): CheckedOptions {
  const errors: FieldError[] = [];
  const checked = checkLevel(declared, given ?? [], path, errors, mode);
  if (mode === 'autocomplete' && !errors.length) {
    const focused = countFocused(checked.options);
    if (focused !== 1) errors.push({ path, message: `Exactly one option must be focused (${focused} are)` });
  }
  if (errors.length) throw invalidForm(errors);
  return checked;
}

const countFocused = (options: readonly InvokedOption[]): number =>
  options.reduce((n, option) => n + (option.focused ? 1 : 0) + countFocused(option.options ?? []), 0);

/** Why a focused option cannot be autocompleted with `value`, or null. */
function focusedProblem(declared: ApplicationCommandOption, value: unknown): string | null {
  if (!declared.autocomplete) return 'This option is not autocompleted';
  const typed = typeof value === 'number' && declared.type !== OptionType.STRING ? String(value) : value;
  if (typeof typed !== 'string') return 'Must be the text typed so far (a string)';
  if ([...typed].length > MAX_TYPED_LENGTH) return `Must be ${MAX_TYPED_LENGTH} or fewer in length.`;
  return null;
}

function checkLevel(
  declared: readonly ApplicationCommandOption[],
  given: readonly GivenOption[],
  path: string,
  errors: FieldError[],
  mode: OptionsMode,
): CheckedOptions {
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
    else if (option.focused) errors.push({ path: `${path}.0.focused`, message: 'A subcommand cannot be focused' });
    else {
      const inner = checkLevel(sub.options ?? [], option.options ?? [], `${path}.0.options`, errors, mode);
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
    if (option.focused) {
      if (mode === 'invoke') return errors.push({ path: `${at}.focused`, message: 'Only an autocomplete interaction has a focused option' });
      const problem = option.value === undefined ? 'This field is required' : focusedProblem(match, option.value);
      if (problem) return errors.push({ path: `${at}.value`, message: problem });
      return result.options.push({ name: match.name, type: match.type, value: option.value as string | number, focused: true });
    }
    const problem = option.value === undefined ? 'This field is required' : valueProblem(match, option.value);
    if (problem) return errors.push({ path: `${at}.value`, message: problem });
    const value = option.value as string | number | boolean;
    result.options.push({ name: match.name, type: match.type, value });
    const kind = NAMED[match.type];
    if (kind)
      result.named.push({ kind, id: value as string, path: `${at}.value`, ...(match.channel_types?.length ? { channelTypes: match.channel_types } : {}) });
  });
  if (mode === 'invoke') {
    for (const option of declared) {
      if (option.required && !seen.has(option.name))
        errors.push({ path: `${path}.${option.name}`, message: `The required option "${option.name}" is missing` });
    }
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
  const component = sourceMessage(interaction);
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
      ...(component ? { interacted_message_id: component.id } : {}),
    },
  };
  if (command) fields.interaction = { id: interaction.id, type: interaction.type, name: name!, user: invoker };
  if (component) {
    fields.message_reference = {
      message_id: component.id,
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
