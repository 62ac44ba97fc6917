// The bench's long log, run by bench/run.ts in a process of its own on a stopped server's DATA_DIR:
//   tsx bench/log.ts grow DATA_DIR N   appends copies of the log's last MessageCreated (new ids, one stream each,
//                                      in the same channel) until the log holds N events, in SQL;
//   tsx bench/log.ts rebuild DATA_DIR  empties every read model and projects the whole log again (the replay tool's
//                                      code path), printing {"events":…,"seconds":…} on stdout;
//   tsx bench/log.ts read DATA_DIR     reads the whole log as the rebuild does (the same catch-up subscription: its
//                                      pages fetched, parsed and opened) and does nothing with it: the rebuild's own
//                                      ceiling.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteEventStore } from '../infra/eventStore/sqlite.js';
import { SqliteReadStore } from '../infra/readStore/sqlite.js';
import { ProgressBar, rebuildReadModels } from '../infra/replayTools.js';
import { openEmbeddedLog } from '../infra/roles.js';
import { allProjections } from '../projections/index.js';

const BATCH = 50_000;

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
  const started = performance.now();
  const events = await rebuildReadModels(store, readStore, allProjections, new ProgressBar(process.stderr, 'rebuild'));
  const seconds = (performance.now() - started) / 1000;
  await readStore.close();
  await store.close();
  process.stdout.write(`${JSON.stringify({ events, seconds })}\n`);
}

async function read(dir: string): Promise<void> {
  const store = await openEmbeddedLog(dir);
  let events = 0;
  const started = performance.now();
  const subscription = store.subscribeToAll({}, async (batch) => {
    events += batch.length;
  });
  await subscription.caughtUp();
  const seconds = (performance.now() - started) / 1000;
  await subscription.stop();
  await store.close();
  process.stdout.write(`${JSON.stringify({ events, seconds })}\n`);
}

const [command, dir, size] = process.argv.slice(2);
if (command === 'grow') await grow(dir, Number(size));
else if (command === 'rebuild') await rebuild(dir);
else if (command === 'read') await read(dir);
else throw new Error('usage: tsx bench/log.ts grow DATA_DIR N | rebuild DATA_DIR | read DATA_DIR');
