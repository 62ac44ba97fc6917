// `npm run replay -- migrate`: rewrites the embedded log of a data directory written before personal fields were
// sealed into the sealed form, offline (docs/privacy.md). Every event is appended again, in order, to a new log beside
// the old one (events.db.migrating) with its id, stream, revision, type, metadata and position: events of schema
// version 1 through the sealing store, which seals their personal fields with keys in keys.db; sealed ones as they
// are, so a second run changes nothing. The key shredder then follows the new log from its start, so the erasures the
// old log recorded (deleted messages, edits, deleted channels and guilds, erased accounts) destroy the keys the
// migration just made: a message deleted before the upgrade is unreadable in the new log too. The read models rebuilt
// from the new log must equal the current ones; only then are the old log and read models replaced, by renames.
import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import Database from 'better-sqlite3';
import { type AppendResult, type EventStore, type RecordedEvent, comparePositions } from '../ports/eventStore.js';
import { type KeyStore, SEALED_SCHEMA } from '../ports/keyStore.js';
import type { ReadStore } from '../ports/readStore.js';
import { KeyShredder } from '../processes/keyShredding.js';
import { allProjections } from '../projections/index.js';
import { SealingEventStore } from './eventStore/sealing.js';
import { SqliteEventStore } from './eventStore/sqlite.js';
import { SqliteReadStore } from './readStore/sqlite.js';
import { ProgressBar, pagesOfLog, rebuildReadModels, shareOf, snapshotReadModels } from './replayTools.js';

const MIGRATING = '.migrating';

/** The engines on DATA_DIR's current files, as the replay tool opens them. */
export interface CurrentEngines {
  store: SealingEventStore;
  keys: KeyStore;
  readStore: ReadStore;
  close(): Promise<void>;
}

export interface Migration {
  events: number;
  /** Events of schema version 1 whose personal fields the migration sealed. */
  sealed: number;
  /** Events sealed already (written since the upgrade, or by an earlier migration), copied as they are. */
  alreadySealed: number;
  /** Events with no personal fields, copied as they are. */
  withoutPersonalData: number;
}

/** Migrates DATA_DIR's log and read models (the caller holds DATA_DIR's lock), with progress lines on `out`. */
export async function migrateDataDir(dataDir: string, scrubAfterMs: number, open: () => Promise<CurrentEngines>, out: NodeJS.WriteStream): Promise<Migration> {
  const log = join(dataDir, 'events.db');
  const readModels = join(dataDir, 'read-models.db');
  // What a migration that stopped halfway left: never used, so dropped.
  for (const file of [log, readModels]) removeDatabase(`${file}${MIGRATING}`);
  const current = await open();
  let next: { log: SqliteEventStore; readStore: SqliteReadStore } | null = null;
  const closeAll = () => Promise.all([next?.log.close(), next?.readStore.close(), current.close()]);
  let migration: Migration;
  try {
    await requireCaughtUp(current);
    next = { log: new SqliteEventStore(`${log}${MIGRATING}`), readStore: new SqliteReadStore(`${readModels}${MIGRATING}`, scrubAfterMs) };
    const handOver = announcingAppends(next.log);
    const sealing = new SealingEventStore(handOver.store, current.keys);
    migration = await copyLog(current.store, sealing, handOver, new ProgressBar(out, 'migrate'));
    await shredFromStart(next.log, current.keys, join(dataDir, 'keys.db'));
    await rebuildReadModels(sealing, next.readStore, allProjections, new ProgressBar(out, 'rebuild'));
    const [before, after] = [await snapshotReadModels(current.readStore, allProjections), await snapshotReadModels(next.readStore, allProjections)];
    const differing = Object.keys(before).filter((collection) => !isDeepStrictEqual(before[collection], after[collection]));
    if (differing.length > 0) {
      throw new Error(
        `the read models rebuilt from the migrated log differ from the current ones in ${differing.join(', ')}: nothing was replaced ` +
          '(read models built by an earlier version may differ: `replay rebuild` them first, then migrate)',
      );
    }
  } catch (error) {
    await closeAll();
    for (const file of [log, readModels]) removeDatabase(`${file}${MIGRATING}`);
    throw error;
  }
  await closeAll();
  for (const file of [log, readModels]) replaceDatabase(file);
  fsyncDirectory(dataDir);
  return migration;
}

/** The current read models must hold the whole log, or comparing them with a rebuild says nothing. */
async function requireCaughtUp({ store, readStore }: CurrentEngines): Promise<void> {
  const head = await store.headPosition();
  if (!head) return;
  for (const projection of allProjections) {
    const done = await readStore.getCheckpoint(projection.name);
    if (!done || comparePositions(done, head) < 0) {
      throw new Error(
        `the read models are behind the log (${projection.name} at ${done?.commit ?? 0} of ${head.commit}): start the server once so that they catch up, stop it, then migrate`,
      );
    }
  }
}

/**
 * The new log, saying when an append reaches it: each event is sealed and handed over before the next one is, so the
 * appends keep the old log's order (sealing takes a varying number of steps) while a page of them shares one commit.
 */
