// The master keys that wrap data keys (infra/masterKeys.ts), and their rotation through the real replay CLI
// (infra/rotateMasterKey.ts) on a DATA_DIR a real server wrote messages to.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../infra/eventStore/sqlite.js';
import { SqliteKeyStore } from '../../infra/keys/sqlite.js';
import { MasterKeys, masterKeyFiles, masterKeyId, parseMasterKey, wrappingKeyId } from '../../infra/masterKeys.js';
import { SecretBox } from '../../infra/secrets.js';
import { envelopesOf } from '../../ports/keyStore.js';
import { killServerProcess, replayIn, replayWith, startServerProcess, stopServerProcesses } from '../support/process.js';
import { registerUser, startTestServer } from '../support/server.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-master-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  await stopServerProcesses();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const secretBox = SecretBox.fromKey(randomBytes(32));
const settings = (dataDir: string, env: { masterKey?: string; masterKeysRetired?: string[] } = {}) => ({
  dataDir,
  masterKey: env.masterKey ?? null,
  masterKeysRetired: env.masterKeysRetired ?? [],
});

/**
 * Which of `needles` some file under `dir` holds, searched by another process: reading a database file here would drop
 * the locks of this process's connections to it.
 */
async function foundIn(dir: string, needles: Buffer[]): Promise<number[]> {
  const search = `
    const { readdirSync, readFileSync, statSync } = require('node:fs');
    const { join } = require('node:path');
    const needles = JSON.parse(readFileSync(process.argv[2], 'utf8')).map((hex) => Buffer.from(hex, 'hex'));
    const found = new Set();
    const walk = (path) => statSync(path).isDirectory()
      ? readdirSync(path).forEach((name) => walk(join(path, name)))
      : needles.forEach((needle, i) => readFileSync(path).includes(needle) && found.add(i));
    walk(process.argv[1]);
    console.log(JSON.stringify([...found]));`;
  // The needles go by file: thousands of them overflow a command line.
  const list = join(mkdtempSync(join(tmpdir(), 'parley-needles-')), 'needles.json');
  writeFileSync(list, JSON.stringify(needles.map((n) => n.toString('hex'))));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', search, dir, list]);
    return JSON.parse(stdout);
  } finally {
    rmSync(dirname(list), { recursive: true, force: true });
  }
}

