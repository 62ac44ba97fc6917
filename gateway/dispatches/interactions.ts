// INTERACTION_CREATE: an interaction for a bot (a command invoked, a component of its messages used) goes to that
// bot's own sessions only, with the token it answers with, opened from its sealed form in the event. Clicks delivered
// to webhooks' interaction_url are the delivery worker's, and interactions of an application with an interactions
// endpoint are POSTed there (http/routes/interactions.ts), not sent on the gateway. The invoker's own sessions learn
// how it went, as the widely used API's clients do: INTERACTION_SUCCESS once the application acknowledged it,
// INTERACTION_FAILURE when it failed, each with the interaction's id and the nonce the invoker's client sent.
import { interactionSubjects } from '../../commands/commandInteractions.js';
import { botInteractionDecider } from '../../domain/commandInteraction.js';
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
      const d = { id: event.data.interactionId, ...withNonce(state.nonce) };
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
