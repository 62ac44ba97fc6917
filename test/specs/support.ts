// Given/when/then for the write and read sides, beside the decider specs of test/support/given.ts:
//   projections: given events → when events → then read-model documents (givenProjections);
//   commands:    given streams in an in-memory log → when a command function → then the appended events, or the
//                refusal with its code and nothing appended (givenStreams).
// Everything a command function needs is built by commandDeps() below, and only there: when the use cases move to
// narrow ports, that function is the one place to adapt.
import { expect } from 'vitest';
import type { CommandDeps } from '../../commands/deps.js';
import { CommandHandler } from '../../commands/handle.js';
import type { DomainEvent } from '../../domain/decider.js';
import { DomainError } from '../../domain/errors.js';
import { SnowflakeGenerator } from '../../domain/snowflake.js';
import { SqliteEventStore } from '../../infra/eventStore/sqlite.js';
import { SqliteReadStore } from '../../infra/readStore/sqlite.js';
import { SecretBox } from '../../infra/secrets.js';
import type { Blob, BlobStore } from '../../ports/blobs.js';
import { type EventMetadata, type EventStore, type Position, type RecordedEvent, comparePositions } from '../../ports/eventStore.js';
import type { Doc, Filter } from '../../ports/readStore.js';
import { applicationCommandsProjection } from '../../projections/applicationCommands.js';
import { channelsProjection } from '../../projections/channels.js';
import { dmsProjection } from '../../projections/dms.js';
import { guildsProjection } from '../../projections/guilds.js';
import { memberActivityProjection } from '../../projections/memberActivity.js';
import { membersProjection } from '../../projections/members.js';
import { messagesProjection } from '../../projections/messages.js';
import { type Projection, byEventType } from '../../projections/projection.js';
import { ProjectionRunner } from '../../projections/runner.js';
import { threadsProjection } from '../../projections/threads.js';
import { usersProjection } from '../../projections/users.js';

/** When history events happened, unless they say otherwise. */
export const EARLIER = '2025-01-01T00:00:00.000Z';
/** The fixed clock of command specs: the clock port and the snowflake generator both read this instant. */
export const NOW = '2025-06-01T12:00:00.000Z';
/** The ids the generator hands out at NOW, in order (worker 0, process 0, sequence 0, 1, …). */
export const NEW_IDS = ['1378704634675200000', '1378704634675200001', '1378704634675200002'] as const;

/** An event of a history, with the metadata of the request that caused it when that matters (actor, reason, time). */
export type HistoryEvent = DomainEvent & { metadata?: Partial<EventMetadata> };

/** The event as caused by `actorId`'s request (with its X-Audit-Log-Reason, its time…). */
export const by = <E extends DomainEvent>(
  actorId: string | null,
  event: E,
  meta: Partial<Omit<EventMetadata, 'actorId'>> = {},
): E & { metadata: Partial<EventMetadata> } => ({
  ...event,
  metadata: { actorId, ...meta },
});

const metadataOf = (event: HistoryEvent): EventMetadata => ({ actorId: null, createdAt: EARLIER, ...event.metadata });

