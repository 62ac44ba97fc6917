// Reads of the webhooks projection.
import type { ReadStore } from '../ports/readStore.js';
import { WEBHOOKS } from './collections.js';
import type { WebhookDoc } from './webhooks.js';

export const webhookById = (read: Pick<ReadStore, 'findOne'>, webhookId: string) => read.findOne<WebhookDoc>(WEBHOOKS, { _id: webhookId });

export const webhooksByIds = (read: Pick<ReadStore, 'find'>, webhookIds: string[]) => read.find<WebhookDoc>(WEBHOOKS, { _id: { $in: webhookIds } });

/** Whose webhooks a list shows: a channel's or a guild's. */
export type WebhookScope = { channel_id: string } | { guild_id: string };

/** The webhooks of a scope, in id order. */
export const webhooksOf = (read: Pick<ReadStore, 'find'>, of: WebhookScope) => read.find<WebhookDoc>(WEBHOOKS, of, { sort: { _id: 1 } });

export const webhookCountInChannel = (read: Pick<ReadStore, 'count'>, channelId: string) => read.count(WEBHOOKS, { channel_id: channelId });
