// One event's dispatch loads each aggregate it needs once: deriving its dispatches (a message's members) and routing
// them (the channel's viewers) share the guild's and the thread's states. A cached load still asks the log for the
// stream's end, a query on the PostgreSQL log; the state loaded for an event is current for it, the projector taking
// events one at a time in order, and it is dropped with the event, so the next event loads the states after it.
import type { CommandHandler, Loaded } from '../commands/handle.js';
import type { Decider, DomainEvent } from '../domain/decider.js';
import type { GatewayDeps } from './deps.js';

/**
 * The runtime for one event's dispatch: its `commands` answer each stream's load (per decider) once, and are the
 * runtime's for everything else (dispatching only reads). A load that fails is not kept: a step run again after an
 * engine's outage loads again.
 */
export function loadingOncePerEvent(runtime: GatewayDeps): GatewayDeps {
  const loads = new Map<object, Map<string, Promise<Loaded<unknown>>>>();
  // The runtime's handler underneath (its prototype), with a load of its own in front.
  const commands: CommandHandler = Object.create(runtime.commands);
  commands.load = <State, Event extends DomainEvent>(streamId: string, decider: Pick<Decider<State, never, Event>, 'initialState' | 'evolve'>) => {
    const ofDecider = loads.get(decider) ?? new Map<string, Promise<Loaded<unknown>>>();
    loads.set(decider, ofDecider);
    const known = ofDecider.get(streamId);
    if (known) return known as Promise<Loaded<State>>;
    const loading = runtime.commands.load(streamId, decider);
    ofDecider.set(streamId, loading);
    loading.catch(() => {
      if (ofDecider.get(streamId) === loading) ofDecider.delete(streamId);
    });
    return loading;
  };
  return { ...runtime, commands };
}
