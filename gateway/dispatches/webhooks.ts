// WEBHOOKS_UPDATE: a channel's webhooks changed (created, changed, moved or deleted). As in the widely used API it
// carries only the guild and channel; clients fetch the list. Sent to those who can see the channel, with the
// GUILD_WEBHOOKS intent.
import type { Dispatch } from '../dispatch.js';
import { deriver, dispatch } from './deriver.js';
import { Intent } from '../protocol.js';

const webhooksUpdate = (guildId: string, channelId: string): Dispatch =>
  dispatch('WEBHOOKS_UPDATE', { guild_id: guildId, channel_id: channelId }, { intent: Intent.GUILD_WEBHOOKS, audience: { guildId, channelId } });

export const webhookDispatches = deriver({
  handles: ['WebhookCreated', 'WebhookDeleted', 'WebhookUpdated'],
  async derive(event) {
    switch (event.type) {
      case 'WebhookCreated':
      case 'WebhookDeleted':
        return [webhooksUpdate(event.data.webhook.guild_id, event.data.webhook.channel_id)];
      case 'WebhookUpdated': {
        const { guildId, channelId, previousChannelId } = event.data;
        return [webhooksUpdate(guildId, channelId), ...(previousChannelId ? [webhooksUpdate(guildId, previousChannelId)] : [])];
      }
    }
  },
});
