// INTERACTION_CREATE: an interaction for a bot (a command invoked or autocompleted, a component of its messages used, a
// modal submitted) goes to that bot's own sessions only, with the token it answers with, opened from its sealed form in
// the event. Clicks delivered to webhooks' interaction_url are the delivery worker's, and interactions of an
// application with an interactions endpoint are POSTed there (http/routes/interactions.ts), not sent on the gateway.
// The invoker's own sessions learn how it went, as the widely used API's clients do: INTERACTION_SUCCESS once the
// application acknowledged it, INTERACTION_FAILURE when it failed, each with the interaction's id and the nonce the
// invoker's client sent; and what a bot answers for that user alone, a modal or autocomplete choices
// (INTERACTION_MODAL_CREATE, APPLICATION_COMMAND_AUTOCOMPLETE_RESPONSE).
import { interactionSubjects } from '../../commands/commandInteractions.js';
import { InteractionCallbackType, botInteractionDecider } from '../../domain/commandInteraction.js';
import { botInteractionObject } from '../../presenters/interactions.js';
import { deriver, dispatch } from './deriver.js';

const withNonce = (nonce: string | undefined) => (nonce !== undefined ? { nonce } : {});

export const interactionDispatches = deriver({
  handles: ['InteractionCreated', 'InteractionResponded', 'InteractionFailed'],
  async derive(event, runtime) {
    if (event.type === 'InteractionFailed') {
      const { interactionId: id, userId, reason, nonce } = event.data;
      return [dispatch('INTERACTION_FAILURE', { id, ...withNonce(nonce), reason }, { intent: null, audience: { users: [userId] } })];
    }
    if (event.type === 'InteractionResponded') {
      const { state } = await runtime.commands.load(event.streamId, botInteractionDecider);
      if (!state.interaction) return [];
      const d = { id: event.data.interactionId, ...withNonce(state.interaction.nonce) };
      return [dispatch('INTERACTION_SUCCESS', d, { intent: null, audience: { users: [state.interaction.userId] } })];
    }
    const { interaction, sealedToken, delivery } = event.data;
    if (delivery === 'endpoint') return [];
    // The resolved members' permissions as they were when the interaction was made (timeouts depend on the time).
    const subjects = await interactionSubjects(runtime, interaction, Date.parse(event.metadata.createdAt));
    // The place or the invoker went away before the interaction reached the gateway: there is nothing left to answer.
    if (!subjects) return [];
    const parts = { token: runtime.secrets.open(sealedToken), origin: runtime.config.publicBaseUrl, ...subjects };
    return [dispatch('INTERACTION_CREATE', botInteractionObject(interaction, parts), { intent: null, audience: { users: [interaction.botUserId] } })];
  },
});

export const interactionAnswerDispatches = deriver({
  handles: ['InteractionResponded'],
  async derive(event) {
    const { interactionId: id, applicationId: application_id, channelId: channel_id, guildId, userId, nonce, modal, choices } = event.data;
    if (!userId) return [];
    const routing = { intent: null, audience: { users: [userId] } };
    const given = nonce !== undefined ? { nonce } : {};
    if (event.data.responseType === InteractionCallbackType.MODAL && modal) {
      const d = { id, application_id, channel_id, ...(guildId ? { guild_id: guildId } : {}), ...modal, ...given };
      return [dispatch('INTERACTION_MODAL_CREATE', d, routing)];
    }
    if (event.data.responseType === InteractionCallbackType.APPLICATION_COMMAND_AUTOCOMPLETE_RESULT)
      return [dispatch('APPLICATION_COMMAND_AUTOCOMPLETE_RESPONSE', { id, application_id, choices: choices ?? [], ...given }, routing)];
    return [];
  },
});
