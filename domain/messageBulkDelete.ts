// Bulk deletes of a channel (stream channel-bulk-deletes-{id}). Each message is deleted on its own stream (a
// MessageDeleted marked bulk); this stream then records the one MessagesBulkDeleted the gateway announces as
// MESSAGE_DELETE_BULK. Moderation is rare, so the per-channel stream is never hot.
import type { Decider, DomainEvent } from './decider.js';
import { type FieldError, invalidForm } from './errors.js';
import { snowflakeTimestamp } from './snowflake.js';

export const BULK_DELETE_MIN = 2;
export const BULK_DELETE_MAX = 100;
export const BULK_DELETE_MAX_AGE_MS = 14 * 24 * 60 * 60 * 1000;

export type MessagesBulkDeleted = DomainEvent<'MessagesBulkDeleted', { channelId: string; guildId: string | null; messageIds: string[]; deletedBy: string }>;

export type RecordBulkDelete = { type: 'RecordBulkDelete'; channelId: string; guildId: string | null; messageIds: string[]; actorId: string };

/** The widely used API's rules: 2-100 distinct ids, none older than 14 days (ids of unknown messages count too). */
export function assertBulkDeletable(ids: readonly string[], now: number): void {
  if (ids.length < BULK_DELETE_MIN || ids.length > BULK_DELETE_MAX) {
    throw invalidForm([{ path: 'messages', message: `Must have between ${BULK_DELETE_MIN} and ${BULK_DELETE_MAX} message ids` }]);
  }
  const errors: FieldError[] = [];
  ids.forEach((id, i) => {
    if (ids.indexOf(id) !== i) errors.push({ path: `messages.${i}`, message: 'Duplicate message id' });
    else if (now - snowflakeTimestamp(id) > BULK_DELETE_MAX_AGE_MS)
      errors.push({ path: `messages.${i}`, message: 'Messages older than 14 days cannot be bulk deleted' });
  });
  if (errors.length) throw invalidForm(errors);
}

export const bulkDeleteDecider: Decider<null, RecordBulkDelete, MessagesBulkDeleted> = {
  initialState: () => null,
  decide: (command) =>
    command.messageIds.length
      ? [
          {
            type: 'MessagesBulkDeleted',
            data: { channelId: command.channelId, guildId: command.guildId, messageIds: command.messageIds, deletedBy: command.actorId },
          },
        ]
      : [],
  evolve: (state) => state,
};
