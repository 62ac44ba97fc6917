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
//   migrate
//       rewrites an embedded data directory's log into the sealed form offline (infra/migrate.ts).
import { once } from 'node:events';
import { createWriteStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { openToolEngines } from './compose.js';
import { type Config, loadConfig } from './config.js';
import { holdForRebuild, usesEmbeddedStores } from './dataDirLock.js';
import { type EngineConfig, loadEngineConfig } from './engines.js';
import { eraseAccount } from './erase.js';
import { ReadAheadLog } from './eventStore/readAhead.js';
import type { SealingEventStore } from './eventStore/sealing.js';
import { eventToJson } from './eventStore/json.js';
import { type Position, type RecordedEvent, decodePosition } from '../ports/eventStore.js';
import { placeOf } from '../commands/guildEvents.js';
import { createLogger } from './logger.js';
import { migrateDataDir } from './migrate.js';
import { allProjections } from '../projections/index.js';
import { ProgressBar, pagesOfLog, pagesOfStream, rebuildReadModels, shareOf } from './replayTools.js';
import { selectProjections } from './roles.js';
import { rotateMasterKey } from './rotateMasterKey.js';

/** Which events an export writes: those of one guild (as its event stream places them), of some types, or both. */
export interface ExportFilter {
  guild?: string;
  types?: ReadonlySet<string>;
}

/** Whether `event` passes the filter; read from its ids and type, which the log keeps in clear (nothing is opened to decide). */
const passes = (filter: ExportFilter) => (event: RecordedEvent) =>
  (!filter.types || filter.types.has(event.type)) && (!filter.guild || placeOf(event).guildId === filter.guild);

/**
 * Writes the events as NDJSON, honouring the output's backpressure, with progress; returns how many were written.
 * Personal fields are opened where their key exists; an erased one is written as null and its event marked
 * `"erased": true`, never a failure.
 */
export async function exportNdjson(
  store: SealingEventStore,
  options: { stream?: string; from?: Position } & ExportFilter,
  out: NodeJS.WritableStream,
  progress: ProgressBar,
): Promise<number> {
  const log = store.sealedLog;
  const head = await log.headPosition();
  let written = 0;
  const pages = options.stream ? pagesOfStream(log, options.stream, options.from) : pagesOfLog(log, options.from);
  const chosen = passes(options);
  for await (const read of pages) {
    const sealed = options.guild || options.types ? read.filter(chosen) : read;
    const page = await store.open(sealed, 'null');
    for (const event of page) {
      if (!out.write(`${eventToJson(event)}\n`)) await once(out, 'drain');
      written += 1;
    }
    progress.update(shareOf(read[read.length - 1].position, head), written);
  }
  progress.update(1, written, true);
  return written;
}

const USAGE =
  'usage: replay rebuild [--projections a,b] | replay export [--stream ID] [--guild ID] [--types A,B] [--from COMMIT/PREPARE] [--out FILE] | replay erase --user ID | replay migrate | replay rotate-master-key';

const HELP = `${USAGE}

Reads the log of the environment it runs in (the service's own settings) and rebuilds read models from it, or exports it.

Commands:
  rebuild             empty the read models and project the whole log into them again, through the projectors'
                      own code; refused while a server runs on DATA_DIR (stop it first, and in the distributed
                      mode stop the projector processes of those projections)
  export              write the log, or one stream, as NDJSON (one event a line) on stdout or to --out FILE
  erase               delete the account --user ID as POST /users/@me/delete does, for an erasure request (no
                      password); refused while a server runs on DATA_DIR, as rebuild is
  migrate             rewrite DATA_DIR's log so that personal fields are sealed (events written before the
                      upgrade), check that the read models rebuilt from it equal the current ones, and replace
                      events.db and read-models.db; embedded engines only, refused while a server runs on DATA_DIR
  rotate-master-key   re-wrap every data key with a new master key and drop the old one (docs/privacy.md);
                      refused while a server runs on DATA_DIR; with MASTER_KEY set, re-wraps with it: give the old
                      key in MASTER_KEYS_RETIRED, and remove it from there once this says done

Options:
  --projections a,b   rebuild only these (known: ${allProjections.map((p) => p.name).join(', ')})
  --stream ID         export only this stream (refused when the log has no such stream)
  --guild ID          export only this guild's events (those GET /guilds/ID/events places in it, every
                      channel's: the operator's export filters by nobody's permissions)
  --types A,B         export only events of these types (the catalogue at /api/v1/asyncapi.json lists them)
  --from COMMIT/PREPARE
                      export from this position on, inclusive (positions as checkpoints write them)
  --out FILE          export to FILE instead of stdout
  --user ID           the account erase deletes
  -h, --help          this text

Progress (a bar with events/s) and the summary go to stderr, never to stdout.

Environment:
  DATA_DIR            the embedded log (events.db) and read models (default ./data); refused without events.db
  STORE, POSTGRES_URL, ESDB_URL
                      STORE=postgres reads the log from PostgreSQL instead, STORE=esdb from EventStoreDB
  READ_STORE, POSTGRES_URL, MONGO_URL, MONGO_DB
                      READ_STORE=postgres rebuilds read models in PostgreSQL instead, READ_STORE=mongodb in MongoDB

From a clone, keep npm's own lines off stdout with -s:
  npm run -s replay -- export > log.ndjson
`;

const MIGRATE_EMBEDDED_ONLY =
  'migrate rewrites only the embedded engines (DATA_DIR/events.db and read-models.db): EventStoreDB and MongoDB are shared with running processes that follow them by position, so their events written before sealing stay as they are (readable, in clear)';

/** `replay migrate`: the log sealed, the read models rebuilt and checked, the old files replaced; then what to delete. */
async function migrate(config: Config, engines: EngineConfig): Promise<void> {
  const open = () => openToolEngines(config, engines, createLogger('warn'));
  const migrated = await migrateDataDir(config.dataDir, config.readModelScrubMs, open, process.stderr);
  process.stderr.write(
    `migrated ${migrated.events} events: ${migrated.sealed} sealed, ${migrated.alreadySealed} sealed already, ${migrated.withoutPersonalData} without personal data; ` +
      'events.db and read-models.db replaced (the read models rebuilt from the sealed log equal the ones before), and the keys of what the log erased destroyed\n' +
      'Now delete what still holds personal data in clear, deleted and edited-away text included: every backup and copy of the old events.db (and events.db-wal) ' +
      'and of the old read-models.db, and every export (replay export) made before this migration\n',
  );
}

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
      options: {
        projections: { type: 'string' },
        stream: { type: 'string' },
        guild: { type: 'string' },
        types: { type: 'string' },
        from: { type: 'string' },
        out: { type: 'string' },
        user: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
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
  if (positionals.length !== 1 || !['rebuild', 'export', 'erase', 'migrate', 'rotate-master-key'].includes(command))
    throw new Error(`${USAGE} (--help says more)`);
  const chosen = selectProjections(
    values.projections
      ? values.projections
          .split(',')
          .map((n) => n.trim())
          .filter(Boolean)
      : null,
  );
  const from = values.from ? decodePosition(values.from) : undefined;
  const config = loadConfig();
  const engines = loadEngineConfig();
  if (command === 'migrate' && (engines.store.kind !== 'sqlite' || engines.readStore.kind !== 'embedded')) throw new Error(MIGRATE_EMBEDDED_ONLY);
  requireLog(config, engines);
  // A rebuild, an erasure or a migration holds DATA_DIR against servers until it is done (a running server keeps tokens
  // and read models of its own in memory); an export only reads, beside a running server too.
  const lock = command !== 'export' && usesEmbeddedStores(engines) ? holdForRebuild(config.dataDir) : null;
  if (command === 'migrate') {
    try {
      await migrate(config, engines);
    } finally {
      lock?.release();
    }
    return;
  }
  // The engines of the environment, opened by the composition root's code (no bus, no relay: see openToolEngines).
  const { store, keys, readStore, secrets, masterKeys, close } = await openToolEngines(config, engines, createLogger('warn'));
  try {
    if (command === 'erase') {
      // The server's key names the account's username and email claim streams.
      await eraseAccount({ store, keys, readStore, secrets }, values.user ?? '', process.stderr);
    } else if (command === 'rotate-master-key') {
      await rotateMasterKey({ config, keys, masterKeys }, process.stderr);
    } else if (command === 'rebuild') {
      // The embedded log is read and opened on a thread of its own, ahead of the projections (readAhead.ts).
      const { dataDir, secretKey, masterKey, masterKeysRetired } = config;
      const log = engines.store.kind === 'sqlite' ? new ReadAheadLog(store, { dataDir, secretKey, masterKey, masterKeysRetired }) : store;
      const events = await rebuildReadModels(log, readStore, chosen, new ProgressBar(process.stderr, 'rebuild'));
      process.stderr.write(`rebuilt ${chosen.map((p) => p.name).join(', ')} from ${events} events\n`);
    } else {
      if (values.stream && (await store.readStream(values.stream, { maxCount: 1 })).length === 0) throw new Error(`the log has no stream ${values.stream}`);
      const out = values.out ? createWriteStream(values.out) : process.stdout;
      const types = values.types
        ? new Set(
            values.types
              .split(',')
              .map((t) => t.trim())
              .filter(Boolean),
          )
        : undefined;
      if (values.guild !== undefined && !/^\d+$/.test(values.guild)) throw new Error(`--guild takes a guild's id, not ${values.guild}`);
      const count = await exportNdjson(store, { stream: values.stream, from, guild: values.guild, types }, out, new ProgressBar(process.stderr, 'export'));
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
