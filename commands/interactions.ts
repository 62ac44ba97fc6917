// Clicks on message components, and the steps of their delivery to the bot endpoint. A click is checked whole (the
// clicker sees the channel and the message, the component exists, is enabled and takes the values sent) before it is
// recorded; its delivery is the delivery worker's, which records each attempt and outcome here.
import { randomBytes } from 'node:crypto';
import {
  type AttemptResult,
  type Click,
  INTERACTION_TYPE_COMPONENT,
  INTERACTION_VERSION,
  type InteractionCommand,
  type InteractionPayload,
  type InteractionState,
  interactionDecider,
  resolveClick,
} from '../domain/interaction.js';
import { DomainError } from '../domain/errors.js';
import { MessageFlags, ephemeralAudience, messageDecider, requireMessage, unknownMessage } from '../domain/message.js';
import { webhookDecider } from '../domain/webhook.js';
import type { Clock } from '../ports/clock.js';
import { userById } from '../projections/users.queries.js';
import { type ActorMeta, type Uses, metadata } from './deps.js';
import { interactionAccess } from './access.js';
import { type CreatedInteraction, type InteractionDeps, messageApplication, resolveSelected, useComponent } from './commandInteractions.js';
import { interactionStream, messageStream, webhookStream } from './streams.js';

export interface ClickInput extends Click {
  channel_id: string;
  message_id: string;
}

/**
 * Records a click by the actor. On a message of an application (its bot's, or a response to one of its interactions)
 * the click is an interaction for that bot on the gateway (commands/commandInteractions.ts). Otherwise the delivery
 * goes to the interaction_url the posting webhook has now; a message of a person, or of a webhook without one, records
 * the click and delivers nothing.
 */
export async function clickComponent(deps: InteractionDeps, meta: ActorMeta, input: ClickInput): Promise<CreatedInteraction> {
  const access = await interactionAccess(deps, input.channel_id, meta.actorId);
  const message = requireMessage((await deps.commands.load(messageStream(input.message_id), messageDecider)).state, input.channel_id);
  // An ephemeral message exists only for those it is shown to.
  if (message.flags & MessageFlags.EPHEMERAL && !ephemeralAudience(message).includes(meta.actorId)) throw unknownMessage();
  const data = resolveClick(message.components, input);
  const resolved = await resolveSelected(deps, access, meta.actorId, message, data);
  const application = await messageApplication(deps, message);
  if (application) return useComponent(deps, meta, access, application, { ...data, ...(resolved ? { resolved } : {}), message });
  const webhook = message.webhook_id ? (await deps.commands.load(webhookStream(message.webhook_id), webhookDecider)).state : null;
  const deliveryUrl = webhook?.status === 'active' ? webhook.webhook!.interaction_url : null;
  const user = (await userById(deps.readStore, meta.actorId))!;
  const interaction: InteractionPayload = {
    id: deps.ids.next(),
    type: INTERACTION_TYPE_COMPONENT,
    token: randomBytes(16).toString('base64url'),
    version: INTERACTION_VERSION,
    channel_id: access.channelId,
    ...(access.guildId ? { guild_id: access.guildId } : {}),
    message_id: message.id,
    user: { id: user._id, username: user.username, discriminator: user.discriminator, avatar: user.avatar },
    data,
  };
  const command: InteractionCommand = { type: 'RecordClick', interaction, webhookId: message.webhook_id, deliveryUrl, at: deps.clock.now() };
  const { position } = await deps.commands.handle(interactionStream(interaction.id), interactionDecider, command, metadata(meta, deps.clock));
  await deps.settle(position);
  return { id: interaction.id, endpoint: null };
}

const isStale = (error: unknown) => error instanceof DomainError && error.code === 'DELIVERY_ATTEMPT_STALE';

/**
 * Claims attempt `attempt` of a queued delivery and returns the interaction as of the claim; null when the attempt was
 * already made (by this or another worker) or is not due.
 */
export async function startAttempt(deps: Uses<'commands' | 'clock'>, interactionId: string, attempt: number): Promise<InteractionState | null> {
  try {
    return (
      await deps.commands.handle(
        interactionStream(interactionId),
        interactionDecider,
        { type: 'StartAttempt', attempt, at: deps.clock.now() },
        deliveryMeta(deps.clock),
      )
    ).state;
  } catch (error) {
    if (isStale(error)) return null;
    throw error;
  }
}

/** Records how attempt `attempt` went; null when another worker already recorded it (as orphaned) and moved on. */
export async function recordAttempt(deps: Uses<'commands' | 'clock'>, interactionId: string, attempt: number, result: AttemptResult, retryDelayMs: number) {
  const command: InteractionCommand = { type: 'RecordAttempt', attempt, result, retryDelayMs, at: deps.clock.now() };
  try {
    return (await deps.commands.handle(interactionStream(interactionId), interactionDecider, command, deliveryMeta(deps.clock))).events;
  } catch (error) {
    if (isStale(error)) return null;
    throw error;
  }
}

/** Delivery steps are the service's own doing, not a request's. */
const deliveryMeta = (clock: Clock) => metadata({ actorId: null, reason: null }, clock);