describe('MasterKeys', () => {
  it('wraps and opens with a key generated once into DATA_DIR/master.key (0600), named in the wrapping by its id, not by the key', () => {
    const dir = tempDir();
    const keys = MasterKeys.load(settings(dir), secretBox);
    const file = masterKeyFiles(dir).current;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const key = parseMasterKey(readFileSync(file, 'utf8'), file);
    const wrapped = keys.seal('a data key');
    expect(wrappingKeyId(wrapped)).toBe(masterKeyId(key));
    expect(keys.id).toBe(masterKeyId(key));
    expect(wrapped).not.toContain(key.toString('base64'));
    expect(wrapped).not.toContain(key.toString('hex'));
    expect(keys.open(wrapped)).toBe('a data key');
    // A restart reads the same key back.
    expect(MasterKeys.load(settings(dir), secretBox).open(wrapped)).toBe('a data key');
  });

  it('opens what a retired key wrapped, from MASTER_KEYS_RETIRED or from DATA_DIR/master.key.retired, and wraps with MASTER_KEY', () => {
    const [old, older, current] = [randomBytes(32), randomBytes(32), randomBytes(32)];
    const byOld = MasterKeys.of(old, [], secretBox).seal('wrapped by old');
    const byOlder = MasterKeys.of(older, [], secretBox).seal('wrapped by older');
    const dir = tempDir();
    writeFileSync(masterKeyFiles(dir).retired, `${older.toString('base64')}\n`);
    const keys = MasterKeys.load(settings(dir, { masterKey: current.toString('base64'), masterKeysRetired: [old.toString('hex')] }), secretBox);
    expect(keys.open(byOld)).toBe('wrapped by old');
    expect(keys.open(byOlder)).toBe('wrapped by older');
    expect(wrappingKeyId(keys.seal('new'))).toBe(masterKeyId(current));
    expect(existsSync(masterKeyFiles(dir).current)).toBe(false);
  });

  it('refuses a value wrapped by a master key it does not hold, naming that key by its id', () => {
    const unknown = randomBytes(32);
    const wrapped = MasterKeys.of(unknown, [], secretBox).seal('lost');
    const keys = MasterKeys.of(randomBytes(32), [], secretBox);
    expect(() => keys.open(wrapped)).toThrow(
      `a data key is wrapped by master key ${masterKeyId(unknown)}, which is neither the current master key (${keys.id}) nor a retired one: give it in MASTER_KEYS_RETIRED (or a line of DATA_DIR/master.key.retired)`,
    );
  });

  it('opens what the SecretBox wrapped before master keys existed, through that SecretBox only', () => {
    const wrapped = secretBox.seal('wrapped by SECRET_KEY');
    expect(wrapped.startsWith('s1.')).toBe(true);
    expect(MasterKeys.of(randomBytes(32), [], secretBox).open(wrapped)).toBe('wrapped by SECRET_KEY');
    expect(() => MasterKeys.of(randomBytes(32), [], SecretBox.fromKey(randomBytes(32))).open(wrapped)).toThrow();
  });

  it('is generated once when processes start side by side: every one reads the same whole key, and no draft is left', async () => {
    const dataDir = tempDir();
    const at = Date.now() + 1500;
    // Each process waits for the same instant, so that they race for the file as the services of one DATA_DIR did.
    const script = `import { keyFileText } from './infra/secrets.ts';
      while (Date.now() < ${at});
      process.stdout.write(keyFileText(process.argv[1]));`;
    const file = masterKeyFiles(dataDir).current;
    const keys = await Promise.all(
      Array.from({ length: 6 }, () =>
        promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, file], { cwd: join(import.meta.dirname, '../..') }),
      ),
    );
    const texts = new Set(keys.map(({ stdout }) => stdout));
    expect(texts.size).toBe(1);
    expect(parseMasterKey([...texts][0] ?? '', file)).toHaveLength(32);
    expect(readdirSync(dataDir)).toEqual(['master.key']);
  });

  it('refuses a master key that is not 32 bytes, naming where it came from', () => {
    expect(() => MasterKeys.load(settings(tempDir(), { masterKey: 'c2hvcnQ=' }), secretBox)).toThrow(
      'MASTER_KEY must hold 32-byte master keys, base64 or hex encoded',
    );
    expect(() => MasterKeys.load(settings(tempDir(), { masterKeysRetired: ['abcd'] }), secretBox)).toThrow('MASTER_KEYS_RETIRED must hold 32-byte master keys');
  });
});

describe('SqliteKeyStore.rewrap', () => {
  it('re-wraps only the keys the target does not wrap yet, in keys.db and its WAL alike, while the store stays open', async () => {
    const dir = tempDir();
    const old = MasterKeys.of(randomBytes(32), [], secretBox);
    const keys = new SqliteKeyStore(join(dir, 'keys.db'), old);
    const created = await keys.create();
    const db = new Database(join(dir, 'keys.db'), { readonly: true });
    const wrappings = () => db.prepare('SELECT wrapped FROM keys').pluck().all() as string[];
    const before = wrappings();
    const next = old.rotatedTo(randomBytes(32));
    expect(await keys.rewrap(next)).toBe(before.length);
    expect(wrappings().every((wrapped) => next.wraps(wrapped))).toBe(true);
    db.close();
    expect(
      await foundIn(
        dir,
        before.map((wrapped) => Buffer.from(wrapped)),
      ),
    ).toEqual([]);
    expect(await keys.rewrap(next)).toBe(0);
    // What the store opens with now must open the new wrapping: a fresh store, whose cache is empty.
    await keys.close();
    const reopened = new SqliteKeyStore(join(dir, 'keys.db'), next);
    expect((await reopened.load([created.id])).get(created.id)).toEqual(created.key);
    await reopened.close();
  });
});

