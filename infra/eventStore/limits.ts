// How large an event the log may take: every event is published as one Kafka message, and EventStoreDB takes at most
// 1 MiB per append. Checked on the sealed event (what is stored and published), before anything is appended, so the
// request that tried gets a 413 and the bus never meets a message it cannot carry (which used to stop the relay on
// the same batch for good).
import { DomainError } from '../../domain/errors.js';
import type { NewEvent } from '../../ports/eventStore.js';

/**
 * An event's data and metadata as JSON, at most: under the 1,000,000 bytes of a Kafka batch (KAFKA_MAX_BATCH_BYTES'
 * floor) with room for the message's key, headers and envelope. The largest legitimate events measured
 * (test/infra/appendLimits.test.ts) stay below: a message of 2000 characters, 10 embeds of 6000 and 5 rows of buttons,
 * in 4-byte characters, is 23 KB sealed; an application command within the widely used API's 8000 characters,
 * localized in all 32 locales, 443 KB.
 */
export const MAX_EVENT_BYTES = 900 * 1024;

/** EventStoreDB's default MaxAppendSize: the events of one append together, data and metadata. */
export const MAX_APPEND_BYTES = 1024 * 1024;

export const eventBytes = (event: Pick<NewEvent, 'data' | 'metadata'>) =>
  Buffer.byteLength(JSON.stringify(event.data) ?? '') + Buffer.byteLength(JSON.stringify(event.metadata) ?? '');

const tooLarge = (what: string) => new DomainError('too_large', 'REQUEST_ENTITY_TOO_LARGE', what);

/**
 * Refuses an event whose data and metadata, as the embedded log serialized them for its row, are more than the bus
 * could carry: the strings are made anyway, and most are far too short to need their bytes counted (3 bytes a UTF-16
 * unit at most).
 */
export function assertSerializedFits(type: string, data: string, metadata: string): void {
  if ((data.length + metadata.length) * 3 <= MAX_EVENT_BYTES) return;
  const bytes = Buffer.byteLength(data) + Buffer.byteLength(metadata);
  if (bytes > MAX_EVENT_BYTES) throw tooLarge(`The request makes a ${type} of ${bytes} bytes; the largest event is ${MAX_EVENT_BYTES} bytes`);
}

/** Refuses, before anything is appended, an event the bus cannot carry, or an append the log would refuse. */
export function assertAppendFits(events: readonly NewEvent[], appendLimit: number | null): void {
  let total = 0;
  for (const event of events) {
    const bytes = eventBytes(event);
    if (bytes > MAX_EVENT_BYTES) throw tooLarge(`The request makes a ${event.type} of ${bytes} bytes; the largest event is ${MAX_EVENT_BYTES} bytes`);
    total += bytes;
  }
  if (appendLimit !== null && total > appendLimit)
    throw tooLarge(`The request makes ${events.length} events of ${total} bytes together; the log takes ${appendLimit} bytes at once`);
}
