// The analyst's replay tool, on the engines of the service's environment (STORE/ESDB_URL, READ_STORE/MONGO_URL,
// DATA_DIR); `npm run -s replay -- --help` says how to use it (-s keeps npm's own lines off stdout):
//   rebuild [--projections users,applications]
//       empties the chosen read models and projects the whole log into them again (refused while a server runs on
//       DATA_DIR; stop the projector processes of those projections first), with a progress bar and events/s on stderr;
//   export [--stream STREAM_ID] [--from COMMIT/PREPARE] [--out FILE]
//       writes the log, or one stream, as NDJSON (one event per line, from the position given, inclusive), with the
//       same progress on stderr;
//   rotate-master-key
//       re-wraps every data key with a new master key and drops the old one (infra/rotateMasterKey.ts).
import { once } from 'node:events';
import { createWriteStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Projection } from '../projections/projection.js';
import { ProjectionRunner } from '../projections/runner.js';
import { openToolEngines } from './compose.js';
import { type Config, loadConfig } from './config.js';
import { holdForRebuild, usesEmbeddedStores } from './dataDirLock.js';
import { type EngineConfig, loadEngineConfig } from './engines.js';
import { eraseAccount } from './erase.js';
import type { SealingEventStore } from './eventStore/sealing.js';
import { eventToJson } from './eventStore/json.js';
import { type EventStore, type Position, type RecordedEvent, comparePositions, decodePosition } from '../ports/eventStore.js';
import { createLogger } from './logger.js';
import type { Doc, ReadStore } from '../ports/readStore.js';
import { allProjections } from '../projections/index.js';
import { selectProjections } from './roles.js';
import { rotateMasterKey } from './rotateMasterKey.js';

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
function shareOf(position: Position, head: Position | null): number {
  return head && head.commit > 0n ? Number((position.commit * 10_000n) / head.commit) / 10_000 : 1;
}

/**
 * Rebuilds with the projectors' own code path (ProjectionRunner.rebuild), so the result is what incremental
 * processing gives; the store is watched only to count events for the progress bar.
 */
