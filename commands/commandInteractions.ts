// Interactions for a bot on the gateway: a member invokes one of an application's commands (POST /interactions), or
// uses a component of a message the application's bot posted (POST /interactions/click, through clickComponent).
// Each is checked whole before it is recorded as InteractionCreated on its own stream, with a fresh token that the
// bot answers with (commands/interactionResponses.ts); the gateway derives the bot's INTERACTION_CREATE from the event.
import { randomBytes } from 'node:crypto';
import { applicationDecider } from '../domain/application.js';
import {
  type BotInteraction,
  type BotInteractionCommand,
  type BotInteractionState,
  type GivenOption,
  type GivenRow,
  INTERACTION_TOKEN_TTL_MS,
  InteractionType,
  type InvokedCommand,
  type NamedEntity,
  type ResolvedIds,
  type SubmittedModal,
  type UsedComponent,
  assertCommandAvailable,
  assertMaySubmitModal,
  assertMayUseCommand,
  assertTargetFits,
  botInteractionDecider,
  checkCommandOptions,
  checkModalSubmit,
  sourceMessage,
  unknownCommand,
} from '../domain/commandInteraction.js';
import { ApplicationCommandType } from '../domain/applicationCommand.js';
import { ComponentType, type EntitySelect, interactiveComponents } from '../domain/components.js';
import { type FieldError, forbidden, invalidForm, notFound } from '../domain/errors.js';
import { guildDecider } from '../domain/guild.js';
import { channelPermissions } from '../domain/guildState.js';
import { MessageFlags, type MessageFields, ephemeralAudience, messageDecider, requireMessage, unknownMessage } from '../domain/message.js';
import { Permission, requirePermission } from '../domain/permissions.js';
import { threadPermissionsOf } from '../domain/thread.js';
import { sha256 } from '../ports/secrets.js';
import { applicationCommandById } from '../projections/applicationCommands.queries.js';
import { dmChannelById } from '../projections/dms.queries.js';
import { threadById } from '../projections/threads.queries.js';
import { userById, usersByIds } from '../projections/users.queries.js';
import { DM_PERMISSIONS, type MessageChannelAccess, canViewChannel, interactionAccess, loadThread } from './access.js';
import { type ActorMeta, type Uses, metadata } from './deps.js';
import { applicationStream, commandInteractionStream, guildStream, interactionStream, messageStream } from './streams.js';

export type InteractionDeps = Uses<'commands' | 'readStore' | 'ids' | 'clock' | 'secrets' | 'settle'>;

/** An application and the bot user that receives its interactions. */
export interface ApplicationBot {
  applicationId: string;
  botUserId: string;
}

/** POST /interactions: the widely used API's application command invocation (type 2), or its autocomplete (type 4). */
export interface InvocationInput {
  application_id: string;
  guild_id?: string;
  channel_id: string;
  data: { id: string; name: string; type?: number; options?: GivenOption[]; target_id?: string };
  /** The client's own id for the invocation, carried back with what its user receives (a modal, choices, INTERACTION_SUCCESS or INTERACTION_FAILURE). */
  nonce?: string | number;
}

/** POST /interactions type 5: a modal submitted; `data.id` names the interaction that showed it. */
export interface ModalSubmitInput {
  application_id: string;
  guild_id?: string;
  channel_id: string;
  data: { id: string; custom_id: string; components: GivenRow[] };
  nonce?: string | number;
}

/**
 * A recorded interaction. With `endpoint`, the application takes its interactions at its interactions endpoint: the
 * caller delivers it there (with the token in clear) and the bot's answer is its response; otherwise its bot's gateway
 * sessions receive INTERACTION_CREATE.
 */
export interface CreatedInteraction {
  id: string;
  endpoint: { url: string; token: string; interaction: BotInteraction } | null;
}

const TOKEN_PREFIX = 'interaction:';

/** A new token: like the widely used API's, it names its interaction (so it opens its stream) and carries 256 random bits. */
function newInteractionToken(interactionId: string): string {
  return Buffer.from(`${TOKEN_PREFIX}${interactionId}:${randomBytes(32).toString('base64url')}`).toString('base64url');
}

