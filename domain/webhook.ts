// The webhook aggregate (stream webhook-{id}): an incoming webhook of a guild channel, its display name and avatar,
// and the bot endpoint that receives clicks on its messages. The token is a credential the service must be able to
// read back (it keys the interaction signatures), so events carry it sealed (encrypted) plus its SHA-256 for checks;
// it never appears in clear in the log. Permission checks need the guild and are the command layer's.
import type { Decider, DomainEvent } from './decider.js';
import { DomainError, notFound } from './errors.js';
import { type Change, applyChanges, diff } from './guildState.js';

/** The spec's webhook type: incoming webhooks only (1). */
export const WEBHOOK_TYPE_INCOMING = 1;
/** As the widely used API: at most 15 webhooks per channel. */
export const MAX_WEBHOOKS_PER_CHANNEL = 15;
/** Channel types a webhook may post into: text and announcement channels, and forum and media channels' posts. */
export const WEBHOOK_CHANNEL_TYPES = [0, 5, 15, 16];

export interface WebhookData {
  id: string;
  guild_id: string;
  channel_id: string;
  creator_id: string;
  name: string;
  avatar: string | null;
  interaction_url: string | null;
}

/** The token, sealed by the service's key, and its SHA-256 for comparing the URL's token. */
export type WebhookCredential = {
  sealedToken: string;
  tokenHash: string;
};

/** What a manager may change; the token routes may not move a webhook to another channel. */
export type WebhookSettings = Partial<Pick<WebhookData, 'name' | 'avatar' | 'channel_id' | 'interaction_url'>>;

export type WebhookCreated = DomainEvent<'WebhookCreated', { webhook: WebhookData } & WebhookCredential>;
/** `previousChannelId` is set when the webhook moved: both channels' webhook lists changed. */
export type WebhookUpdated = DomainEvent<
  'WebhookUpdated',
  { webhookId: string; guildId: string; channelId: string; previousChannelId: string | null; changes: Change[]; webhook: WebhookData }
>;
export type WebhookDeleted = DomainEvent<'WebhookDeleted', { webhook: WebhookData }>;
export type WebhookEvent = WebhookCreated | WebhookUpdated | WebhookDeleted;

export interface WebhookState {
  status: 'none' | 'active' | 'deleted';
  webhook: WebhookData | null;
  credential: WebhookCredential | null;
}

export type WebhookCommand =
  | { type: 'CreateWebhook'; webhook: WebhookData; credential: WebhookCredential }
  | { type: 'UpdateWebhook'; settings: WebhookSettings }
  | { type: 'DeleteWebhook' };

export const unknownWebhook = () => notFound('UNKNOWN_WEBHOOK', 'Unknown Webhook');

/** The webhook, unless it does not exist or was deleted (404 UNKNOWN_WEBHOOK). */
export function requireWebhook(state: WebhookState): WebhookData {
  if (state.status !== 'active') throw unknownWebhook();
  return state.webhook!;
}

export const webhookDecider: Decider<WebhookState, WebhookCommand, WebhookEvent> = {
  initialState: () => ({ status: 'none', webhook: null, credential: null }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateWebhook':
        if (state.status !== 'none') throw new DomainError('conflict', 'WEBHOOK_EXISTS', 'Webhook already exists');
        return [{ type: 'WebhookCreated', data: { webhook: command.webhook, ...command.credential } }];
      case 'UpdateWebhook': {
        const webhook = requireWebhook(state);
        const changes = diff(webhook, command.settings);
        if (!changes.length) return [];
        const after = applyChanges(webhook, changes);
        const previousChannelId = after.channel_id !== webhook.channel_id ? webhook.channel_id : null;
        return [
          {
            type: 'WebhookUpdated',
            data: { webhookId: webhook.id, guildId: webhook.guild_id, channelId: after.channel_id, previousChannelId, changes, webhook: after },
          },
        ];
      }
      case 'DeleteWebhook':
        return [{ type: 'WebhookDeleted', data: { webhook: requireWebhook(state) } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'WebhookCreated':
        return { status: 'active', webhook: event.data.webhook, credential: { sealedToken: event.data.sealedToken, tokenHash: event.data.tokenHash } };
      case 'WebhookUpdated':
        return { ...state, webhook: event.data.webhook };
      case 'WebhookDeleted':
        return { ...state, status: 'deleted' };
    }
  },
};
