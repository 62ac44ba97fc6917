// The replay tool, for real: the CLI runs as its own process on the embedded store of a service that handled real
// HTTP requests, and its rebuild must give back exactly the read models incremental processing built.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventFromJson } from '../../infra/eventStore/json.js';
import { type RecordedEvent, encodePosition } from '../../ports/eventStore.js';
import { SqliteEventStore } from '../../infra/eventStore/sqlite.js';
import { holdForRebuild } from '../../infra/dataDirLock.js';
import { ProgressBar } from '../../infra/replayTools.js';
import { openEmbeddedLog } from '../../infra/roles.js';
import { SqliteReadStore } from '../../infra/readStore/sqlite.js';
import { allProjections } from '../../projections/index.js';
import { killServerProcess, replayIn, startServerProcess, stopServerProcesses } from '../support/process.js';
import { createBot, registerUser, startTestServer, uniqueName } from '../support/server.js';

const root = join(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'parley-replay-'));
let log: RecordedEvent[];
let incremental: Record<string, unknown[]>;

async function snapshot(): Promise<Record<string, unknown[]>> {
  const reads = new SqliteReadStore(join(dataDir, 'read-models.db'));
  const all: Record<string, unknown[]> = {};
  for (const collection of allProjections.flatMap((p) => p.collections)) all[collection] = await reads.find(collection, {}, { sort: { _id: 1 } });
  await reads.close();
  return all;
}

async function spoil(collections: string[]): Promise<void> {
  const reads = new SqliteReadStore(join(dataDir, 'read-models.db'));
  await reads.bulkWrite(collections.map((collection) => ({ deleteMany: { collection, filter: {} } })));
  await reads.close();
}

function replay(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return replayIn(dataDir, ...args);
}

beforeAll(async () => {
  const server = await startTestServer({}, dataDir);
  const owner = await registerUser(server);
  await registerUser(server);
  await createBot(server, owner);
  const renamed = await server.api('PATCH', '/users/@me', { token: owner.token, body: { username: `${owner.username}r` } });
  expect(renamed.status).toBe(200);
  await server.close();
  incremental = await snapshot();
  // The log as its readers see it: personal fields opened (the export writes them so, while their keys exist).
  const store = await openEmbeddedLog(dataDir);
  log = await store.readAll({ maxCount: 100_000 });
  await store.close();
});
afterAll(async () => {
  await stopServerProcesses();
  rmSync(dataDir, { recursive: true, force: true });
});

const PROGRESS = (label: string) => new RegExp(`${label} \\[#{30}\\] 100% \\d+ events \\d+ events/s`);

describe('replay rebuild', () => {
  it('rebuilds every read model from the log to exactly what incremental processing built, with progress and events/s', async () => {
    expect(incremental.users.length).toBeGreaterThanOrEqual(3);
    await spoil(allProjections.flatMap((p) => p.collections));
    const { code, stderr } = await replay('rebuild');
    expect(code).toBe(0);
    expect(stderr).toMatch(PROGRESS('rebuild'));
    expect(stderr).toContain(`rebuilt ${allProjections.map((p) => p.name).join(', ')} from ${log.length} events`);
    expect(await snapshot()).toEqual(incremental);
  });

  it('rebuilds only the projections named', async () => {
    const users = allProjections.find((p) => p.name === 'users')!;
    const others = allProjections.filter((p) => p !== users).flatMap((p) => p.collections);
    await spoil([...users.collections, ...others]);
    const { code } = await replay('rebuild', '--projections', 'users');
    expect(code).toBe(0);
    const after = await snapshot();
    for (const collection of users.collections) expect(after[collection]).toEqual(incremental[collection]);
    for (const collection of others) expect(after[collection]).toEqual([]);
    expect((await replay('rebuild')).code).toBe(0);
  });

  it('refuses an unknown projection in one line', async () => {
    const { code, stderr } = await replay('rebuild', '--projections', 'nope');
    expect(code).toBe(1);
    expect(stderr.trim()).toMatch(/^replay: PROJECTIONS names unknown projections: nope \(known: .*\)$/);
  });

  it('rebuilds and erases only while no server runs on DATA_DIR, and once that server was killed', async () => {
    const server = await startServerProcess(dataDir);
    const refused = await replay('rebuild');
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      `replay: a server is running on ${dataDir}: stop it first (a rebuild empties the read models the server reads and projects into; an erasure changes what it keeps in memory; a migration replaces its files)`,
    );
    const erase = await replay('erase', '--user', '1');
    expect({ code: erase.code, stderr: erase.stderr.trim() }).toEqual({ code: 1, stderr: refused.stderr.trim() });
    expect(await snapshot()).toEqual(incremental);
    // SIGKILL runs no shutdown code: what the server held must go with its process.
    await killServerProcess(server.child);
    const { code, stderr } = await replay('rebuild');
    expect(code, stderr).toBe(0);
    expect(await snapshot()).toEqual(incremental);
  });

  it('keeps a server from starting on DATA_DIR while it rebuilds', async () => {
    const rebuilding = holdForRebuild(dataDir);
    try {
      await expect(startServerProcess(dataDir)).rejects.toThrow(
        `the replay tool is rebuilding the read models in ${dataDir}: start the server once the rebuild is done`,
      );
    } finally {
      rebuilding.release();
    }
  });
});

