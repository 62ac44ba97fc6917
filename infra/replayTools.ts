// What the replay tool's commands share (infra/replay.ts, infra/migrate.ts): the progress line, the log read a page at
// a time, and rebuilds of read models with the projectors' own code, and the snapshots they are compared by.
import type { Projection } from '../projections/projection.js';
import { ProjectionRunner } from '../projections/runner.js';
import { type BatchHandler, type EventStore, type Position, type RecordedEvent, comparePositions } from '../ports/eventStore.js';
import type { Doc, ReadStore } from '../ports/readStore.js';

const PAGE = 1000;
const WIDTH = 30;

/** A progress bar on a terminal; on anything else (a pipe, a CI log), a plain line a second. */
export class ProgressBar {
  private readonly started = Date.now();
  private lastDrawn = 0;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly label: string,
  ) {}

  render(fraction: number, events: number, now = Date.now()): string {
    const done = Math.max(0, Math.min(1, fraction));
    const filled = Math.round(done * WIDTH);
    const seconds = Math.max((now - this.started) / 1000, 0.001);
    const rate = Math.round(events / seconds);
    return `${this.label} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${Math.floor(done * 100)}% ${events} events ${rate} events/s`;
  }

  update(fraction: number, events: number, final = false): void {
    const now = Date.now();
    if (!final && now - this.lastDrawn < (this.out.isTTY ? 100 : 1000)) return;
    this.lastDrawn = now;
    const line = this.render(fraction, events, now);
    this.out.write(this.out.isTTY ? `\r${line}${final ? '\n' : ''}` : `${line}\n`);
  }
}

/** The share of the log up to `position`, by commit position (dense in SQLite, byte offsets in EventStoreDB). */
export function shareOf(position: Position, head: Position | null): number {
  return head && head.commit > 0n ? Number((position.commit * 10_000n) / head.commit) / 10_000 : 1;
}

/** `store` whose subscriptions hand each batch to `around`, with the subscriber's handler, instead of to the handler. */
export function aroundBatches(store: EventStore, around: (batch: RecordedEvent[], handler: BatchHandler) => Promise<void>): EventStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'subscribeToAll') {
        return (...[options, handler, onError]: Parameters<EventStore['subscribeToAll']>) =>
          target.subscribeToAll(options, (batch) => around(batch, handler), onError);
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Rebuilds with the projectors' own code path (ProjectionRunner.rebuild), so the result is what incremental
 * processing gives; the store is watched only to count events for the progress bar.
 */
export async function rebuildReadModels(store: EventStore, readStore: ReadStore, projections: Projection[], progress: ProgressBar): Promise<number> {
  const head = await store.headPosition();
  let events = 0;
  const watched = aroundBatches(store, async (batch, handler) => {
    await handler(batch);
    events += batch.length;
    progress.update(shareOf(batch[batch.length - 1].position, head), events);
  });
  let failure: unknown = null;
  const runner = new ProjectionRunner(watched, readStore, projections, (error) => (failure = error));
  await runner.rebuild();
  await runner.stop();
  if (failure) throw failure;
  progress.update(1, events, true);
  return events;
}

/** Every document of the projections' collections, by collection in id order: what a rebuild is compared with. */
export async function snapshotReadModels(readStore: ReadStore, projections: Projection[]): Promise<Record<string, Doc[]>> {
  const all: Record<string, Doc[]> = {};
  for (const collection of projections.flatMap((p) => p.collections)) all[collection] = await readStore.find(collection, {}, { sort: { _id: 1 } });
  return all;
}

export async function* pagesOfLog(store: EventStore, from: Position | undefined): AsyncGenerator<RecordedEvent[]> {
  let next = from;
  let inclusive = true;
  for (;;) {
    // readAll is inclusive of its position: after the first page, drop the event the previous page ended with.
    const page = (await store.readAll({ fromPosition: next, maxCount: PAGE })).filter((e) => inclusive || !next || comparePositions(e.position, next) > 0);
    if (page.length === 0) return;
    yield page;
    next = page[page.length - 1].position;
    inclusive = false;
  }
}

export async function* pagesOfStream(store: EventStore, streamId: string, from: Position | undefined): AsyncGenerator<RecordedEvent[]> {
  for (let revision = 0n; ;) {
    const page = await store.readStream(streamId, { fromRevision: revision, maxCount: PAGE });
    if (page.length === 0) return;
    yield from ? page.filter((e) => comparePositions(e.position, from) >= 0) : page;
    revision = page[page.length - 1].revision + 1n;
  }
}