/** The `index`th event of a log, as the event store would hand it to a projection (positions start at 1). */
export function recorded(event: HistoryEvent, index: number): RecordedEvent {
  const position = BigInt(index + 1);
  return {
    id: `event-${index}`,
    streamId: 'spec',
    revision: BigInt(index),
    position: { commit: position, prepare: position },
    type: event.type,
    data: event.data,
    metadata: metadataOf(event),
    schemaVersion: 1,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Projections: events in, documents out, over the same in-memory store and write operations production uses.

/** The document's values of the fields `expected` names (the other fields do not matter to the spec). */
const fieldsOf = (doc: Doc, expected: object) => Object.fromEntries(Object.keys(expected).map((key) => [key, doc[key]]));

/** The events projected into a new in-memory store, which the caller closes: for specs of a projection's queries. */
export async function project(projections: Projection[], events: HistoryEvent[]): Promise<SqliteReadStore> {
  const store = new SqliteReadStore(':memory:');
  await store.ensureIndexes(projections.flatMap((p) => p.indexes));
  // Routed as the runner routes them: each projection sees only the event types it declares.
  const takers = byEventType(projections, (p) => p.handles);
  const ops = events.flatMap((e, i) => (takers.get(e.type) ?? []).flatMap((p) => p.project(recorded(e, i))));
  await store.bulkWrite(ops);
  return store;
}

export const givenProjections =
  (...projections: Projection[]) =>
  (...history: HistoryEvent[]) => ({
    when: (...events: HistoryEvent[]) => {
      const read = async <T>(look: (store: SqliteReadStore) => Promise<T>): Promise<T> => {
        const store = await project(projections, [...history, ...events]);
        try {
          return await look(store);
        } finally {
          await store.close();
        }
      };
      return {
        /** The document `id` of `collection` has exactly the expected values in the fields named; null: there is no such document. */
        async then(collection: string, id: string, expected: object | null) {
          const doc = await read((store) => store.findOne(collection, { _id: id }));
          if (expected === null) expect(doc).toBeNull();
          else expect(doc && fieldsOf(doc, expected)).toEqual(expected);
        },
        /** The documents `filter` selects, in _id order, are as many as expected, each with exactly the values named. */
        async thenFind(collection: string, filter: Filter, expected: object[]) {
          const docs = await read((store) => store.find<Doc>(collection, filter, { sort: { _id: 1 } }));
          expect(docs.map((doc, i) => fieldsOf(doc, expected[i] ?? doc))).toEqual(expected);
        },
      };
    },
  });

// ---------------------------------------------------------------------------------------------------------------
// Commands: a real in-memory log and read store, the read models fed by the projection runner as in production.

/** The read models the command functions look things up in (users, channel → guild, members and their activity, messages, DMs, commands, threads). */
const COMMAND_READ_MODELS: Projection[] = [
  usersProjection,
  guildsProjection,
  channelsProjection,
  membersProjection,
  memberActivityProjection,
  dmsProjection,
  messagesProjection,
  applicationCommandsProjection,
  threadsProjection,
];
const SPEC_KEY = Buffer.alloc(32, 7);
/** The service key of every spec's commands: specs name keyed streams with it (commands/streams.ts). */
export const specSecrets = SecretBox.fromKey(SPEC_KEY);

/** Blobs in a map, for commands that store or delete files. */
export class MemoryBlobStore implements BlobStore {
  readonly blobs = new Map<string, Blob>();
  async put(key: string, blob: Blob) {
    this.blobs.set(key, blob);
  }
  async get(key: string) {
    return this.blobs.get(key) ?? null;
  }
  async delete(key: string) {
    this.blobs.delete(key);
  }
  async deleteUnder(prefix: string) {
    for (const key of this.blobs.keys()) if (key.startsWith(`${prefix}/`)) this.blobs.delete(key);
  }
  async folders(prefix: string) {
    const nested = [...this.blobs.keys()].filter((key) => key.startsWith(`${prefix}/`)).map((key) => key.slice(prefix.length + 1).split('/'));
    return [...new Set(nested.filter((rest) => rest.length > 1).map((rest) => rest[0]))];
  }
}

export interface CommandWorld {
  deps: CommandDeps;
  eventStore: SqliteEventStore;
  readStore: SqliteReadStore;
  blobs: MemoryBlobStore;
  /** Errors the projection runner reported; a spec fails on any. */
  projectionErrors: unknown[];
  close(): Promise<void>;
}

/** The one place that builds what command functions take. */
export async function commandDeps(): Promise<CommandWorld> {
  const eventStore = new SqliteEventStore(':memory:');
  const readStore = new SqliteReadStore(':memory:');
  const blobs = new MemoryBlobStore();
  const projectionErrors: unknown[] = [];
  const runner = new ProjectionRunner(eventStore, readStore, COMMAND_READ_MODELS, (error) => projectionErrors.push(error));
  await runner.start();
  const deps: CommandDeps = {
    commands: new CommandHandler(eventStore),
    ids: new SnowflakeGenerator({ workerId: 0, processId: 0, clock: () => Date.parse(NOW) }),
    readStore,
    blobs,
    secrets: specSecrets,
    clock: { now: () => Date.parse(NOW) },
    settle: (position: Position | null) => runner.waitFor(position, 2000),
    // Specs check the events a command appends; removing files after them is the remover's (test/http/attachmentErasure.test.ts).
    settleFiles: async () => {},
  };
  return {
    deps,
    eventStore,
    readStore,
    blobs,
    projectionErrors,
    async close() {
      await runner.stop();
      await eventStore.close();
      await readStore.close();
    },
  };
}

/** An event the command appended: exact stream, type and data; the metadata fields given, when given. */
export interface Appended {
  stream: string;
  type: string;
  data: unknown;
  metadata?: Partial<EventMetadata>;
}

/** Appends each [streamId, events] to its stream; returns where the last event landed. */
export async function appendStreams(store: EventStore, streams: [string, HistoryEvent[]][]): Promise<Position | null> {
  let last: Position | null = null;
  for (const [stream, events] of streams) {
    const metadata = events.map(metadataOf);
    const result = await store.appendToStream(
      stream,
      events.map((e, i) => ({ type: e.type, data: e.data, metadata: metadata[i] })),
      { expectedRevision: 'any' },
    );
    last = result.position;
  }
  return last;
}

type Outcome = { appended: RecordedEvent[]; error: unknown };

/** Appends the history, lets the read models catch up, runs the command with the clock at NOW, reads what it appended. */
async function runCommand(streams: [string, HistoryEvent[]][], command: (deps: CommandDeps) => Promise<unknown>): Promise<Outcome> {
  const world = await commandDeps();
  try {
    await world.deps.settle(await appendStreams(world.eventStore, streams));
    const head = await world.eventStore.headPosition();
    let error: unknown = null;
    try {
      await command(world.deps);
    } catch (thrown) {
      error = thrown;
    }
    const all = await world.eventStore.readAll(head ? { fromPosition: head } : {});
    const appended = all.filter((e) => !head || comparePositions(e.position, head) > 0);
    expect(world.projectionErrors).toEqual([]);
    return { appended, error };
  } finally {
    await world.close();
  }
}

/** Given these streams in the log (each [streamId, events]), when the command function runs, then… */
export const givenStreams = (...streams: [string, HistoryEvent[]][]) => ({
  when: (command: (deps: CommandDeps) => Promise<unknown>) => ({
    /** …it appends exactly these events, in this order. */
    async then(...expected: Appended[]) {
      const { appended, error } = await runCommand(streams, command);
      if (error) throw error;
      expect(appended.map((e) => ({ stream: e.streamId, type: e.type, data: e.data, metadata: e.metadata }))).toEqual(
        expected.map((e) => ({ stream: e.stream, type: e.type, data: e.data, metadata: e.metadata ? expect.objectContaining(e.metadata) : expect.anything() })),
      );
    },
    /** …it is refused with this code, and nothing is appended. */
    async thenRefuses(code: string) {
      const { appended, error } = await runCommand(streams, command);
      expect(error, `expected a refusal with ${code}`).toBeInstanceOf(DomainError);
      expect((error as DomainError).code).toBe(code);
      expect(appended.map((e) => `${e.streamId} ${e.type}`)).toEqual([]);
    },
  }),
});
