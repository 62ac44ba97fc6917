// Guild channel objects, and the last_pin_timestamp they share with DM channels (which presenters/messages.ts shapes).
import type { ChannelDoc } from '../projections/channels.js';
import { apiTimestamp } from './timestamps.js';

/** A channel's last_pin_timestamp, once a pin has set it (null again after the last unpin). */
export const lastPinTimestamp = (doc: Record<string, unknown>) =>
  doc.last_pin_timestamp === undefined ? {} : { last_pin_timestamp: apiTimestamp(doc.last_pin_timestamp as string | null) };

/** A guild channel object: the fields of its type (the read model keeps only those) and its guild. */
export function channelObject(doc: ChannelDoc) {
  const { _id, ...fields } = doc;
  return { id: _id, ...fields, ...lastPinTimestamp(doc), flags: 0 };
}
