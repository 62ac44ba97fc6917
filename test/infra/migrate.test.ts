// `replay migrate` on a real data directory of the version before sealing (test/fixtures/v1-data-dir, made by that
// version's server): the server of this version serves it as it is, the migration leaves no personal text in clear
// in the log and no trace of what was deleted or edited away in DATA_DIR, and the migrated directory serves the same
// users, messages and sessions. A second migration changes nothing; a running server, shared engines and read models
// that disagree with the migrated log make it refuse.
import { once } from 'node:events';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteReadStore } from '../../infra/readStore/sqlite.js';
import { MESSAGES } from '../../projections/collections.js';
import { FIXTURE } from '../fixtures/v1-data-dir/contents.js';
import {
  type ServerProcess,
  callProcess,
  filesHolding,
  okFromProcess,
  replayIn,
  replayWith,
  startServerProcess,
  stopServerProcesses,
} from '../support/process.js';

const fixture = join(import.meta.dirname, '../fixtures/v1-data-dir');
const tokens = JSON.parse(readFileSync(join(fixture, 'tokens.json'), 'utf8')) as { ada: string; bob: string };
const { ada, bob, texts } = FIXTURE;
const AFTER_UPGRADE = 'sent after the upgrade, before the migration';
const EDITED_AFTER_UPGRADE = ['the guild message edited after the upgrade', 'the guild message edited twice after the upgrade'];
const directories: string[] = [];

function copyOfFixture(): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-migrate-'));
  directories.push(dir);
  for (const name of ['events.db', 'read-models.db', 'secret.key']) copyFileSync(join(fixture, name), join(dir, name));
  return dir;
}

/**
 * A copy of the fixture whose read models are caught up with its log, as a server of this version leaves them: the
 * fixture was written by an older version, without the projections added since.
 */
async function caughtUpFixture(): Promise<string> {
  const dir = copyOfFixture();
  const { code, stderr } = await replayIn(dir, 'rebuild');
  if (code !== 0) throw new Error(`replay rebuild failed: ${stderr}`);
  return dir;
}

const dataDir = copyOfFixture();
afterAll(async () => {
  await stopServerProcesses();
  for (const dir of directories) rmSync(dir, { recursive: true, force: true });
});

async function stop(server: ServerProcess): Promise<void> {
  const exited = once(server.child, 'exit');
  server.child.kill('SIGTERM');
  await exited;
}

/** What the server shows of the fixture: both accounts, the DM's messages and the guild channel's. */
async function served(server: ServerProcess) {
  const dm = (await okFromProcess(server, 'GET', '/users/@me/channels', tokens.ada)).find((channel: { type: number }) => channel.type === 1);
  const [guild] = await okFromProcess(server, 'GET', '/users/@me/guilds', tokens.ada);
  const general = (await okFromProcess(server, 'GET', `/guilds/${guild.id}/channels`, tokens.ada)).find((channel: { type: number }) => channel.type === 0);
  return {
    ada: await okFromProcess(server, 'GET', '/users/@me', tokens.ada),
    bob: await okFromProcess(server, 'GET', '/users/@me', tokens.bob),
    dm: await okFromProcess(server, 'GET', `/channels/${dm.id}/messages`, tokens.bob),
    guild: await okFromProcess(server, 'GET', `/channels/${general.id}/messages`, tokens.ada),
  };
}

async function logsIn(server: ServerProcess): Promise<void> {
  for (const login of [ada.username, ada.email])
    expect((await callProcess(server, 'POST', '/auth/login', undefined, { login, password: ada.password })).status).toBe(200);
  expect((await callProcess(server, 'POST', '/auth/login', undefined, { login: bob.username, password: bob.password })).status).toBe(200);
}

async function exported(): Promise<string> {
  const { code, stdout, stderr } = await replayIn(dataDir, 'export');
  expect(code, stderr).toBe(0);
  return stdout;
}

const migrationFiles = (dir: string) => readdirSync(dir).filter((name) => name.includes('migrating'));
const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const MIGRATED = /migrated (\d+) events: (\d+) sealed, (\d+) sealed already, (\d+) without personal data/;

let before: Awaited<ReturnType<typeof served>>;
let exportedBefore: ExportedEvent[];