describe('replay export', () => {
  it('writes the whole log as NDJSON, event for event', async () => {
    const { code, stdout, stderr } = await replay('export');
    expect(code).toBe(0);
    expect(stdout.trim().split('\n').map(eventFromJson)).toEqual(log);
    expect(stderr).toMatch(PROGRESS('export'));
    expect(stderr).toContain(`exported ${log.length} events`);
  });

  it('as docs/distributed.md runs it: every line of the file is an event', async () => {
    const page = readFileSync(join(root, 'docs', 'distributed.md'), 'utf8');
    const command = /^(npm run .*export > log\.ndjson)\s/m.exec(page)?.[1];
    expect(command).toBeDefined();
    const out = join(dataDir, 'log.ndjson');
    await promisify(execFile)('bash', ['-e', '-c', command!.replace('log.ndjson', out)], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir },
    });
    const lines = readFileSync(out, 'utf8').trimEnd().split('\n');
    expect(lines.map((line) => eventFromJson(line))).toEqual(log);
  });

  it('from a position (inclusive), and to a file', async () => {
    const middle = Math.floor(log.length / 2);
    const out = join(dataDir, 'export.ndjson');
    const { code } = await replay('export', '--from', encodePosition(log[middle].position), '--out', out);
    expect(code).toBe(0);
    expect(readFileSync(out, 'utf8').trim().split('\n').map(eventFromJson)).toEqual(log.slice(middle));
  });

  it('one stream only', async () => {
    const streamId = log[log.length - 1].streamId;
    const { code, stdout } = await replay('export', '--stream', streamId);
    expect(code).toBe(0);
    const expected = log.filter((e) => e.streamId === streamId);
    expect(expected.length).toBeGreaterThan(0);
    expect(stdout.trim().split('\n').map(eventFromJson)).toEqual(expected);
  });

  it('refuses a stream the log does not have, writing nothing', async () => {
    const out = join(dataDir, 'none.ndjson');
    const { code, stdout, stderr } = await replay('export', '--stream', 'user-0', '--out', out);
    expect(code).toBe(1);
    expect(stderr.trim()).toBe('replay: the log has no stream user-0');
    expect(stdout).toBe('');
    expect(existsSync(out)).toBe(false);
  });

  it('without a command says how to use it', async () => {
    const { code, stderr } = await replay();
    expect(code).toBe(1);
    expect(stderr.trim()).toMatch(/^replay: usage: replay rebuild/);
  });
});

