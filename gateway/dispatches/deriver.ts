// A dispatch deriver: the gateway's dispatches for the event types it declares (Emmett's canHandle), as projections
// declare theirs. The gateway projector hands it those events and no others.
import type { ParleyEventType } from '../../domain/events.js';
import type { RecordedEvent } from '../../ports/eventStore.js';
import type { Recorded } from '../../projections/projection.js';
import type { GatewayDeps } from '../deps.js';
import type { ContractedDataOfEach, Dispatch, Routing, Withheld } from '../dispatch.js';
import type { DataOfEach, DispatchEvent } from '../protocol.js';

/** Who this gateway node serves: a deriver that builds a dispatch per user builds it only for those who can receive it here. */
export interface Listeners {
  /** The users with a session in the guild on this node. */
  usersIn(guildId: string): ReadonlySet<string>;
}

export interface DispatchDeriver {
  handles: readonly string[];
  derive(event: RecordedEvent, runtime: GatewayDeps, listeners: Listeners): Promise<Dispatch[]>;
}

/** A deriver whose `derive` sees only the events named in `handles`, typed: its `switch` over them is checked whole. */
export function deriver<const T extends ParleyEventType>(spec: {
  handles: readonly T[];
  derive(event: Recorded<T>, runtime: GatewayDeps, listeners: Listeners): Promise<Dispatch[]>;
}): DispatchDeriver {
  return spec;
}

/**
 * A dispatch whose data is checked against its event's (a field the type lacks is a compile error) and against its
 * contract, where it has one (a field the contract requires, missing or of another type, is one); for a name chosen
 * at run time among several, against each of theirs. Its result does not infer T from where it goes (NoInfer): from a
 * `Dispatch[]`, that inference searches the union of every event and costs tsc minutes.
 */
export function dispatch<T extends DispatchEvent>(
  t: T,
  d: DataOfEach<T> & ContractedDataOfEach<T>,
  routing: Routing & { withoutContent?: Withheld<DataOfEach<NoInfer<T>>>; withoutPresences?: DataOfEach<NoInfer<T>> },
): NoInfer<Dispatch<T>> {
  return { t, d, ...routing };
}
