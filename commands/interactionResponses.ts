// What a bot does with an interaction's token: its one initial response (POST /interactions/:id/:token/callback), then
// for 15 minutes follow-ups and the reading, editing and deleting of its response messages through the webhook routes
// under its application's id. Response messages are normal messages by the bot, posted as its application's webhook,
// naming the interaction and its invoker; they go where the interaction happened even when the bot cannot see the
// channel, as the widely used API's interaction webhooks do.
import {
  type AutocompleteChoice,
  type BotInteraction,
  type BotInteractionCommand,
  type BotInteractionState,
  InteractionCallbackType,
  type Modal,
  RESPONSE_FLAGS,
  assertMayRespond,
  botInteractionDecider,
  requireCallbackToken,
  requireLiveToken,
  responseFields,
  sourceMessage,
} from '../domain/commandInteraction.js';
import { notFound } from '../domain/errors.js';
import { type GuildState, channelPermissions, unknownChannel } from '../domain/guildState.js';
import { MessageFlags, type MessageState, unknownMessage } from '../domain/message.js';
import { Permission } from '../domain/permissions.js';
import { threadPermissionsOf } from '../domain/thread.js';
import type { Position } from '../ports/eventStore.js';
import { sha256 } from '../ports/secrets.js';
import type { MessageDoc } from '../projections/messages.js';
import { anyChannelById } from '../projections/channels.queries.js';
import { userById } from '../projections/users.queries.js';
import { DM_PERMISSIONS, type MessageChannelAccess, isDm, loadGuild, loadThread } from './access.js';
import { interactionIdOfToken, loadInteraction } from './commandInteractions.js';
import { type ActorMeta, type RequestMeta, type Uses, metadata } from './deps.js';
import { toMessageUser } from './dms.js';
import { deleteInChannel } from './messages/delete.js';
import { type EditDeps, editInChannel } from './messages/edit.js';
import type { MessageInput, Sender, UploadedFile } from './messages/input.js';
import { type Authorship, postMessage } from './messages/send.js';
import { loadMessage, messageDocOf } from './messages/state.js';

/** What responses may do where they are posted, as the widely used API's interaction webhooks: post, embed, attach, quote. */
const RESPONSE_PERMISSIONS =
  Permission.VIEW_CHANNEL |
  Permission.SEND_MESSAGES |
  Permission.EMBED_LINKS |
  Permission.ATTACH_FILES |
  Permission.READ_MESSAGE_HISTORY |
  Permission.USE_EXTERNAL_EMOJIS;

export interface ResponseInput {
  type: InteractionCallbackType;
  /** The message of a response 4 or 7; for 5 only its EPHEMERAL flag counts. */
  data?: MessageInput;
  /** The modal of a response 9. */
  modal?: Modal;
  /** The choices of a response 8. */
  choices?: AutocompleteChoice[];
}

/** What a response came to, for ?with_response=true: the interaction, the response's type and its message (none for 8 and 9). */
export interface Responded {
  interaction: BotInteraction;
  responseType: InteractionCallbackType;
  message: MessageDoc | null;
}

/** The bot acts through the token: its events name the bot. */
const asBot = (meta: RequestMeta, interaction: BotInteraction): ActorMeta => ({ ...meta, actorId: interaction.botUserId });
const botSender = (interaction: BotInteraction): Sender => ({ userId: interaction.botUserId, bot: true });

/**
 * Where the interaction's responses go: its channel, with what responses may do there (and @everyone when the bot may
 * mention it). UNKNOWN_CHANNEL when the channel (or its guild) is gone.
 */
async function responsePlace(deps: Uses<'commands' | 'readStore' | 'clock'>, interaction: BotInteraction): Promise<MessageChannelAccess> {
  const { channelId, guildId } = interaction;
  if (guildId) {
    const guild = await loadGuild(deps, guildId);
    const channel = guild.channels.get(channelId);
    if (!channel) return threadResponsePlace(deps, guild, interaction);
    const mentionEveryone = channelPermissions(guild, interaction.botUserId, channel) & Permission.MENTION_EVERYONE;
    return { channelId, guildId, type: channel.type, permissions: RESPONSE_PERMISSIONS | mentionEveryone, guild, dm: null };
  }
  const doc = await anyChannelById(deps.readStore, channelId);
  if (!isDm(doc)) throw unknownChannel();
  return { channelId, guildId: null, type: doc.type, permissions: DM_PERMISSIONS, guild: null, dm: doc };
}

