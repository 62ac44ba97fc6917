// Runs a command against one stream: fold the stream's events into state, decide, append with the revision the
// decision was made on. In this process, commands on one stream wait for each other, so they never race for a
// revision; a writer in another process makes the append fail with a wrong expected version, and the command is then
// decided again on the fresh state after a short, jittered pause. Folded states are cached per stream and decider, so a
// load reads only the events since. A use case with work to do between the decision and the append (a channel's
// threads to delete first) decides, does it, then commits the decision: one load serves both, unless the stream moved.
// What an erasure erases leaves the cache with it: a deleted message's last state, an erased account's, the messages
// of a deleted channel or guild (commands/erasedStates.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import type { Decider, DomainEvent } from '../domain/decider.js';
import { DomainError } from '../domain/errors.js';
import { type EventMetadata, type EventStore, type Position, WrongExpectedVersionError } from '../ports/eventStore.js';
import { KeyedQueue } from './queue.js';
import { ErasedStates } from './erasedStates.js';

export interface Loaded<State> {
  state: State;
  /** -1n when the stream has no events. */
  revision: bigint;
}

/** Attempts against writers in other processes; between them a pause of up to 5, 10, 20… ms (at most 250). */
const MAX_ATTEMPTS = 10;
const backoffMs = (attempt: number) => Math.random() * Math.min(250, 5 * 2 ** (attempt - 1));

/** Another process kept winning the stream: nothing was appended, and the same request may simply be sent again. */
export const writeContention = (streamId: string) =>
  new DomainError('conflict', 'WRITE_CONFLICT', `Too many concurrent writes to ${streamId.replace(/-.*/, '')}: try again`, undefined, 1);

/** Folded states by stream and decider: two deciders reading one stream never see each other's state. */
export class AggregateCache {
  private readonly entries: LRUCache<string, Loaded<unknown>>;
  private readonly deciderIds = new WeakMap<object, number>();
  private nextDeciderId = 0;
  constructor(capacity = 10_000) {
    this.entries = new LRUCache({ max: capacity });
  }

  private key(streamId: string, decider: object): string {
    let id = this.deciderIds.get(decider);
    if (id === undefined) this.deciderIds.set(decider, (id = this.nextDeciderId++));
    return `${id}:${streamId}`;
  }

  get<State>(streamId: string, decider: object): Loaded<State> | undefined {
    return this.entries.get(this.key(streamId, decider)) as Loaded<State> | undefined;
  }

  set<State>(streamId: string, decider: object, entry: Loaded<State>): void {
    this.entries.set(this.key(streamId, decider), entry);
  }

  /** Drops every decider's state of the stream. */
  forgetStream(streamId: string): void {
    for (let id = 0; id < this.nextDeciderId; id++) this.entries.delete(`${id}:${streamId}`);
  }

  /** Drops the states of every stream whose id starts with `prefix`: a pass over the cache, for rare erasures. */
  forgetUnder(prefix: string): void {
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix, key.indexOf(':') + 1)) this.entries.delete(key);
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

/** A command decided on a stream's state as loaded, not yet appended: what `decide` answers and `commit` appends. */
export interface Decision<State, Command, Event extends DomainEvent> extends Loaded<State> {
  streamId: string;
  decider: Decider<State, Command, Event>;
  command: Command;
  events: Event[];
}

type Decided<State, Event> = Loaded<State> & { events: Event[] };

const decideOn = <State, Command, Event extends DomainEvent>(
  decider: Decider<State, Command, Event>,
  command: Command,
  loaded: Loaded<State>,
  at: number,
): Decided<State, Event> => ({ ...loaded, events: decider.decide(command, loaded.state, at) });

export class CommandHandler {
  private readonly queue = new KeyedQueue();
  private readonly erased: ErasedStates;

  constructor(
    private readonly store: EventStore,
    private readonly cache = new AggregateCache(),
  ) {
    this.erased = new ErasedStates(cache);
  }

  /**
   * The keys of erased subjects were destroyed (the key store's onDestroyed): states a load folded from clear text in
   * between are dropped again, and from now on folds read the erased values.
   */
  keysDestroyed(): void {
    this.erased.keysDestroyed();
  }