export async function rebuildReadModels(store: EventStore, readStore: ReadStore, projections: Projection[], progress: ProgressBar): Promise<number> {
  const head = await store.headPosition();
  let events = 0;
  const watched = new Proxy(store, {
    get(target, property) {
      if (property === 'subscribeToAll') {
        return (...[options, handler, onError]: Parameters<EventStore['subscribeToAll']>) =>
          target.subscribeToAll(
            options,
            async (batch) => {
              await handler(batch);
              events += batch.length;
              progress.update(shareOf(batch[batch.length - 1].position, head), events);
            },
            onError,
          );
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
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

async function* pagesOfLog(store: EventStore, from: Position | undefined): AsyncGenerator<RecordedEvent[]> {
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

async function* pagesOfStream(store: EventStore, streamId: string, from: Position | undefined): AsyncGenerator<RecordedEvent[]> {
  for (let revision = 0n; ; ) {
    const page = await store.readStream(streamId, { fromRevision: revision, maxCount: PAGE });
    if (page.length === 0) return;
    yield from ? page.filter((e) => comparePositions(e.position, from) >= 0) : page;
    revision = page[page.length - 1].revision + 1n;
  }
}

/**
 * Writes the events as NDJSON, honouring the output's backpressure, with progress; returns how many were written.
 * Personal fields are opened where their key exists; an erased one is written as null and its event marked
 * `"erased": true`, never a failure.
 */
export async function exportNdjson(store: SealingEventStore, options: { stream?: string; from?: Position }, out: NodeJS.WritableStream, progress: ProgressBar): Promise<number> {
  const log = store.sealedLog;
  const head = await log.headPosition();
  let written = 0;
  const pages = options.stream ? pagesOfStream(log, options.stream, options.from) : pagesOfLog(log, options.from);
  for await (const sealed of pages) {
    const page = await store.open(sealed, 'null');
    for (const event of page) {
      if (!out.write(`${eventToJson(event)}\n`)) await once(out, 'drain');
      written += 1;
    }
    if (page.length) progress.update(shareOf(page[page.length - 1].position, head), written);
  }
  progress.update(1, written, true);
  return written;
}

const USAGE = 'usage: replay rebuild [--projections a,b] | replay export [--stream ID] [--from COMMIT/PREPARE] [--out FILE] | replay erase --user ID | replay rotate-master-key';

const HELP = `${USAGE}

Reads the log of the environment it runs in (the service's own settings) and rebuilds read models from it, or exports it.

Commands:
  rebuild             empty the read models and project the whole log into them again, through the projectors'
                      own code; refused while a server runs on DATA_DIR (stop it first, and in the distributed
                      mode stop the projector processes of those projections)
  export              write the log, or one stream, as NDJSON (one event a line) on stdout or to --out FILE
  erase               delete the account --user ID as POST /users/@me/delete does, for an erasure request (no
                      password); refused while a server runs on DATA_DIR, as rebuild is
  rotate-master-key   re-wrap every data key with a new master key and drop the old one (README, Privacy);
                      refused while a server runs on DATA_DIR; with MASTER_KEY set, re-wraps with it: give the old
                      key in MASTER_KEYS_RETIRED, and remove it from there once this says done

Options:
  --projections a,b   rebuild only these (known: ${allProjections.map((p) => p.name).join(', ')})
  --stream ID         export only this stream (refused when the log has no such stream)
  --from COMMIT/PREPARE
                      export from this position on, inclusive (positions as checkpoints write them)
  --out FILE          export to FILE instead of stdout
  --user ID           the account erase deletes
  -h, --help          this text

Progress (a bar with events/s) and the summary go to stderr, never to stdout.

Environment:
  DATA_DIR            the embedded log (events.db) and read models (default ./data); refused without events.db
  STORE, ESDB_URL     STORE=esdb reads the log from EventStoreDB instead
  READ_STORE, MONGO_URL, MONGO_DB
                      READ_STORE=mongodb rebuilds read models in MongoDB instead

From a clone, keep npm's own lines off stdout with -s:
  npm run -s replay -- export > log.ndjson
`;

/** The embedded log must be there already: opening it would create an empty one, and read nothing, in silence. */
function requireLog(config: Config, engines: EngineConfig): void {
  if (engines.store.kind === 'sqlite' && !existsSync(join(config.dataDir, 'events.db'))) {
    throw new Error(`${config.dataDir} holds no event log (events.db): set DATA_DIR to the data directory of the server whose log to read`);
  }
}

function parsedArguments(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: { projections: { type: 'string' }, stream: { type: 'string' }, from: { type: 'string' }, out: { type: 'string' }, user: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    // Node's first sentence names the option ("Unknown option '--x'"); the rest is about positionals.
    throw new Error(`${(error as Error).message.split('. ')[0]}: --help lists the options`);
  }
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parsedArguments(argv);
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const [command] = positionals;
  if (positionals.length !== 1 || !['rebuild', 'export', 'erase', 'rotate-master-key'].includes(command)) throw new Error(`${USAGE} (--help says more)`);
  const chosen = selectProjections(values.projections ? values.projections.split(',').map((n) => n.trim()).filter(Boolean) : null);
  const from = values.from ? decodePosition(values.from) : undefined;
  const config = loadConfig();
  const engines = loadEngineConfig();
  requireLog(config, engines);
  // A rebuild or an erasure holds DATA_DIR against servers until it is done (a running server keeps tokens and read
  // models of its own in memory); an export only reads, beside a running server too.
  const lock = command !== 'export' && usesEmbeddedStores(engines) ? holdForRebuild(config.dataDir) : null;
  // The engines of the environment, opened by the composition root's code (no bus, no relay: see openToolEngines).
  const { store, keys, readStore, secrets, masterKeys, close } = await openToolEngines(config, engines, createLogger('warn'));
  try {
    if (command === 'erase') {
      // The server's key names the account's username and email claim streams.
      await eraseAccount({ store, keys, readStore, secrets }, values.user ?? '', process.stderr);
    } else if (command === 'rotate-master-key') {
      await rotateMasterKey({ config, keys, masterKeys }, process.stderr);
    } else if (command === 'rebuild') {
      const events = await rebuildReadModels(store, readStore, chosen, new ProgressBar(process.stderr, 'rebuild'));
      process.stderr.write(`rebuilt ${chosen.map((p) => p.name).join(', ')} from ${events} events\n`);
    } else {
      if (values.stream && (await store.readStream(values.stream, { maxCount: 1 })).length === 0) throw new Error(`the log has no stream ${values.stream}`);
      const out = values.out ? createWriteStream(values.out) : process.stdout;
      const count = await exportNdjson(store, { stream: values.stream, from }, out, new ProgressBar(process.stderr, 'export'));
      if (out !== process.stdout) await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
      process.stderr.write(`exported ${count} events\n`);
    }
  } finally {
    await close();
    lock?.release();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then(
    () => process.exit(0),
    (error) => {
      console.error(`replay: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