/** The interaction a token names, or null for a token that names none (a webhook's own token, say). */
export function interactionIdOfToken(token: string): string | null {
  const match = /^interaction:(\d{1,20}):/.exec(Buffer.from(token, 'base64url').toString('latin1'));
  return match ? match[1] : null;
}

interface LoadedInteraction {
  state: BotInteractionState;
  /** The stream the interaction lives on, where its response is recorded. */
  streamId: string;
}

/**
 * The interaction on its own stream, or on the stream that clicks share, where interactions made before they had a
 * category of their own were recorded (the decider ignores a click's events there: such an id is no interaction).
 */
export async function loadInteraction(deps: Uses<'commands'>, interactionId: string): Promise<LoadedInteraction> {
  for (const streamId of [commandInteractionStream(interactionId), interactionStream(interactionId)]) {
    const { state } = await deps.commands.load(streamId, botInteractionDecider);
    if (state.interaction) return { state, streamId };
  }
  return { state: botInteractionDecider.initialState(), streamId: commandInteractionStream(interactionId) };
}

async function applicationBot(deps: Uses<'commands'>, applicationId: string): Promise<ApplicationBot> {
  const { state } = await deps.commands.load(applicationStream(applicationId), applicationDecider);
  if (!state.exists) throw unknownCommand();
  if (!state.botUserId) throw forbidden('MISSING_ACCESS', 'The application has no bot to receive its interactions');
  return { applicationId, botUserId: state.botUserId };
}

/**
 * The application a message's components answer to: the one whose interaction the message responds to, or the one
 * whose bot posted it. Null for messages of people and of webhooks (their clicks go to the webhook's interaction_url).
 */
export async function messageApplication(deps: Uses<'commands' | 'readStore'>, message: MessageFields): Promise<ApplicationBot | null> {
  if (message.application_id) return applicationBot(deps, message.application_id);
  if (message.webhook_id || !message.author.bot) return null;
  const author = await userById(deps.readStore, message.author.id);
  return author?.application_id ? applicationBot(deps, author.application_id) : null;
}

/**
 * The bot's permissions where the interaction happens; it must be there: a member of the guild, or a participant of
 * the DM (a command in a DM is used in a DM with the bot). 403 MISSING_ACCESS otherwise.
 */
function botPermissions(access: MessageChannelAccess, bot: ApplicationBot): bigint {
  if (access.guild) {
    if (!access.guild.members.has(bot.botUserId)) throw forbidden('MISSING_ACCESS', "The application's bot is not in this guild");
    if (access.thread) return threadPermissionsOf(access.guild, access.thread, bot.botUserId);
    return channelPermissions(access.guild, bot.botUserId, access.guild.channels.get(access.channelId)!);
  }
  if (!access.dm!.recipient_ids.includes(bot.botUserId)) throw forbidden('MISSING_ACCESS', "The application's bot is not in this DM");
  return DM_PERMISSIONS;
}

/** Whether a user is in the place: a member of the guild, or a participant of the DM. */
const isPresent = (access: MessageChannelAccess, userId: string) =>
  access.guild ? access.guild.members.has(userId) : access.dm!.recipient_ids.includes(userId);

/**
 * The users, roles and channels the options (or a select's values) name, each required to exist where the command is
 * used (channels also to be visible to the invoker and of an accepted type; with `presentOnly`, users to be in the
 * place, as a select offers only those); the problems are reported together at their paths.
 */
async function resolveNamed(
  deps: Uses<'readStore'>,
  access: MessageChannelAccess,
  invokerId: string,
  named: NamedEntity[],
  presentOnly = false,
): Promise<ResolvedIds> {
  const guild = access.guild;
  const userIds = named.filter((n) => n.kind === 'user' || n.kind === 'mentionable').map((n) => n.id);
  const known = new Set(userIds.length ? (await usersByIds(deps.readStore, userIds)).map((u) => u._id) : []);
  const users = presentOnly ? new Set([...known].filter((id) => isPresent(access, id))) : known;
  const resolved = { users: new Set<string>(), roles: new Set<string>(), channels: new Set<string>() };
  const errors: FieldError[] = [];
  for (const { kind, id, path, channelTypes } of named) {
    const isRole = guild?.roles.has(id) ?? false;
    if (kind === 'role' || (kind === 'mentionable' && isRole)) {
      if (isRole) resolved.roles.add(id);
      else errors.push({ path, message: 'Unknown role' });
    } else if (kind === 'user' || kind === 'mentionable') {
      if (users.has(id)) resolved.users.add(id);
      else errors.push({ path, message: kind === 'user' ? 'Unknown user' : 'Unknown user or role' });
    } else {
      const channel = guild?.channels.get(id);
      if (!channel || !canViewChannel(guild!, invokerId, id)) errors.push({ path, message: 'Unknown channel' });
      else if (channelTypes && !channelTypes.includes(channel.type)) errors.push({ path, message: `Must be a channel of type ${channelTypes.join(', ')}` });
      else resolved.channels.add(id);
    }
  }
  if (errors.length) throw invalidForm(errors);
  return { users: [...resolved.users], roles: [...resolved.roles], channels: [...resolved.channels] };
}