  async load<State, Event extends DomainEvent>(
    streamId: string,
    decider: Pick<Decider<State, never, Event>, 'initialState' | 'evolve'>,
  ): Promise<Loaded<State>> {
    const cached = this.cache.get<State>(streamId, decider);
    let { state, revision } = cached ?? { state: decider.initialState(), revision: -1n };
    const events = await this.store.readStream(streamId, { fromRevision: revision + 1n });
    for (const event of events) {
      state = decider.evolve(state, { type: event.type, data: event.data } as Event);
      revision = event.revision;
    }
    // A state folded through an erasure is not kept: it may hold what was erased, read before the key was destroyed.
    if (this.erased.note(events)) this.cache.forgetStream(streamId);
    else if (events.length > 0 || !cached) this.cache.set(streamId, decider, { state, revision });
    return { state, revision };
  }

  /** Decides and appends after this process's earlier commands on the stream. */
  handle<State, Command, Event extends DomainEvent>(
    streamId: string,
    decider: Decider<State, Command, Event>,
    command: Command,
    metadata: EventMetadata,
    options: HandleOptions = {},
  ): Promise<Handled<State, Event>> {
    // A stream this process has just named has no earlier command here to wait for.
    if (options.newStream) return this.decideAndAppend(streamId, decider, command, metadata, 'initial');
    return this.queue.run(streamId, () => this.decideAndAppend(streamId, decider, command, metadata, null));
  }

  /**
   * Decides the command on the stream's current state without appending: a refusal throws here, before the caller's
   * work outside the log. `at` is the time it is decided at (the clock port's).
   */
  async decide<State, Command, Event extends DomainEvent>(
    streamId: string,
    decider: Decider<State, Command, Event>,
    command: Command,
    at: number,
  ): Promise<Decision<State, Command, Event>> {
    return { streamId, decider, command, ...decideOn(decider, command, await this.load(streamId, decider), at) };
  }

  /**
   * Appends a decision's events after this process's earlier commands on the stream, expecting the revision it was
   * decided on. A stream that moved since (a command of this process, a writer in another) has the command decided
   * again on its fresh state, as `handle` would: the decision's load is only trusted while it is the latest.
   */
  commit<State, Command, Event extends DomainEvent>(decision: Decision<State, Command, Event>, metadata: EventMetadata): Promise<Handled<State, Event>> {
    const { streamId, decider, command } = decision;
    return this.queue.run(streamId, () => {
      // This process already read or wrote past the decision: the log would refuse its append, so decide again now.
      const known = this.cache.get<State>(streamId, decider);
      const current = known === undefined || known.revision === decision.revision;
      return this.decideAndAppend(streamId, decider, command, metadata, current ? decision : null);
    });
  }

  /** `first`: the first attempt's decision, made already ('initial': on the initial state); null: load and decide. */
  private async decideAndAppend<State, Command, Event extends DomainEvent>(
    streamId: string,
    decider: Decider<State, Command, Event>,
    command: Command,
    metadata: EventMetadata,
    first: Decided<State, Event> | 'initial' | null,
  ): Promise<Handled<State, Event>> {
    const at = Date.parse(metadata.createdAt);
    let made = first === 'initial' ? decideOn(decider, command, { state: decider.initialState(), revision: -1n }, at) : first;
    for (let attempt = 1; ; attempt++) {
      const { state, revision, events } = made ?? decideOn(decider, command, await this.load(streamId, decider), at);
      made = null;
      if (events.length === 0) return { state, events, position: null };
      try {
        const result = await this.store.appendToStream(
          streamId,
          events.map((event) => ({ type: event.type, data: event.data, metadata })),
          { expectedRevision: revision < 0n ? 'no_stream' : revision },
        );
        const next = events.reduce(decider.evolve, state);
        if (this.erased.note(events)) this.cache.forgetStream(streamId);
        else this.cache.set(streamId, decider, { state: next, revision: result.nextExpectedRevision });
        return { state: next, events, position: result.position };
      } catch (error) {
        if (!(error instanceof WrongExpectedVersionError)) throw error;
        if (attempt >= MAX_ATTEMPTS) throw writeContention(streamId);
        await sleep(backoffMs(attempt));
      }
    }
  }
}
