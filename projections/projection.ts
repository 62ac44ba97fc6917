// A projection turns each event of the log into read-store writes. It is a pure function of the event (it never
// reads the store), so the same projection code feeds the embedded store and MongoDB, and a rebuild from the
// start of the log writes exactly what incremental processing wrote.
import type { EventData, ParleyEventType } from '../domain/events.js';
import type { RecordedEvent } from '../ports/eventStore.js';
import type { IndexSpec, WriteOp } from '../ports/readStore.js';

export interface Projection {
  name: string;
  /** The event types it takes (Emmett's canHandle): the runner hands it these and no others. */
  handles: readonly string[];
  /** Every collection the projection writes: what a rebuild empties. */
  collections: string[];
  indexes: IndexSpec[];
  /** Collections read by _id on nearly every request (authentication, message authors): where this projection runs, they are kept in memory. */
  cachedById?: string[];
  project(event: RecordedEvent): WriteOp[];
}

/** A recorded event of one of `T`'s types, its data typed by the deciders that produce it: a `switch` on `type` narrows it. */
export type Recorded<T extends ParleyEventType> = T extends ParleyEventType ? RecordedEvent<EventData<T>> & { type: T } : never;

/**
 * A projection of the events named in `handles`: `project` sees only those, typed, so a `switch` over their types is
 * checked whole and a name no decider produces does not compile. The narrowing holds because the runners route by
 * `handles` (byEventType); test/specs/eventRouting.test.ts holds them to it.
 */
export function projection<const T extends ParleyEventType>(
  spec: Omit<Projection, 'handles' | 'project'> & { handles: readonly T[]; project(event: Recorded<T>): WriteOp[] },
): Projection {
  return spec;
}

/**
 * Each event type's takers, in the order given: built once, so an event costs one lookup and reaches only the
 * projections (or dispatch derivers) that declared it.
 */
export function byEventType<Taker>(takers: readonly Taker[], handles: (taker: Taker) => readonly string[]): ReadonlyMap<string, readonly Taker[]> {
  const index = new Map<string, Taker[]>();
  for (const taker of takers) {
    for (const type of new Set(handles(taker))) {
      const list = index.get(type);
      if (list) list.push(taker);
      else index.set(type, [taker]);
    }
  }
  return index;
}