const SELECT_KINDS: Record<number, NamedEntity['kind']> = {
  [ComponentType.USER_SELECT]: 'user',
  [ComponentType.ROLE_SELECT]: 'role',
  [ComponentType.MENTIONABLE_SELECT]: 'mentionable',
  [ComponentType.CHANNEL_SELECT]: 'channel',
};

/**
 * What a user, role, mentionable or channel select's values name, each something the clicker can see where the
 * message is (a member of the guild or a participant of the DM, a role of the guild, a channel they see of the types
 * the select offers), else 400 at values.N; undefined for other components.
 */
export async function resolveSelected(
  deps: Uses<'readStore'>,
  access: MessageChannelAccess,
  clickerId: string,
  message: MessageFields,
  used: { custom_id: string; component_type: number; values?: string[] },
): Promise<ResolvedIds | undefined> {
  const kind = SELECT_KINDS[used.component_type];
  if (!kind) return undefined;
  const select = interactiveComponents(message.components).find((c) => 'custom_id' in c && c.custom_id === used.custom_id) as EntitySelect;
  const channelTypes = select.channel_types?.length ? select.channel_types : undefined;
  const named = (used.values ?? []).map((id, i): NamedEntity => ({ kind, id, path: `values.${i}`, ...(channelTypes ? { channelTypes } : {}) }));
  return resolveNamed(deps, access, clickerId, named, true);
}

/**
 * What a USER or MESSAGE command is used on: a user in the place (a member of the guild, a participant of the DM),
 * else 404 UNKNOWN_USER; or a message of the channel the invoker can read (READ_MESSAGE_HISTORY; an ephemeral one
 * only if shown to them), else 404 UNKNOWN_MESSAGE. A user target is resolved like a user option.
 */
async function commandTarget(
  deps: Uses<'commands' | 'readStore'>,
  access: MessageChannelAccess,
  invokerId: string,
  commandType: number,
  targetId: string,
  resolved: ResolvedIds,
): Promise<Pick<InvokedCommand, 'target_id' | 'targetMessage' | 'resolved'>> {
  if (commandType === ApplicationCommandType.USER) {
    const [user] = await usersByIds(deps.readStore, [targetId]);
    if (!user || !isPresent(access, targetId)) throw notFound('UNKNOWN_USER', 'Unknown User');
    return { target_id: targetId, resolved: { ...resolved, users: [...new Set([...resolved.users, targetId])] } };
  }
  requirePermission(access.permissions, Permission.READ_MESSAGE_HISTORY);
  const message = requireMessage((await deps.commands.load(messageStream(targetId), messageDecider)).state, access.channelId);
  if (message.flags & MessageFlags.EPHEMERAL && !ephemeralAudience(message).includes(invokerId)) throw unknownMessage();
  return { target_id: targetId, targetMessage: message, resolved };
}

/**
 * Records the interaction with a new token (sealed, and as its digest) for the bot to acknowledge within 3 seconds and
 * follow up within 15 minutes, delivered as the application takes them now (its interactions endpoint, or the gateway).
 */
