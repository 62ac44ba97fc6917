// INTERACTION_CREATE: an interaction for a bot (a command invoked, a component of its messages used) goes to that
// bot's own sessions only, with the token it answers with, opened from its sealed form in the event. Clicks delivered
// to webhooks' interaction_url are the delivery worker's, not the gateway's.
import { guildStream } from '../../commands/streams.js';
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
    const named = interaction.command?.resolved.users ?? interaction.component?.resolved?.users ?? [];
    const users = await usersByIds(runtime.readStore, [interaction.userId, ...named]);
    const invoker = users.find((u) => u._id === interaction.userId);
    // The place or the invoker went away before the interaction reached the gateway: there is nothing left to answer.
    const gone = guild ? guild.status !== 'active' || !guild.channels.has(interaction.channelId) || !guild.members.has(interaction.userId) : !dm;
    if (!invoker || gone) return [];
    const parts = { token: runtime.secrets.open(sealedToken), origin: runtime.config.publicBaseUrl, invoker, guild, dm, users };
    return [dispatch('INTERACTION_CREATE', botInteractionObject(interaction, parts), { intent: null, audience: { users: [interaction.botUserId] } })];
  },
});
