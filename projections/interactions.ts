// Read model of interaction deliveries: each click with its delivery status and every attempt, for the webhook's
// managers to read, and the queue the delivery worker picks its due attempts from after a restart.
import type { WriteOp } from '../ports/readStore.js';
import { INTERACTIONS } from './collections.js';
import { projection } from './projection.js';

export interface DeliveryAttemptDoc {
  attempt: number;
  started_at: string;
  finished_at: string | null;
  status: number | null;
  error: string | null;
  outcome: 'delivered' | 'dropped' | 'failed' | null;
}

export interface InteractionDoc {
  /** The interaction id. */
  _id: string;
  webhook_id: string | null;
  guild_id: string | null;
  channel_id: string;
  message_id: string;
  user_id: string;
  custom_id: string;
  component_type: number;
  values: string[] | null;
  clicked_at: string;
  status: 'undelivered' | 'queued' | 'in_flight' | 'delivered' | 'dropped' | 'failed';
  next_attempt_at: string | null;
  attempts: DeliveryAttemptDoc[];
  /** Why a delivery was dropped without a status (the webhook went away, the address was refused). */
  reason: string | null;
  [key: string]: unknown;
}

const update = (id: string, set: Record<string, unknown>): WriteOp => ({ updateOne: { collection: INTERACTIONS, filter: { _id: id }, update: { $set: set } } });
/** The attempt's entry is the last of the list: attempts run one at a time. */
const finish = (attempt: number, fields: Partial<DeliveryAttemptDoc>) =>
  Object.fromEntries(Object.entries(fields).map(([key, value]) => [`attempts.${attempt - 1}.${key}`, value]));

export const interactionsProjection = projection({
  name: 'interactions',
  handles: [
    'InteractionClicked',
    'UserErased',
    'InteractionDeliveryAttempted',
    'InteractionDelivered',
    'InteractionDeliveryDropped',
    'InteractionDeliveryFailed',
  ],
  collections: [INTERACTIONS],
  indexes: [
    { collection: INTERACTIONS, keys: { status: 1, next_attempt_at: 1 } },
    { collection: INTERACTIONS, keys: { webhook_id: 1, _id: -1 } },
    { collection: INTERACTIONS, keys: { user_id: 1 } },
  ],
  project(e) {
    switch (e.type) {
      case 'InteractionClicked': {
        const { interaction, webhookId, deliveryUrl, clickedAt } = e.data;
        const doc: InteractionDoc = {
          _id: interaction.id,
          webhook_id: webhookId,
          guild_id: interaction.guild_id ?? null,
          channel_id: interaction.channel_id,
          message_id: interaction.message_id,
          user_id: interaction.user.id,
          custom_id: interaction.data.custom_id,
          component_type: interaction.data.component_type,
          values: interaction.data.values ?? null,
          clicked_at: clickedAt,
          status: deliveryUrl ? 'queued' : 'undelivered',
          next_attempt_at: deliveryUrl ? clickedAt : null,
          attempts: [],
          reason: null,
        };
        return [{ replaceOne: { collection: INTERACTIONS, filter: { _id: doc._id }, replacement: doc, upsert: true } }];
      }
      // What a deleted account chose in a menu was sealed with its key.
      case 'UserErased':
        return [{ updateMany: { collection: INTERACTIONS, filter: { user_id: e.data.userId }, update: { $set: { values: null } } } }];
      case 'InteractionDeliveryAttempted': {
        const { interactionId, attempt, startedAt } = e.data;
        const entry: DeliveryAttemptDoc = { attempt, started_at: startedAt, finished_at: null, status: null, error: null, outcome: null };
        return [
          {
            updateOne: {
              collection: INTERACTIONS,
              filter: { _id: interactionId },
              update: { $set: { status: 'in_flight', next_attempt_at: null }, $push: { attempts: entry } },
            },
          },
        ];
      }
      case 'InteractionDelivered': {
        const { interactionId: id, attempt, status, finishedAt } = e.data;
        return [update(id, { status: 'delivered', ...finish(attempt, { finished_at: finishedAt, status, outcome: 'delivered' }) })];
      }
      case 'InteractionDeliveryDropped': {
        const { interactionId: id, attempt, status, reason, finishedAt } = e.data;
        return [update(id, { status: 'dropped', reason, ...finish(attempt, { finished_at: finishedAt, status, outcome: 'dropped' }) })];
      }
      case 'InteractionDeliveryFailed': {
        const { interactionId: id, attempt, status, error, retryAt, finishedAt } = e.data;
        return [
          update(id, {
            status: retryAt ? 'queued' : 'failed',
            next_attempt_at: retryAt,
            ...finish(attempt, { finished_at: finishedAt, status, error, outcome: 'failed' }),
          }),
        ];
      }
    }
  },
});
