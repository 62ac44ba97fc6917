// A projection turns each event of the log into read-store writes. It is a pure function of the event (it never
// reads the store), so the same projection code feeds the embedded store and MongoDB, and a rebuild from the
// start of the log writes exactly what incremental processing wrote.
import type { RecordedEvent } from '../ports/eventStore.js';
import type { IndexSpec, WriteOp } from '../ports/readStore.js';

export interface Projection {
  name: string;
  /** Every collection the projection writes: what a rebuild empties. */
  collections: string[];
  indexes: IndexSpec[];
  /** Collections read by _id on nearly every request (authentication, message authors): where this projection runs, they are kept in memory. */
  cachedById?: string[];
  project(event: RecordedEvent): WriteOp[];
}

/** Narrows a recorded event to one of a domain's event types by name. */
export function is<Event extends { type: string; data: unknown }, T extends Event['type']>(
  event: RecordedEvent,
  type: T,
): event is RecordedEvent<Extract<Event, { type: T }>['data']> & { type: T } {
  return event.type === type;
}
