// INTERACTION_CREATE: an interaction for a bot (a command invoked, a component of its messages used) goes to that
// bot's own sessions only, with the token it answers with, opened from its sealed form in the event. Clicks delivered
// to webhooks' interaction_url are the delivery worker's, and interactions of an application with an interactions
// endpoint are POSTed there (http/interactionEndpoint.ts), not sent on the gateway.
import { interactionSubjects } from '../../commands/commandInteractions.js';
import { botInteractionObject } from '../../presenters/interactions.js';
import { deriver, dispatch } from './deriver.js';

export const interactionDispatches = deriver({
  handles: ['InteractionCreated'],
  async derive(event, runtime) {
    const { interaction, sealedToken, delivery } = event.data;
    if (delivery === 'endpoint') return [];
    const subjects = await interactionSubjects(runtime, interaction);
    // The place or the invoker went away before the interaction reached the gateway: there is nothing left to answer.
    if (!subjects) return [];
    const parts = { token: runtime.secrets.open(sealedToken), origin: runtime.config.publicBaseUrl, ...subjects };
    return [dispatch('INTERACTION_CREATE', botInteractionObject(interaction, parts), { intent: null, audience: { users: [interaction.botUserId] } })];
  },
});
