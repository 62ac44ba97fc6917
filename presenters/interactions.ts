// Interactions: component click records with their delivery attempts, for the webhook's managers to inspect; the
// interaction object a bot receives on the gateway; the answer of a response made ?with_response=true.
import { ATTACHMENT_SIZE_LIMIT, type BotInteraction, InteractionContextType, integrationOwners, sourceMessage } from '../domain/commandInteraction.js';
import { type ChannelData, type GuildState, channelPermissions } from '../domain/guildState.js';
import { INTERACTION_VERSION } from '../domain/interaction.js';
import { MessageFlags } from '../domain/message.js';
import type { DmChannelDoc } from '../projections/dms.js';
import type { InteractionDoc } from '../projections/interactions.js';
import type { ThreadDoc } from '../projections/threads.js';
import { type ThreadState, threadPermissionsOf } from '../domain/thread.js';
import { NEW_THREAD_COUNTS, threadDocObject, threadObject } from './threads.js';
import { type MessageDoc, messageDoc } from '../projections/messages.js';
import type { UserDoc } from '../projections/users.js';
import { channelObject } from './channels.js';
import type { ParleyInteraction, ParleyInteractionCallback, ParleyInteractionData, ParleyInteractionResolved } from './differences.js';
import { memberObject } from './members.js';
import { dmChannelObject, messageObject } from './messages.js';
import { roleObject } from './roles.js';
import { apiTimestamp } from './timestamps.js';
import { partialUser } from './users.js';

/** A click with its delivery attempts, as the webhook's managers read them. */
export function interactionObject({ _id, clicked_at, next_attempt_at, attempts, ...fields }: InteractionDoc) {
  return {
    id: _id,
    ...fields,
    clicked_at: apiTimestamp(clicked_at),
    next_attempt_at: apiTimestamp(next_attempt_at),
    attempts: attempts.map((attempt) => ({ ...attempt, started_at: apiTimestamp(attempt.started_at), finished_at: apiTimestamp(attempt.finished_at) })),
  };
}

/** What an INTERACTION_CREATE is built from beside its interaction: the token in clear and the objects it names. */
export interface InteractionParts {
  token: string;
  /** The public origin, for the component's message's attachment URLs. */
  origin: string;
  invoker: UserDoc;
  /** The guild as it is now (members, roles, channels); null in a DM. */
  guild: GuildState | null;
  /** The DM, in a DM. */
  dm: DmChannelDoc | null;
  /** The thread, in a thread: its state (who may do what there) and its read-model document (its counts) once projected. */
  thread?: { state: ThreadState; doc: ThreadDoc | null } | null;
  /** The users the options, the target or the select's values name. */
  users: UserDoc[];
}

/** A guild channel as interactions name it: the channel object and what the invoker may do in it. */
function interactionChannel(guild: GuildState, { id, ...channel }: ChannelData, permissions: bigint) {
  return { ...channelObject({ _id: id, guild_id: guild.id, ...channel }), permissions: permissions.toString() };
}

/** A user's permissions where the interaction happens: in its guild channel, or in its thread. */
function placePermissions(interaction: BotInteraction, parts: InteractionParts, userId: string): bigint {
  const guild = parts.guild!;
  if (parts.thread) return threadPermissionsOf(guild, parts.thread.state, userId);
  return channelPermissions(guild, userId, guild.channels.get(interaction.channelId)!);
}

/** The channel where the interaction happens, as the bot is shown it: with the invoker's permissions in it. */
function placeChannel(interaction: BotInteraction, parts: InteractionParts) {
  const { guild, thread } = parts;
  if (!guild) return dmChannelObject(parts.dm!, interaction.botUserId);
  const permissions = BigInt(interaction.memberPermissions!);
  if (!thread) return interactionChannel(guild, guild.channels.get(interaction.channelId)!, permissions);
  const object = thread.doc ? threadDocObject(thread.doc) : threadObject(thread.state.thread!, NEW_THREAD_COUNTS);
  return { ...object, permissions: permissions.toString() };
}

/**
 * The users, members, roles and channels a command's options (or target) or a select's values name, and a message
 * command's target message, keyed by id, as the widely used API resolves them.
 */