async function createInteraction(
  deps: InteractionDeps,
  meta: ActorMeta,
  access: MessageChannelAccess,
  bot: ApplicationBot,
  appPermissions: bigint,
  what: Pick<BotInteraction, 'type' | 'command' | 'component' | 'modal' | 'nonce'>,
  id = deps.ids.next(),
): Promise<CreatedInteraction> {
  const invoker = (await userById(deps.readStore, meta.actorId))!;
  const token = newInteractionToken(id);
  const now = deps.clock.now();
  const interaction: BotInteraction = {
    id,
    ...bot,
    ...what,
    guildId: access.guildId,
    channelId: access.channelId,
    userId: meta.actorId,
    memberPermissions: access.guild ? access.permissions.toString() : null,
    appPermissions: appPermissions.toString(),
    locale: invoker.locale,
    guildLocale: access.guild?.settings.preferred_locale ?? null,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + INTERACTION_TOKEN_TTL_MS).toISOString(),
  };
  const endpointUrl = (await deps.commands.load(applicationStream(bot.applicationId), applicationDecider)).state.interactions_endpoint_url;
  const command: BotInteractionCommand = {
    type: 'CreateInteraction',
    interaction,
    tokenHash: sha256(token),
    sealedToken: deps.secrets.seal(token),
    delivery: endpointUrl ? 'endpoint' : 'gateway',
  };
  const { position } = await deps.commands.handle(commandInteractionStream(id), botInteractionDecider, command, metadata(meta, deps.clock));
  await deps.settle(position);
  return { id, endpoint: endpointUrl ? { url: endpointUrl, token, interaction } : null };
}

/**
 * What an interaction's object is built from beside the interaction, as things are now: the guild (members, roles,
 * channels) or the DM, the invoker and the users its options name. Null when the place or the invoker went away.
 */
export async function interactionSubjects(deps: Uses<'commands' | 'readStore'>, interaction: BotInteraction, at: number) {
  const loaded = interaction.guildId ? (await deps.commands.load(guildStream(interaction.guildId), guildDecider)).state : null;
  // The resolved members' permissions as at `at` (timeouts depend on the time).
  const guild = loaded && { ...loaded, at };
  const dm = guild ? null : await dmChannelById(deps.readStore, interaction.channelId);
  // A guild channel that is not the guild's own is a thread of it.
  const inThread = guild !== null && !guild.channels.has(interaction.channelId);
  const [thread, threadDoc] = inThread
    ? await Promise.all([loadThread(deps, interaction.channelId), threadById(deps.readStore, interaction.channelId)])
    : [null, null];
  const named = interaction.command?.resolved.users ?? interaction.component?.resolved?.users ?? [];
  const users = await usersByIds(deps.readStore, [interaction.userId, ...named]);
  const invoker = users.find((u) => u._id === interaction.userId);
  const placeGone = thread ? thread.status !== 'active' || !guild!.channels.has(thread.thread!.parent_id) : !guild?.channels.has(interaction.channelId);
  const gone = guild ? guild.status !== 'active' || placeGone || !guild.members.has(interaction.userId) : !dm;
  return !invoker || gone ? null : { invoker, guild, dm, thread: thread && { state: thread, doc: threadDoc }, users };
}

/** The nonce a client sent, as interactions keep it. */
const nonceOf = (nonce: string | number | undefined) => (nonce === undefined ? {} : { nonce: String(nonce) });

/**
 * A member invokes a command: the command exists and may be used in this channel (its guild's or a global one; in a
 * DM with the bot only global ones with dm_permission), the invoker sees the channel and holds USE_APPLICATION_COMMANDS
 * and the command's default_member_permissions, the application's bot is there, and the options are the command's.
 * An autocomplete (`mode` 'autocomplete') is checked the same, its options as typed so far (checkCommandOptions).
 */