interface ExportedEvent {
  id: string;
  type: string;
  data: any;
  schemaVersion: number;
  erased?: boolean;
}
const parsed = (log: string): ExportedEvent[] =>
  log
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
/** An exported event but for its data and how it is stored: id, stream, revision, position, type, metadata. */
const placeOf = ({ data: _, schemaVersion: __, erased: ___, ...place }: ExportedEvent) => place;

describe('replay migrate, on a data directory of the version before sealing', () => {
  it('is served as it is by this version: its events are read as they were written', async () => {
    const server = await startServerProcess(dataDir);
    const old = await served(server);
    expect(old.ada).toMatchObject({ username: ada.username, email: ada.email });
    expect(old.bob).toMatchObject({ username: bob.username });
    expect(old.dm.map((message: { content: string }) => message.content)).toEqual([texts.editedFinal, texts.kept]);
    expect(old.guild.map((message: { content: string }) => message.content)).toEqual([texts.guild]);
    await logsIn(server);
    // Sealed events in the old log: what this version wrote before the migration is copied as it is, and edits of an
    // old message keep their last version through it.
    await okFromProcess(server, 'POST', `/channels/${old.dm[0].channel_id}/messages`, tokens.bob, { content: AFTER_UPGRADE });
    for (const content of EDITED_AFTER_UPGRADE)
      await okFromProcess(server, 'PATCH', `/channels/${old.guild[0].channel_id}/messages/${old.guild[0].id}`, tokens.ada, { content });
    before = await served(server);
    expect(before.dm.map((message: { content: string }) => message.content)).toEqual([AFTER_UPGRADE, texts.editedFinal, texts.kept]);
    expect(before.guild.map((message: { content: string }) => message.content)).toEqual([EDITED_AFTER_UPGRADE[1]]);
    await stop(server);
    expect(await filesHolding(texts.kept, dataDir)).toContain('events.db');
    exportedBefore = parsed(await exported());
  }, 120_000);

  it('seals the log, destroys the keys of what it erased, and says what else to delete', async () => {
    // As docs/privacy.md's migration says: read models built by the earlier version are rebuilt first (they lack fields this
    // version's erasures find documents by), then the log is migrated.
    expect((await replayIn(dataDir, 'rebuild')).code).toBe(0);
    const { code, stderr } = await replayIn(dataDir, 'migrate');
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/migrate \[#{30}\] 100% \d+ events \d+ events\/s/);
    const [, events, sealed, sealedAlready] = MIGRATED.exec(stderr)!.map(Number);
    expect(sealed).toBeGreaterThan(10);
    expect(sealedAlready).toBeGreaterThanOrEqual(1);
    expect(events).toBeGreaterThan(sealed);
    expect(stderr).toContain(
      'every backup and copy of the old events.db (and events.db-wal) and of the old read-models.db, and every export (replay export) made before this migration',
    );
    expect(migrationFiles(dataDir)).toEqual([]);
    for (const text of [texts.kept, texts.editedFinal, AFTER_UPGRADE, EDITED_AFTER_UPGRADE[1], ada.username, ada.email, bob.username, bob.firstUsername]) {
      expect(
        (await filesHolding(text, dataDir)).filter((file) => file.startsWith('events.db')),
        text,
      ).toEqual([]);
    }
    // What was deleted or edited away before the upgrade: its keys are gone, and the read models were rebuilt.
    for (const text of [texts.deleted, texts.editedFirst, texts.editedSecond, texts.guild]) expect(await filesHolding(text, dataDir), text).toEqual([]);
  }, 120_000);

  it('serves the same users, messages and sessions afterwards, and exports only the live texts', async () => {
    const server = await startServerProcess(dataDir);
    expect(await served(server)).toEqual(before);
    await logsIn(server);
    const log = await exported();
    for (const text of [texts.kept, texts.editedFinal, AFTER_UPGRADE, EDITED_AFTER_UPGRADE[1], ada.email]) expect(log, text).toContain(text);
    for (const text of [texts.deleted, texts.editedFirst, texts.editedSecond, texts.guild, EDITED_AFTER_UPGRADE[0]]) expect(log, text).not.toContain(text);
    // The same events at the same places (the logins above came after), with the same data wherever the migration
    // erased nothing.
    const events = parsed(log).slice(0, exportedBefore.length);
    expect(events.map(placeOf)).toEqual(exportedBefore.map(placeOf));
    const kept = events.flatMap((event, i) => (event.erased ? [] : [[event.data, exportedBefore[i].data]]));
    expect(kept.length).toBeGreaterThan(events.length - 6);
    for (const [after, was] of kept) expect(after).toEqual(was);
    const deletion = events.find((event) => event.type === 'MessageDeleted')!;
    const deleted = events.find((event) => event.type === 'MessageCreated' && event.data.messageId === deletion.data.messageId);
    expect(deleted).toMatchObject({ erased: true, data: { message: { content: null } } });

    // A running server keeps the migration out, and nothing is touched.
    const refused = await replayIn(dataDir, 'migrate');
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toMatch(new RegExp(`^replay: a server is running on ${dataDir}: stop it first \\(.*a migration replaces its files\\)$`));
    expect(migrationFiles(dataDir)).toEqual([]);
    await stop(server);
  }, 120_000);

  it('a second time, copies the sealed log as it is', async () => {
    const first = await exported();
    const { code, stderr } = await replayIn(dataDir, 'migrate');
    expect(code, stderr).toBe(0);
    const [, events, sealed, sealedAlready, clear] = MIGRATED.exec(stderr)!.map(Number);
    expect({ sealed, copied: sealedAlready + clear }).toEqual({ sealed: 0, copied: events });
    expect(await exported()).toBe(first);
    const server = await startServerProcess(dataDir);
    expect(await served(server)).toEqual(before);
    await stop(server);
  }, 120_000);
});

describe('replay migrate refuses', () => {
  it('shared engines, in one line that says why', async () => {
    const { code, stderr } = await replayWith({ STORE: 'esdb', ESDB_URL: 'esdb://127.0.0.1:19101?tls=false', SECRET_KEY: 'x'.repeat(32) }, dataDir, 'migrate');
    expect(code).toBe(1);
    expect(stderr.trim()).toMatch(
      /^replay: migrate rewrites only the embedded engines \(DATA_DIR\/events\.db and read-models\.db\): EventStoreDB and MongoDB are shared with running processes[^\n]*$/,
    );
  });

  it('to replace anything when the read models rebuilt from the migrated log differ from the current ones', async () => {
    const dir = await caughtUpFixture();
    const reads = new SqliteReadStore(join(dir, 'read-models.db'));
    const [message] = await reads.find(MESSAGES, {}, { limit: 1 });
    await reads.bulkWrite([{ deleteOne: { collection: MESSAGES, filter: { _id: message._id } } }]);
    await reads.close();
    const { code, stderr } = await untouchedBy(dir, 'migrate');
    expect(code).toBe(1);
    expect(stderr.trim()).toMatch(/^replay: the read models rebuilt from the migrated log differ from the current ones in messages: nothing was replaced/m);
  }, 120_000);

  it('while the read models are behind the log, which a comparison with a rebuild could not judge', async () => {
    const dir = await caughtUpFixture();
    const reads = new SqliteReadStore(join(dir, 'read-models.db'));
    await reads.bulkWrite([], [{ projection: 'messages', position: { commit: 3n, prepare: 3n } }]);
    await reads.close();
    const { code, stderr } = await untouchedBy(dir, 'migrate');
    expect(code).toBe(1);
    expect(stderr.trim()).toMatch(
      /^replay: the read models are behind the log \(messages at 3 of \d+\): start the server once so that they catch up, stop it, then migrate$/,
    );
  }, 120_000);
});

/** The replay tool's answer, once it is checked to have left the log and the read models as they were. */
async function untouchedBy(dir: string, ...args: string[]): Promise<Awaited<ReturnType<typeof replayIn>>> {
  const files = ['events.db', 'read-models.db'].map((name) => join(dir, name));
  const digests = files.map(digest);
  const answer = await replayIn(dir, ...args);
  expect(files.map(digest)).toEqual(digests);
  expect(migrationFiles(dir)).toEqual([]);
  return answer;
}