function resolvedObject(interaction: BotInteraction, parts: InteractionParts): { resolved?: ParleyInteractionResolved } {
  const { guild } = parts;
  const resolved = interaction.command?.resolved ?? interaction.component?.resolved;
  const target = interaction.command?.targetMessage;
  if (!resolved) return {};
  const users = parts.users.filter((u) => resolved.users.includes(u._id));
  const members = guild ? users.filter((u) => guild.members.has(u._id)) : [];
  const channel = (id: string) => guild!.channels.get(id)!;
  const entries = {
    users: users.map((u) => [u._id, partialUser(u)]),
    members: members.map((u) => {
      const { user: _user, deaf: _deaf, mute: _mute, ...member } = memberObject(guild!.members.get(u._id)!, u);
      return [u._id, { ...member, permissions: placePermissions(interaction, parts, u._id).toString() }];
    }),
    roles: resolved.roles.map((id) => [id, roleObject({ _id: id, guild_id: guild!.id, ...guild!.roles.get(id)! })]),
    channels: resolved.channels.map((id) => [id, interactionChannel(guild!, channel(id), channelPermissions(guild!, interaction.userId, channel(id)))]),
    messages: target ? [[target.id, messageObject(messageDoc(target), { origin: parts.origin })]] : [],
  };
  const nonEmpty = Object.entries(entries).filter(([, list]) => list.length);
  return nonEmpty.length ? { resolved: Object.fromEntries(nonEmpty.map(([key, list]) => [key, Object.fromEntries(list)])) } : {};
}

/** The command invoked or being autocompleted (with its options, target and what they name), the modal submitted, or the component used (with what its values name). */
function interactionData(interaction: BotInteraction, parts: InteractionParts): ParleyInteractionData {
  const { command, component, modal } = interaction;
  if (command) {
    const { resolved: _resolved, targetMessage: _target, guild_id, ...invoked } = command;
    return { ...invoked, ...(guild_id ? { guild_id } : {}), ...resolvedObject(interaction, parts) };
  }
  if (modal) return { custom_id: modal.custom_id, components: modal.components };
  const { message: _message, resolved: _resolved, ...used } = component!;
  return { ...used, ...resolvedObject(interaction, parts) };
}

/**
 * The interaction as its bot receives it in INTERACTION_CREATE: the widely used API's interaction object, with the
 * member (and its permissions in the channel) in guilds or the user in DMs, the channel, the component's message, and
 * the token the bot answers with.
 */
export function botInteractionObject(interaction: BotInteraction, parts: InteractionParts): ParleyInteraction {
  const { guild, invoker } = parts;
  const message = sourceMessage(interaction);
  const channel = placeChannel(interaction, parts);
  return {
    id: interaction.id,
    application_id: interaction.applicationId,
    type: interaction.type,
    data: interactionData(interaction, parts),
    ...(guild ? { guild_id: guild.id, guild: { id: guild.id, locale: guild.settings.preferred_locale, features: [] } } : {}),
    channel_id: interaction.channelId,
    channel,
    ...(guild
      ? { member: { ...memberObject(guild.members.get(invoker._id)!, invoker), permissions: interaction.memberPermissions! } }
      : { user: partialUser(invoker) }),
    ...(message ? { message: messageObject(messageDoc(message), { origin: parts.origin }) } : {}),
    token: parts.token,
    version: INTERACTION_VERSION,
    app_permissions: interaction.appPermissions,
    locale: interaction.locale,
    ...(interaction.guildLocale ? { guild_locale: interaction.guildLocale } : {}),
    entitlements: [],
    authorizing_integration_owners: integrationOwners(interaction),
    context: guild ? InteractionContextType.GUILD : InteractionContextType.BOT_DM,
    attachment_size_limit: ATTACHMENT_SIZE_LIMIT,
  };
}

/**
 * The answer of a response with ?with_response=true: the interaction callback (which message responded, whether it is
 * loading or ephemeral) and the resource it made or updated; a modal or choices made none, so name no message.
 */
export function interactionCallbackObject(
  interaction: BotInteraction,
  responseType: number,
  message: MessageDoc | null,
  origin: string,
): ParleyInteractionCallback {
  return {
    interaction: {
      id: interaction.id,
      type: interaction.type,
      ...(message
        ? {
            response_message_id: message._id,
            response_message_loading: (message.flags & MessageFlags.LOADING) !== 0,
            response_message_ephemeral: (message.flags & MessageFlags.EPHEMERAL) !== 0,
          }
        : {}),
    },
    resource: { type: responseType, ...(message ? { message: messageObject(message, { origin }) } : {}) },
  };
}
