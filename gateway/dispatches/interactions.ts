// INTERACTION_CREATE: an interaction for a bot (a command invoked or autocompleted, a component of its messages used, a
// modal submitted) goes to that bot's own sessions only, with the token it answers with, opened from its sealed form in
// the event. Clicks delivered to webhooks' interaction_url are the delivery worker's, not the gateway's. What a bot
// answers for a user alone, a modal or autocomplete choices, goes to that user's sessions only, as the widely used
// API's client receives them (INTERACTION_MODAL_CREATE, APPLICATION_COMMAND_AUTOCOMPLETE_RESPONSE).
import { guildStream } from '../../commands/streams.js';
import { InteractionCallbackType } from '../../domain/commandInteraction.js';
import { guildDecider } from '../../domain/guild.js';
import { botInteractionObject } from '../../presenters/interactions.js';
import { dmChannelById } from '../../projections/dms.queries.js';
import { usersByIds } from '../../projections/users.queries.js';
import { deriver, dispatch } from './deriver.js';

export const interactionDispatches = deriver({
  handles: ['InteractionCreated'],
  async derive(event, runtime) {
    const { interaction, sealedToken } = event.data;
    const guild = interaction.guildId ? (await runtime.commands.load(guildStream(interaction.guildId), guildDecider)).state : null;
    const dm = guild ? null : await dmChannelById(runtime.readStore, interaction.channelId);
    const users = await usersByIds(runtime.readStore, [interaction.userId, ...(interaction.command?.resolved.users ?? [])]);
    const invoker = users.find((u) => u._id === interaction.userId);
    // The place or the invoker went away before the interaction reached the gateway: there is nothing left to answer.
    const gone = guild ? guild.status !== 'active' || !guild.channels.has(interaction.channelId) || !guild.members.has(interaction.userId) : !dm;
    if (!invoker || gone) return [];
    const parts = { token: runtime.secrets.open(sealedToken), origin: runtime.config.publicBaseUrl, invoker, guild, dm, users };
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