/** responsePlace in a thread of the guild: the thread while it and its parent stand. */
async function threadResponsePlace(deps: Uses<'commands'>, guild: GuildState, interaction: BotInteraction): Promise<MessageChannelAccess> {
  const thread = await loadThread(deps, interaction.channelId);
  if (thread.status !== 'active' || thread.thread!.guild_id !== guild.id || !guild.channels.has(thread.thread!.parent_id)) throw unknownChannel();
  const mentionEveryone = threadPermissionsOf(guild, thread, interaction.botUserId) & Permission.MENTION_EVERYONE;
  const permissions = RESPONSE_PERMISSIONS | mentionEveryone;
  return { channelId: interaction.channelId, guildId: guild.id, type: thread.thread!.type, permissions, guild, dm: null, thread };
}

/** How a response message is made: by the bot, as its application's webhook, naming the interaction and its invoker. */
async function responseAuthorship(deps: Uses<'readStore'>, interaction: BotInteraction, originalResponseId: string | null): Promise<Authorship> {
  const [bot, invoker] = await Promise.all([userById(deps.readStore, interaction.botUserId), userById(deps.readStore, interaction.userId)]);
  return {
    author: toMessageUser(bot!),
    webhookId: interaction.applicationId,
    components: true,
    fields: responseFields(interaction, toMessageUser(invoker!), originalResponseId),
  };
}

/** A message of a response keeps only the flags a response may set. */
const responseMessage = (input: MessageInput | undefined, extraFlags = 0): MessageInput => ({
  ...input,
  flags: ((input?.flags ?? 0) & RESPONSE_FLAGS) | extraFlags,
});

/**
 * The interaction's initial response, checked (token, not yet answered, of a type the interaction takes) before any
 * message is: 4 posts the response message, 5 posts it loading (filled by the first edit or follow-up), 6 and 7 answer
 * with the component's message, which 7 edits at once. The response is recorded on the interaction's stream once the
 * message is checked whole and before it is stored, so a second response, even a concurrent one, posts nothing.
 */
export async function respondToInteraction(
  deps: EditDeps,
  meta: RequestMeta,
  interactionId: string,
  token: string,
  input: ResponseInput,
  files: UploadedFile[],
): Promise<Responded> {
  const { state, streamId } = await loadInteraction(deps, interactionId);
  const tokenHash = sha256(token);
  const interaction = assertMayRespond(state, tokenHash, input.type, deps.clock.now());
  const bot = asBot(meta, interaction);
  let claimed: Position | null = null;
  const claim = async (messageId: string | null) => {
    const { modal, choices } = input;
    const command: BotInteractionCommand = { type: 'Respond', tokenHash, responseType: input.type, messageId, modal, choices, at: deps.clock.now() };
    claimed = (await deps.commands.handle(streamId, botInteractionDecider, command, metadata(bot, deps.clock))).position;
  };
  if (input.type === InteractionCallbackType.MODAL || input.type === InteractionCallbackType.APPLICATION_COMMAND_AUTOCOMPLETE_RESULT) {
    // No message: the gateway hands the modal or the choices to the invoking user's sessions (gateway/dispatches/interactions.ts).
    await claim(null);
    await deps.settle(claimed);
    return { interaction, responseType: input.type, message: null };
  }
  const access = await responsePlace(deps, interaction);
  const sourceId = sourceMessage(interaction)?.id;
  let message: MessageDoc;
  switch (input.type) {
    case InteractionCallbackType.CHANNEL_MESSAGE_WITH_SOURCE:
    case InteractionCallbackType.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: {
      const deferred = input.type === InteractionCallbackType.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE;
      const by = { ...(await responseAuthorship(deps, interaction, null)), beforeAppend: (m: { id: string }) => claim(m.id) };
      const send = deferred ? { content: '', flags: ((input.data?.flags ?? 0) & MessageFlags.EPHEMERAL) | MessageFlags.LOADING } : responseMessage(input.data);
      message = await postMessage(deps, bot, access, send, deferred ? [] : files, by);
      break;
    }
    case InteractionCallbackType.UPDATE_MESSAGE:
      message = await editInChannel(deps, bot, access, sourceId!, input.data ?? {}, files, botSender(interaction), () => claim(null));
      break;
    case InteractionCallbackType.DEFERRED_UPDATE_MESSAGE:
      await claim(null);
      message = await messageDocOf(deps, await loadMessage(deps, sourceId!));
      break;
  }
  // The message's own write was settled; the response's, appended before it, is then too (unless no message changed).
  await deps.settle(claimed);
  return { interaction, responseType: input.type, message };
}

/**
 * Checks a callback's interaction and token (404 UNKNOWN_INTERACTION, 401) before the route reads its body, so a
 * stranger's upload is never parsed; respondToInteraction checks them again with the rest.
 */
export async function checkCallbackToken(deps: Uses<'commands' | 'clock'>, interactionId: string, token: string): Promise<void> {
  requireCallbackToken((await loadInteraction(deps, interactionId)).state, sha256(token), deps.clock.now());
}

