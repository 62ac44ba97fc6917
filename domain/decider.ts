// Deciders in the style of Emmett and EventStoreDB's samples: pure functions from a command and the state folded
// from a stream's events to the new events, and from a state and an event to the next state.
export interface DomainEvent<Type extends string = string, Data extends Record<string, unknown> = Record<string, unknown>> {
  type: Type;
  data: Data;
}

export interface Decider<State, Command, Event extends DomainEvent> {
  initialState: () => State;
  /**
   * Returns the events the command causes; throws a DomainError when the command is refused. `at` is when it is
   * decided (ms since the epoch, the clock port's time its events are stamped with), for rules that depend on time;
   * commands/handle.ts always gives it.
   */
  decide: (command: Command, state: State, at?: number) => Event[];
  evolve: (state: State, event: Event) => State;
}

export function fold<State, Event extends DomainEvent>(decider: Pick<Decider<State, never, Event>, 'initialState' | 'evolve'>, events: Event[]): State {
  return events.reduce(decider.evolve, decider.initialState());
}