export async function invokeCommand(
  deps: InteractionDeps,
  meta: ActorMeta,
  input: InvocationInput,
  mode: 'invoke' | 'autocomplete' = 'invoke',
): Promise<CreatedInteraction> {
  const access = await interactionAccess(deps, input.channel_id, meta.actorId);
  if (input.guild_id !== undefined && input.guild_id !== access.guildId) throw invalidForm([{ path: 'guild_id', message: 'Must be the guild of the channel' }]);
  const command = await applicationCommandById(deps.readStore, input.data.id);
  if (!command) throw unknownCommand();
  assertCommandAvailable(command, input.application_id, access.guildId);
  const mismatches: FieldError[] = [
    ...(input.data.name !== command.name ? [{ path: 'data.name', message: `Must be the command's name, ${command.name}` }] : []),
    ...(input.data.type !== undefined && input.data.type !== command.type
      ? [{ path: 'data.type', message: `Must be the command's type, ${command.type}` }]
      : []),
  ];
  if (mismatches.length) throw invalidForm(mismatches);
  assertTargetFits(command.type, input.data.target_id, input.data.options);
  const bot = await applicationBot(deps, input.application_id);
  const appPermissions = botPermissions(access, bot);
  if (access.guild) assertMayUseCommand(access.permissions, command.default_member_permissions);
  const { options, named } = checkCommandOptions(command.options, input.data.options, 'data.options', mode);
  const resolved = await resolveNamed(deps, access, meta.actorId, named);
  const target =
    input.data.target_id === undefined ? { resolved } : await commandTarget(deps, access, meta.actorId, command.type, input.data.target_id, resolved);
  const invoked: InvokedCommand = { id: command._id, name: command.name, type: command.type, guild_id: command.guild_id, options, ...target };
  const type = mode === 'autocomplete' ? InteractionType.APPLICATION_COMMAND_AUTOCOMPLETE : InteractionType.APPLICATION_COMMAND;
  return createInteraction(deps, meta, access, bot, appPermissions, { type, command: invoked, component: null, ...nonceOf(input.nonce) });
}

/**
 * The user a modal was shown to submits it (POST /interactions type 5): in the interaction's channel, to its
 * application, with the modal's custom_id and values that fit it (checkModalSubmit), once, within the interaction
 * token's life; the user must still be where it was shown as any interaction is (interactionAccess: a member who sees
 * the channel, not timed out) and the bot still be there. The modal is marked submitted on the showing interaction's
 * stream before the submit is recorded as an interaction of its own (MODAL_SUBMIT) for the bot.
 */
export async function submitModal(deps: InteractionDeps, meta: ActorMeta, input: ModalSubmitInput): Promise<CreatedInteraction> {
  const access = await interactionAccess(deps, input.channel_id, meta.actorId);
  const { state, streamId } = await loadInteraction(deps, input.data.id);
  const modal = assertMaySubmitModal(state, meta.actorId, deps.clock.now());
  const shown = state.interaction!;
  const mismatches: FieldError[] = [
    ...(input.application_id !== shown.applicationId ? [{ path: 'application_id', message: "Must be the application of the modal's interaction" }] : []),
    ...(input.channel_id !== shown.channelId ? [{ path: 'channel_id', message: "Must be the channel of the modal's interaction" }] : []),
    ...(input.guild_id !== undefined && input.guild_id !== shown.guildId
      ? [{ path: 'guild_id', message: "Must be the guild of the modal's interaction" }]
      : []),
    ...(input.data.custom_id !== modal.custom_id ? [{ path: 'data.custom_id', message: `Must be the modal's custom_id, ${modal.custom_id}` }] : []),
  ];
  if (mismatches.length) throw invalidForm(mismatches);
  const components = checkModalSubmit(modal, input.data.components);
  const bot = { applicationId: shown.applicationId, botUserId: shown.botUserId };
  const appPermissions = botPermissions(access, bot);
  const submitId = deps.ids.next();
  const submit = { type: 'SubmitModal' as const, userId: meta.actorId, submitId, rows: input.data.components, at: deps.clock.now() };
  await deps.commands.handle(streamId, botInteractionDecider, submit, metadata(meta, deps.clock));
  const submitted: SubmittedModal = { custom_id: modal.custom_id, components, shownBy: shown.id, message: sourceMessage(shown) };
  const what = { type: InteractionType.MODAL_SUBMIT, command: null, component: null, modal: submitted, ...nonceOf(input.nonce) };
  return createInteraction(deps, meta, access, bot, appPermissions, what, submitId);
}

/** A click on a component of a message of `bot`'s application, already checked against the message, for its bot. */
export async function useComponent(
  deps: InteractionDeps,
  meta: ActorMeta,
  access: MessageChannelAccess,
  bot: ApplicationBot,
  component: UsedComponent,
): Promise<CreatedInteraction> {
  return createInteraction(deps, meta, access, bot, botPermissions(access, bot), { type: InteractionType.MESSAGE_COMPONENT, command: null, component });
}