describe('replay itself', () => {
  it.each(['--help', '-h'])('%s prints the commands, options and environment, and exits 0', async (flag) => {
    const { code, stdout, stderr } = await replay(flag);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^usage: replay rebuild/);
    for (const word of [
      'Commands:',
      'rebuild',
      'export',
      'Options:',
      '--projections',
      '--stream',
      '--from',
      '--out',
      'Environment:',
      'DATA_DIR',
      'npm run -s replay',
    ])
      expect(stdout).toContain(word);
  });

  it('refuses an option it does not know, pointing at --help', async () => {
    const { code, stderr } = await replay('export', '--nope');
    expect(code).toBe(1);
    expect(stderr.trim()).toBe("replay: Unknown option '--nope': --help lists the options");
  });

  it.each(['export', 'rebuild'])('%s refuses a DATA_DIR that holds no event log, and creates nothing', async (command) => {
    const empty = mkdtempSync(join(tmpdir(), 'parley-replay-empty-'));
    const missing = join(empty, 'data');
    try {
      for (const directory of [empty, missing]) {
        const { code, stdout, stderr } = await replayIn(directory, command);
        expect(code).toBe(1);
        expect(stdout).toBe('');
        expect(stderr.trim()).toBe(`replay: ${directory} holds no event log (events.db): set DATA_DIR to the data directory of the server whose log to read`);
      }
      expect(readdirSync(empty)).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('progress bar', () => {
  it('shows the share done and the rate', () => {
    const bar = new ProgressBar(process.stderr, 'rebuild');
    const line = bar.render(0.5, 1000, Date.now() + 2000);
    expect(line).toMatch(/^rebuild \[#{15}-{15}\] 50% 1000 events (49\d|50\d) events\/s$/);
    expect(bar.render(1.7, 10)).toContain('[##############################] 100%');
  });
});

describe('replay erase', () => {
  const username = uniqueName('erased');
  const email = `${username}@example.com`;
  let ada: { id: string; token: string };
  let owner: { id: string; token: string };
  let channelId: string;
  let messageId: string;

  const head = async () => {
    const store = new SqliteEventStore(join(dataDir, 'events.db'));
    const position = await store.headPosition();
    await store.close();
    return position;
  };

  beforeAll(async () => {
    const server = await startTestServer({}, dataDir);
    const registered = await server.api('POST', '/auth/register', { body: { username, password: 'correct horse battery', email } });
    ada = { id: registered.body.user_id, token: registered.body.token };
    owner = await registerUser(server);
    const guild = await server.api('POST', '/guilds', { token: owner.token, body: { name: 'Erasure guild' } });
    channelId = guild.body.system_channel_id;
    const invite = await server.api('POST', `/guilds/${guild.body.id}/invites`, { token: owner.token, body: {} });
    const joined = await server.api('POST', `/invites/${invite.body.code}`, { token: ada.token });
    expect(joined.status, `${invite.text} ${joined.text}`).toBe(200);
    messageId = (await server.api('POST', `/channels/${channelId}/messages`, { token: ada.token, body: { content: 'hi' } })).body.id;
    // One account deleted by its owner too, so that the rebuild below replays both kinds of erasure.
    const other = await registerUser(server);
    expect((await server.api('POST', '/users/@me/delete', { token: other.token, body: { password: 'correct horse battery' } })).status).toBe(204);
    await server.close();
  });

  it('refuses an id that names no user, appending nothing', async () => {
    const before = await head();
    const { code, stderr } = await replay('erase', '--user', '123');
    expect(code).toBe(1);
    expect(stderr.trim()).toBe('replay: no user has the id 123');
    expect(await head()).toEqual(before);
  });

  it('deletes any account without its password, a progress line per step, with the result the route gives', async () => {
    const { code, stderr } = await replay('erase', '--user', ada.id);
    expect(code).toBe(0);
    expect(stderr).toContain(`erase ${ada.id}: left 1 guild(s)`);
    expect(stderr).toContain(`erase ${ada.id}: erased the account: its sessions and tokens are revoked`);

    const server = await startTestServer({}, dataDir);
    try {
      expect((await server.api('GET', '/users/@me', { token: ada.token })).status).toBe(401);
      expect((await server.api('GET', `/users/${ada.id}`)).body).toMatchObject({ id: ada.id, username: 'Deleted User', discriminator: '0000', avatar: null });
      const message = await server.api('GET', `/channels/${channelId}/messages/${messageId}`, { token: owner.token });
      expect(message.body).toMatchObject({ content: 'hi', author: { id: ada.id, username: 'Deleted User' } });
      const again = await server.api('POST', '/auth/register', { body: { username, password: 'correct horse battery', email } });
      expect(again.status).toBe(201);
    } finally {
      await server.close();
    }
    const twice = await replay('erase', '--user', ada.id);
    expect({ code: twice.code, stderr: twice.stderr.trim() }).toEqual({ code: 1, stderr: 'replay: This account is already deleted' });
  });

  it('leaves a log whose rebuild gives exactly the read models incremental processing built', async () => {
    const afterErasures = await snapshot();
    expect(afterErasures.users.find((u) => (u as { _id: string })._id === ada.id)).toMatchObject({ username: 'Deleted User', email: null });
    expect(afterErasures.messages.find((m) => (m as { _id: string })._id === messageId)).toMatchObject({ author: { id: ada.id, username: 'Deleted User' } });
    await spoil(allProjections.flatMap((p) => p.collections));
    expect((await replay('rebuild')).code).toBe(0);
    expect(await snapshot()).toEqual(afterErasures);
  });
});