/** An interaction its token opens on the webhook routes. */
export interface OpenedInteraction {
  interaction: BotInteraction;
  state: BotInteractionState;
}

/**
 * The interaction `token` opens under the webhook routes of `applicationId` (the application's id, or its bot user's
 * for a bot made before the two were one); null when the token names no interaction of that application (a real
 * webhook's token: those routes answer it). A wrong or expired token answers 401.
 */
export async function interactionByToken(deps: Uses<'commands' | 'clock'>, applicationId: string, token: string): Promise<OpenedInteraction | null> {
  const interactionId = interactionIdOfToken(token);
  if (!interactionId) return null;
  const { state } = await loadInteraction(deps, interactionId);
  const interaction = state.interaction;
  if (!interaction || (applicationId !== interaction.applicationId && applicationId !== interaction.botUserId)) return null;
  return { interaction: requireLiveToken(state, interaction.applicationId, sha256(token), deps.clock.now()), state };
}

/**
 * The message `ref` names among the interaction's: @original (its response's message), a follow-up of it, or, for a
 * component interaction, the component's message when the application's interactions made it (the widely used API's
 * getting-started app deletes the message whose button was pressed with the click's token). A message of anything
 * else, another interaction's included, or @original before the interaction was answered, is UNKNOWN_MESSAGE.
 */
async function responseMessageOf(deps: Uses<'commands'>, opened: OpenedInteraction, ref: string): Promise<MessageState> {
  const { interaction, state } = opened;
  const messageId = ref === '@original' ? state.response?.messageId : ref;
  if (!messageId) throw unknownMessage();
  const loaded = await loadMessage(deps, messageId);
  const message = loaded.status === 'active' ? loaded.message! : null;
  const componentMessage = interaction.component?.message.id === messageId && message?.application_id === interaction.applicationId;
  const ours =
    message &&
    message.channel_id === interaction.channelId &&
    (messageId === state.response?.messageId || message.interaction_metadata?.id === interaction.id || componentMessage);
  if (!ours) throw unknownMessage();
  return loaded;
}

export async function getResponseMessage(deps: Uses<'commands' | 'readStore'>, opened: OpenedInteraction, ref: string): Promise<MessageDoc> {
  return messageDocOf(deps, await responseMessageOf(deps, opened, ref));
}

export async function editResponseMessage(
  deps: EditDeps,
  meta: RequestMeta,
  opened: OpenedInteraction,
  ref: string,
  input: MessageInput,
  files: UploadedFile[],
): Promise<MessageDoc> {
  const { interaction } = opened;
  const message = (await responseMessageOf(deps, opened, ref)).message!;
  return editInChannel(deps, asBot(meta, interaction), await responsePlace(deps, interaction), message.id, input, files, botSender(interaction));
}

export async function deleteResponseMessage(deps: EditDeps, meta: RequestMeta, opened: OpenedInteraction, ref: string): Promise<void> {
  const { interaction } = opened;
  const message = (await responseMessageOf(deps, opened, ref)).message!;
  await deleteInChannel(deps, asBot(meta, interaction), await responsePlace(deps, interaction), message.id);
}

/**
 * A follow-up message, once the interaction was answered. As in the widely used API, the first follow-up of a deferred
 * response fills that response (keeping its ephemerality) instead of posting another message.
 */
export async function sendFollowUp(
  deps: EditDeps,
  meta: RequestMeta,
  opened: OpenedInteraction,
  input: MessageInput,
  files: UploadedFile[],
): Promise<MessageDoc> {
  const { interaction, state } = opened;
  const response = state.response;
  if (!response) throw notFound('UNKNOWN_WEBHOOK', 'Unknown Webhook: answer the interaction before following it up');
  // A modal or choices made no message: the modal's submit is the interaction to answer.
  if (!response.messageId) throw notFound('UNKNOWN_WEBHOOK', 'Unknown Webhook: an interaction answered with a modal or choices has no messages');
  const access = await responsePlace(deps, interaction);
  const bot = asBot(meta, interaction);
  const original = await loadMessage(deps, response.messageId);
  if (
    response.type === InteractionCallbackType.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE &&
    original.status === 'active' &&
    original.message!.flags & MessageFlags.LOADING
  ) {
    // The fill keeps the response's ephemerality; of its own flags only Components V2 counts.
    const fill = { ...input, flags: input.flags === undefined ? undefined : input.flags & MessageFlags.IS_COMPONENTS_V2 };
    return editInChannel(deps, bot, access, response.messageId, fill, files, botSender(interaction));
  }
  return postMessage(deps, bot, access, responseMessage(input), files, await responseAuthorship(deps, interaction, response.messageId));
}
