// The bench's long log, run by bench/run.ts in a process of its own on a stopped server's DATA_DIR:
//   tsx bench/log.ts grow DATA_DIR N   appends copies of the log's last MessageCreated (new ids, one stream each,
//                                      in the same channel) until the log holds N events, in SQL;
//   tsx bench/log.ts rebuild DATA_DIR  empties every read model and projects the whole log again (the replay tool's
//                                      code path), printing {"events":…,"seconds":…,"cpuSeconds":…} on stdout (the
//                                      CPU time of the process over the same span: on a loaded machine, the figure
//                                      that other processes disturb least);
//   tsx bench/log.ts read DATA_DIR     reads the whole log as a server's followers read it (the sealing store's
//                                      catch-up subscription: its pages fetched and parsed, sealed fields opened when
//                                      read) and does nothing with it. The rebuild reads ahead on a thread of its own
//                                      (infra/eventStore/readAhead.ts), as the replay tool's does.
//   tsx bench/log.ts consume DATA_DIR N  after a rebuild: the log's last N events handed, through the bus port, to
//                                      the gateway projector of a distributed gateway node (its read-your-writes waits
//                                      on the checkpoints in the read store, as RemoteProjections reads them), with no
//                                      session connected: the consumer's own cost per event, printed as above.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ReadAheadLog } from '../infra/eventStore/readAhead.js';
import { SqliteEventStore } from '../infra/eventStore/sqlite.js';
import { SqliteReadStore } from '../infra/readStore/sqlite.js';
import { ProgressBar, rebuildReadModels } from '../infra/replayTools.js';
import { KEY_FILES, openEmbeddedLog } from '../infra/roles.js';
import { FileBlobStore } from '../infra/blobs/files.js';
import { loadConfig } from '../infra/config.js';
import { loadEngineConfig } from '../infra/engines.js';
import { createLogger } from '../infra/logger.js';
import { PrometheusMetrics } from '../infra/metrics.js';
import { RemoteProjections } from '../infra/remoteProjections.js';
import { assembleRuntime } from '../infra/runtime.js';
import { SecretBox } from '../infra/secrets.js';
import { GatewayProjector } from '../gateway/projector.js';
import { Presences } from '../gateway/presence.js';
import { SessionRegistry } from '../gateway/registry.js';
import { channelVisibility } from '../gateway/visibility.js';
import type { EventBus } from '../ports/bus.js';
import { comparePositions } from '../ports/eventStore.js';
import { LocalHintBus } from '../ports/hints.js';
import { allProjections } from '../projections/index.js';
import { SqliteLeases } from '../infra/leases/sqlite.js';
import { MemoryRateLimits } from '../infra/rateLimits/counters.js';

const BATCH = 50_000;

/** What the modes print: events, and the wall-clock and CPU seconds they took from `started` (the same span). */
function timed(events: number, started: { at: number; cpu: NodeJS.CpuUsage }): string {
  const cpu = process.cpuUsage(started.cpu);
  return `${JSON.stringify({ events, seconds: (performance.now() - started.at) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6 })}\n`;
}

const start = () => ({ at: performance.now(), cpu: process.cpuUsage() });

async function grow(dir: string, target: number): Promise<void> {
  // The store creates the log's schema and checks there is a message to copy; the copies are made in SQL, a
  // transaction of BATCH rows at a time, as fast as SQLite goes: the bench times the rebuild, not the growing.
  const store = new SqliteEventStore(join(dir, 'events.db'));
  const head = await store.headPosition();
  const recent = await store.readAll({ direction: 'backwards', maxCount: 1000 });
  await store.close();
  const template = recent.find((event) => event.type === 'MessageCreated');
  if (!head || !template) throw new Error('the log has no MessageCreated to copy');
  const db = new Database(join(dir, 'events.db'));
  db.pragma('journal_mode = WAL');
  const copy = db.prepare(`
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
    INSERT INTO events (stream_id, revision, id, type, data, metadata, schema_version)
    SELECT 'message-' || (? + i), 0, lower(hex(randomblob(16))), type,
           json_set(data, '$.messageId', CAST(? + i AS TEXT), '$.message.id', CAST(? + i AS TEXT)), metadata, schema_version
    FROM n, events WHERE events.position = ?`);
  let next = BigInt((template.data as { messageId: string }).messageId) + 1_000_000n;
  for (let have = Number(head.commit); have < target;) {
    const count = Math.min(BATCH, target - have);
    copy.run(count, next, next, next, Number(template.position.commit));
    next += BigInt(count);
    have += count;
  }
  db.close();
}

