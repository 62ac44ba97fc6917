// Runs a command against one stream: fold the stream's events into state, decide, append with the revision the
// decision was made on. In this process, commands on one stream wait for each other, so they never race for a
// revision; a writer in another process makes the append fail with a wrong expected version, and the command is then
// decided again on the fresh state after a short, jittered pause. Folded states are cached per stream and decider, so a
// load reads only the events since. What an erasure erases leaves the cache with it: a deleted message's last state,
// an erased account's, the messages of a deleted channel or guild (commands/erasedStates.ts).
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
    if (options.newStream) return this.decideAndAppend(streamId, decider, command, metadata, options);
    return this.queue.run(streamId, () => this.decideAndAppend(streamId, decider, command, metadata, options));
  }

  private async decideAndAppend<State, Command, Event extends DomainEvent>(
    streamId: string,
    decider: Decider<State, Command, Event>,
    command: Command,
    metadata: EventMetadata,
    options: HandleOptions,
  ): Promise<Handled<State, Event>> {
    for (let attempt = 1; ; attempt++) {
      const { state, revision } = attempt === 1 && options.newStream ? { state: decider.initialState(), revision: -1n } : await this.load(streamId, decider);
      const events = decider.decide(command, state, Date.parse(metadata.createdAt));
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