function announcingAppends(log: EventStore): { store: EventStore; nextAppend(): Promise<void> } {
  let announce = () => {};
  const store = new Proxy(log, {
    get(target, property) {
      if (property === 'appendToStream') {
        return (...args: Parameters<EventStore['appendToStream']>) => {
          const appended = target.appendToStream(...args);
          announce();
          return appended;
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store, nextAppend: () => new Promise<void>((resolve) => (announce = resolve)) };
}

async function copyLog(
  from: SealingEventStore,
  sealing: SealingEventStore,
  handOver: ReturnType<typeof announcingAppends>,
  progress: ProgressBar,
): Promise<Migration> {
  const head = await from.sealedLog.headPosition();
  const migration: Migration = { events: 0, sealed: 0, alreadySealed: 0, withoutPersonalData: 0 };
  for await (const page of pagesOfLog(from.sealedLog, undefined)) {
    const appends: Promise<AppendResult>[] = [];
    for (const event of page) {
      const reached = handOver.nextAppend();
      const to = event.schemaVersion >= SEALED_SCHEMA ? handOver.store : sealing;
      const { id, type, data, metadata, schemaVersion } = event;
      // The expected revision keeps each event at its revision: the new log refuses any other.
      appends.push(
        to.appendToStream(event.streamId, [{ id, type, data, metadata, schemaVersion }], {
          expectedRevision: event.revision === 0n ? 'no_stream' : event.revision - 1n,
        }),
      );
      const failed = await Promise.race([reached, appends[appends.length - 1]]).then(
        () => false,
        () => true,
      );
      if (failed) break;
    }
    const outcomes = await Promise.allSettled(appends);
    const refused = outcomes.find((outcome) => outcome.status === 'rejected');
    if (refused) throw new Error(`the migrated log refused an event: ${String((refused as PromiseRejectedResult).reason)}`);
    const written = await handOver.store.readAll({ fromPosition: page[0].position, maxCount: page.length });
    await requireSame(page, written, from, sealing);
    for (const [i, event] of page.entries()) {
      if (event.schemaVersion >= SEALED_SCHEMA) migration.alreadySealed += 1;
      else if (written[i].schemaVersion >= SEALED_SCHEMA) migration.sealed += 1;
      else migration.withoutPersonalData += 1;
    }
    migration.events += page.length;
    progress.update(shareOf(page[page.length - 1].position, head), migration.events);
  }
  progress.update(1, migration.events, true);
  return migration;
}

/** Each event of the new log is the old one at the same place, and opens to the same data and metadata. */
async function requireSame(old: RecordedEvent[], written: RecordedEvent[], from: SealingEventStore, sealing: SealingEventStore): Promise<void> {
  const [before, after] = [await from.open(old), await sealing.open(written)];
  old.forEach((event, i) => {
    const copy = written[i];
    const differs = !copy
      ? 'missing'
      : copy.position.commit !== event.position.commit
        ? `at position ${copy.position.commit}`
        : copy.id !== event.id || copy.streamId !== event.streamId || copy.revision !== event.revision || copy.type !== event.type
          ? `as ${copy.id} ${copy.streamId}@${copy.revision} ${copy.type}`
          : JSON.stringify(after[i].data) !== JSON.stringify(before[i].data) || JSON.stringify(after[i].metadata) !== JSON.stringify(before[i].metadata)
            ? 'opening to other data'
            : null;
    if (differs)
      throw new Error(
        `event ${event.id} (${event.streamId}@${event.revision} ${event.type}, position ${event.position.commit}) came out ${differs} in the migrated log: nothing was replaced`,
      );
  });
}

/**
 * Follows the whole new log with the key shredder, from its start: it learns the owners of the keys the migration
 * made and destroys those of subjects the log erased. It starts knowing no owners, and learns them again in log
 * order: an edit's erasure spares only its own key, so replayed with owners known from later in the log, it would
 * take the later versions' keys too.
 */
async function shredFromStart(log: EventStore, keys: KeyStore, keysFile: string): Promise<void> {
  forgetOwners(keysFile);
  let failure: unknown = null;
  const shredder = new KeyShredder(log, keys, (error) => (failure = error));
  await shredder.start();
  await shredder.caughtUp();
  await shredder.stop();
  if (failure) throw failure;
}

/**
 * The shredder's knowledge in keys.db (owners and checkpoint, all learnt from the log) forgotten, so it starts again
 * from the log's start. The KeyStore port has no such operation: this is infra/keys/sqlite.ts's schema, the key store
 * of the embedded engines, the only ones migrate runs on.
 */
function forgetOwners(keysFile: string): void {
  const db = new Database(keysFile, { timeout: 5000 });
  try {
    db.transaction(() => db.exec("DELETE FROM owners; DELETE FROM progress WHERE name = 'shredder'"))();
  } finally {
    db.close();
  }
}

/** Puts the migrated database in the place of `file`: its WAL checkpointed into it first, the old one's WAL removed. */
function replaceDatabase(file: string): void {
  const migrated = `${file}${MIGRATING}`;
  const db = new Database(migrated);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  if (existsSync(`${migrated}-wal`)) throw new Error(`${migrated}-wal is left after its checkpoint: nothing more was replaced`);
  // An old WAL beside the new file would be replayed into it.
  for (const suffix of ['-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  renameSync(migrated, file);
}

function removeDatabase(file: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
}

/** The renames are on disk once the directory is. */
function fsyncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
