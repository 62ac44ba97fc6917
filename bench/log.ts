// The bench's long log, run by bench/run.ts in a process of its own on a stopped server's DATA_DIR:
//   tsx bench/log.ts grow DATA_DIR N   appends copies of the log's last MessageCreated (new ids, one stream each,
//                                      spread over the same channel) until the log holds N events;
//   tsx bench/log.ts rebuild DATA_DIR  empties every read model and projects the whole log again (the replay tool's
//                                      code path), printing {"events":…,"seconds":…} on stdout.
// Growing goes through the event store's own appends, group-committed as the server's are.
import { join } from 'node:path';
import { SqliteEventStore } from '../infra/eventStore/sqlite.js';
import { SqliteReadStore } from '../infra/readStore/sqlite.js';
import { ProgressBar, rebuildReadModels } from '../infra/replay.js';
import { allProjections } from '../projections/index.js';

const BATCH = 5000;

async function grow(dir: string, target: number): Promise<void> {
  const store = new SqliteEventStore(join(dir, 'events.db'));
  const head = await store.headPosition();
  const recent = await store.readAll({ direction: 'backwards', maxCount: 1000 });
  const template = recent.find((event) => event.type === 'MessageCreated');
  if (!head || !template) throw new Error('the log has no MessageCreated to copy');
  const data = template.data as { messageId: string; message: { id: string } };
  let next = BigInt(data.messageId) + 1_000_000n;
  for (let have = Number(head.commit); have < target; ) {
    const count = Math.min(BATCH, target - have);
    const appends = Array.from({ length: count }, () => {
      const id = String((next += 1n));
      const copy = { ...data, messageId: id, message: { ...data.message, id } };
      return store.appendToStream(`message-${id}`, [{ type: 'MessageCreated', data: copy, metadata: template.metadata }], { expectedRevision: 'no_stream' });
    });
    await Promise.all(appends);
    have += count;
  }
  await store.close();
}

async function rebuild(dir: string): Promise<void> {
  const store = new SqliteEventStore(join(dir, 'events.db'));
  const readStore = new SqliteReadStore(join(dir, 'read-models.db'));
  const started = performance.now();
  const events = await rebuildReadModels(store, readStore, allProjections, new ProgressBar(process.stderr, 'rebuild'));
  const seconds = (performance.now() - started) / 1000;
  await readStore.close();
  await store.close();
  process.stdout.write(`${JSON.stringify({ events, seconds })}\n`);
}

const [command, dir, size] = process.argv.slice(2);
if (command === 'grow') await grow(dir, Number(size));
else if (command === 'rebuild') await rebuild(dir);
else throw new Error('usage: tsx bench/log.ts grow DATA_DIR N | rebuild DATA_DIR');
