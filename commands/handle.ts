// Runs a command against one stream: fold the stream's events into state, decide, append with the revision the
// decision was made on. A concurrent writer makes the append fail with a wrong expected version; the command is then
// decided again on the fresh state. Folded states are cached per stream, so a load reads only the events since.
import { LRUCache } from 'lru-cache';
import type { Decider, DomainEvent } from '../domain/decider.js';
import { type EventMetadata, type EventStore, type Position, WrongExpectedVersionError } from '../ports/eventStore.js';

export interface Loaded<State> {
  state: State;
  /** -1n when the stream has no events. */
  revision: bigint;
}

const MAX_ATTEMPTS = 5;

export class AggregateCache {
  private readonly entries: LRUCache<string, Loaded<unknown>>;
  constructor(capacity = 10_000) {
    this.entries = new LRUCache({ max: capacity });
  }

  get<State>(streamId: string): Loaded<State> | undefined {
    return this.entries.get(streamId) as Loaded<State> | undefined;
  }

  set<State>(streamId: string, entry: Loaded<State>): void {
    this.entries.set(streamId, entry);
  }
}

export interface HandleOptions {
  /**
   * The stream is one this process has just named (a new snowflake's): the first attempt decides on the initial state
   * without reading the log. The append's no_stream expectation still guards it: a stream that existed after all is
   * read and decided again.
   */
  newStream?: boolean;
}

export interface Handled<State, Event> {
  state: State;
  events: Event[];
  /** Where the events landed in the global log; null when the command caused none. */
  position: Position | null;
}

export class CommandHandler {
  constructor(
    private readonly store: EventStore,
    private readonly cache = new AggregateCache(),
  ) {}

  async load<State, Event extends DomainEvent>(streamId: string, decider: Pick<Decider<State, never, Event>, 'initialState' | 'evolve'>): Promise<Loaded<State>> {
    const cached = this.cache.get<State>(streamId);
    let { state, revision } = cached ?? { state: decider.initialState(), revision: -1n };
    const events = await this.store.readStream(streamId, { fromRevision: revision + 1n });
    for (const event of events) {
      state = decider.evolve(state, { type: event.type, data: event.data } as Event);
      revision = event.revision;
    }
    if (events.length > 0 || !cached) this.cache.set(streamId, { state, revision });
    return { state, revision };
  }

  async handle<State, Command, Event extends DomainEvent>(
    streamId: string,
    decider: Decider<State, Command, Event>,
    command: Command,
    metadata: EventMetadata,
    options: HandleOptions = {},
  ): Promise<Handled<State, Event>> {
    for (let attempt = 1; ; attempt++) {
      const { state, revision } = attempt === 1 && options.newStream ? { state: decider.initialState(), revision: -1n } : await this.load(streamId, decider);
      const events = decider.decide(command, state);
      if (events.length === 0) return { state, events, position: null };
      try {
        const result = await this.store.appendToStream(
          streamId,
          events.map((event) => ({ type: event.type, data: event.data, metadata })),
          { expectedRevision: revision < 0n ? 'no_stream' : revision },
        );
        const next = events.reduce(decider.evolve, state);
        this.cache.set(streamId, { state: next, revision: result.nextExpectedRevision });
        return { state: next, events, position: result.position };
      } catch (error) {
        if (!(error instanceof WrongExpectedVersionError) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }
}