async function rebuild(dir: string): Promise<void> {
  const store = await openEmbeddedLog(dir);
  const readStore = new SqliteReadStore(join(dir, 'read-models.db'));
  const started = start();
  // As the replay tool's rebuild reads the embedded log: on a read-ahead thread.
  const log = new ReadAheadLog(store, { dataDir: dir, ...KEY_FILES });
  const events = await rebuildReadModels(log, readStore, allProjections, new ProgressBar(process.stderr, 'rebuild'));
  const took = timed(events, started);
  await readStore.close();
  await store.close();
  process.stdout.write(took);
}

async function read(dir: string): Promise<void> {
  const store = await openEmbeddedLog(dir);
  let events = 0;
  const started = start();
  const subscription = store.subscribeToAll({}, async (batch) => {
    events += batch.length;
  });
  await subscription.caughtUp();
  const took = timed(events, started);
  await subscription.stop();
  await store.close();
  process.stdout.write(took);
}

async function consume(dir: string, count: number): Promise<void> {
  const env = { ...process.env, DATA_DIR: dir };
  const config = loadConfig(env);
  const engines = loadEngineConfig(env);
  const log = createLogger('warn');
  const store = await openEmbeddedLog(dir);
  const readStore = new SqliteReadStore(join(dir, 'read-models.db'));
  const head = await store.headPosition();
  if (!head) throw new Error('the log is empty');
  // The embedded log's positions are its row numbers: the last N events follow head - N.
  const skip = head.commit - BigInt(Math.min(count, Number(head.commit)));
  const from = skip > 0n ? { commit: skip, prepare: skip } : undefined;
  let events = 0;
  let caughtUp!: () => void;
  const done = new Promise<void>((resolve) => (caughtUp = resolve));
  // The whole log, a batch at a time, through the port the Kafka bus serves a gateway node by.
  const bus: EventBus = {
    hints: new LocalHintBus(),
    consume: async (_group, _options, handler, onError) => {
      const subscription = store.subscribeToAll(
        { fromPosition: from },
        async (batch) => {
          await handler(batch);
          events += batch.length;
          if (comparePositions(batch[batch.length - 1].position, head) >= 0) caughtUp();
        },
        onError,
      );
      return { stop: () => subscription.stop() };
    },
    reachable: async () => {},
    close: async () => {},
  };
  const projections = new RemoteProjections(store, readStore, allProjections, engines.settleTimeoutMs, log);
  const secrets = await SecretBox.load(null, join(dir, 'secret.key'));
  const leases = new SqliteLeases(join(dir, 'leases.db'));
  const opened = { store, readStore, blobs: new FileBlobStore(join(dir, 'blobs')), bus, leases, rateLimits: new MemoryRateLimits() };
  const runtime = assembleRuntime(config, log, engines, opened, secrets, projections, new PrometheusMetrics(), {}, 1);
  const projector = new GatewayProjector(runtime, new SessionRegistry(channelVisibility(runtime)), new Presences(bus.hints, async () => {}, log));
  const started = start();
  await projector.start();
  await done;
  const took = timed(events, started);
  await projector.stop();
  await projections.stop();
  await readStore.close();
  await leases.close();
  await store.close();
  process.stdout.write(took);
}

const [command, dir, size] = process.argv.slice(2);
if (command === 'grow') await grow(dir, Number(size));
else if (command === 'rebuild') await rebuild(dir);
else if (command === 'read') await read(dir);
else if (command === 'consume') await consume(dir, Number(size));
else throw new Error('usage: tsx bench/log.ts grow DATA_DIR N | rebuild DATA_DIR | read DATA_DIR | consume DATA_DIR N');