describe('replay rotate-master-key', () => {
  const dataDir = tempDir();
  const files = masterKeyFiles(dataDir);
  const texts = Array.from({ length: 6 }, (_, i) => `rotation-probe-${i}-${randomBytes(6).toString('hex')}`);
  let token: string;
  let channelId: string;

  const rows = () => {
    const db = new Database(join(dataDir, 'keys.db'), { readonly: true });
    try {
      return db.prepare('SELECT id, wrapped FROM keys ORDER BY id').all() as { id: string; wrapped: string }[];
    } finally {
      db.close();
    }
  };
  const currentKey = () => parseMasterKey(readFileSync(files.current, 'utf8'), files.current);

  /** The key in each of the forms a file may hold it: raw, base64, hex. */
  const forms = (key: Buffer) => [key, Buffer.from(key.toString('base64')), Buffer.from(key.toString('hex'))];

  /** A server on DATA_DIR serves the messages, and the export has their texts. */
  async function expectReadable(): Promise<void> {
    const server = await startTestServer({}, dataDir);
    try {
      const page = await server.api('GET', `/channels/${channelId}/messages?limit=50`, { token });
      expect(page.status).toBe(200);
      expect(page.body.map((m: { content: string }) => m.content).sort()).toEqual([...texts].sort());
    } finally {
      await server.close();
    }
    const exported = await replayIn(dataDir, 'export');
    expect(exported.code, exported.stderr).toBe(0);
    for (const text of texts) expect(exported.stdout).toContain(text);
  }

  beforeAll(async () => {
    // Keys wrapped by the SecretBox, as a key store wrote them before master keys existed.
    const legacy = new SqliteKeyStore(join(dataDir, 'keys.db'), await SecretBox.load(null, join(dataDir, 'secret.key')));
    await legacy.create();
    await legacy.close();
    const server = await startTestServer({}, dataDir);
    try {
      const owner = await registerUser(server);
      token = owner.token;
      const guild = await server.api('POST', '/guilds', { token, body: { name: 'Rotation' } });
      const channels = await server.api('GET', `/guilds/${guild.body.id}/channels`, { token });
      channelId = channels.body.find((c: { type: number }) => c.type === 0).id;
      for (const content of texts) expect((await server.api('POST', `/channels/${channelId}/messages`, { token, body: { content } })).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('is refused while a server runs on DATA_DIR, and changes nothing', async () => {
    const before = readFileSync(files.current, 'utf8');
    const wrapped = rows();
    const server = await startServerProcess(dataDir);
    const refused = await replayIn(dataDir, 'rotate-master-key');
    await killServerProcess(server.child);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`replay: a server is running on ${dataDir}: stop it first`);
    expect(readFileSync(files.current, 'utf8')).toBe(before);
    expect(existsSync(files.next)).toBe(false);
    expect(rows()).toEqual(wrapped);
  });

  it('re-wraps every data key with a new master key and leaves the old one in no file of DATA_DIR', async () => {
    const old = currentKey();
    const before = rows();
    expect(before.filter((row) => wrappingKeyId(row.wrapped) === null).length).toBeGreaterThanOrEqual(256);
    expect(before.filter((row) => wrappingKeyId(row.wrapped) === masterKeyId(old)).length).toBeGreaterThan(0);

    const { code, stderr } = await replayIn(dataDir, 'rotate-master-key');
    expect(code, stderr).toBe(0);
    const rotated = currentKey();
    expect(masterKeyId(rotated)).not.toBe(masterKeyId(old));
    expect(stderr).toContain(`re-wrapped ${before.length} data keys with master key ${masterKeyId(rotated)}\n`);
    expect(stderr).toContain(`dropped master key ${masterKeyId(old)}: DATA_DIR/master.key holds ${masterKeyId(rotated)}\ndone\n`);
    expect([existsSync(files.next), existsSync(files.retired)]).toEqual([false, false]);
    const after = rows();
    expect(after.map((row) => row.id)).toEqual(before.map((row) => row.id));
    expect(after.every((row) => wrappingKeyId(row.wrapped) === masterKeyId(rotated))).toBe(true);
    // Neither the old key nor what it wrapped is left: not in a key file, not in keys.db, not in its WAL.
    const oldWrappings = before.map((row) => Buffer.from(row.wrapped));
    expect(await foundIn(dataDir, [...forms(old), ...oldWrappings])).toEqual([]);
    expect(statSync(files.current).mode & 0o777).toBe(0o600);

    await expectReadable();
  }, 120_000);

  it('an interrupted rotation leaves every key readable, and the next run finishes it with the same new key', async () => {
    const old = currentKey();
    // Interrupted after master.key.next was written and part of the keys re-wrapped with it: half of the keys the
    // log's messages are sealed with, so the server must open with both keys.
    const next = randomBytes(32);
    writeFileSync(files.next, next.toString('base64'), { mode: 0o600 });
    const log = new SqliteEventStore(join(dataDir, 'events.db'));
    const used = [...new Set((await log.readAll({ maxCount: 100_000 })).flatMap((event) => envelopesOf(event).map((envelope) => envelope.k)))].sort();
    await log.close();
    const half = used.filter((_, i) => i % 2 === 0);
    expect(half.length).toBeGreaterThan(0);
    expect(used.length).toBeGreaterThan(half.length);
    const opening = MasterKeys.load(settings(dataDir), secretBox);
    const rewrapping = opening.rotatedTo(next);
    const db = new Database(join(dataDir, 'keys.db'));
    const update = db.prepare('UPDATE keys SET wrapped = ? WHERE id = ?');
    for (const row of rows().filter((r) => half.includes(r.id))) update.run(rewrapping.seal(opening.open(row.wrapped)), row.id);
    db.close();

    await expectReadable();

    const remaining = rows().filter((row) => wrappingKeyId(row.wrapped) !== masterKeyId(next)).length;
    const { code, stderr } = await replayIn(dataDir, 'rotate-master-key');
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(`re-wrapped ${remaining} data keys with master key ${masterKeyId(next)} (finishing an interrupted rotation)\n`);
    expect(currentKey().equals(next)).toBe(true);
    expect(existsSync(files.next)).toBe(false);
    expect(rows().every((row) => wrappingKeyId(row.wrapped) === masterKeyId(next))).toBe(true);
    expect(await foundIn(dataDir, forms(old))).toEqual([]);
    await expectReadable();
  }, 120_000);

  it('with MASTER_KEY set, re-wraps with it what the key moved to MASTER_KEYS_RETIRED wrapped, after which that key opens nothing', async () => {
    const oldText = readFileSync(files.current, 'utf8');
    const old = parseMasterKey(oldText, files.current);
    const fresh = randomBytes(32);
    const count = rows().length;
    const { code, stderr } = await replayWith({ MASTER_KEY: fresh.toString('hex'), MASTER_KEYS_RETIRED: oldText }, dataDir, 'rotate-master-key');
    expect(code, stderr).toBe(0);
    expect(stderr).toBe(
      `re-wrapped ${count} data keys with master key ${masterKeyId(fresh)} (MASTER_KEY)\n` +
        "dropped DATA_DIR's key files, which wrap nothing any more: master.key\n" +
        `no data key is wrapped by ${masterKeyId(old)} any more: remove it from MASTER_KEYS_RETIRED\ndone\n`,
    );
    expect(rows().every((row) => wrappingKeyId(row.wrapped) === masterKeyId(fresh))).toBe(true);
    expect(await foundIn(dataDir, forms(old))).toEqual([]);
    // The retired key removed, as the operator does once the command says done: MASTER_KEY alone opens every key.
    const exported = await replayWith({ MASTER_KEY: fresh.toString('hex') }, dataDir, 'export');
    expect(exported.code, exported.stderr).toBe(0);
    for (const text of texts) expect(exported.stdout).toContain(text);
    // A rebuild reads the log on a thread of its own, which unwraps the data keys with MASTER_KEY too (no key file is left).
    const rebuilt = await replayWith({ MASTER_KEY: fresh.toString('hex') }, dataDir, 'rebuild');
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
  }, 120_000);
});
