// Files at rest: the real server keeps DATA_DIR 0700 and every file in it 0600 (the log and the read models with
// SQLite's -wal and -shm, the secret key, the TLS key, uploads), on a fresh directory and on one an earlier version
// left with the umask's modes.
import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { type TestServer, registerUser, startTestServer } from '../support/server.js';

const root = mkdtempSync(join(tmpdir(), 'parley-modes-'));
// The usual umask, under which files created without a mode come out 0644 and directories 0755.
const umask = process.umask(0o022);
afterAll(() => {
  process.umask(umask);
  rmSync(root, { recursive: true, force: true });
});

const SERVICE_FILES = [
  'events.db',
  'events.db-wal',
  'events.db-shm',
  'read-models.db',
  'read-models.db-wal',
  'read-models.db-shm',
  'secret.key',
  'tls',
  'tls/self-signed.key',
  'blobs',
];

/** Every entry under `dir` (and `dir` itself as "."), as "d755" or "f644". */
function modes(dir: string): Record<string, string> {
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true }).map((entry) => join(entry.parentPath, entry.name));
  return Object.fromEntries(
    [dir, ...entries].map((path) => {
      const stat = lstatSync(path);
      return [relative(dir, path) || '.', `${stat.isDirectory() ? 'd' : 'f'}${(stat.mode & 0o777).toString(8)}`];
    }),
  );
}

/** `uploads: false` leaves out what is inside blobs/: a start does not walk old uploads, whose folder is made 0700. */
function expectPrivate(dir: string, { uploads }: { uploads: boolean }) {
  const found = modes(dir);
  expect(Object.keys(found)).toEqual(expect.arrayContaining(['.', ...SERVICE_FILES]));
  expect(Object.keys(found).some((path) => path.startsWith('blobs/avatars/'))).toBe(true);
  const checked = Object.entries(found).filter(([path]) => uploads || !path.startsWith('blobs/'));
  expect(checked.filter(([, mode]) => mode !== 'd700' && mode !== 'f600')).toEqual([]);
}

/** A user with an avatar, so that the log, the read models and the blobs all have something in them. */
async function populate(server: TestServer) {
  const user = await registerUser(server);
  const image = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#00ff00' } })
    .png()
    .toBuffer();
  const patched = await server.api('PATCH', '/users/@me', { token: user.token, body: { avatar: `data:image/png;base64,${image.toString('base64')}` } });
  expect(patched.status).toBe(200);
  return user;
}

describe('DATA_DIR at rest', () => {
  it('is created 0700 with every file in it 0600', async () => {
    const dir = join(root, 'fresh');
    const server = await startTestServer({}, dir);
    try {
      await populate(server);
      expectPrivate(dir, { uploads: true });
    } finally {
      await server.close();
    }
  });

  it('is made private at start when it already existed with looser modes, and still serves its data', async () => {
    const dir = join(root, 'existing');
    const first = await startTestServer({}, dir);
    const user = await populate(first).finally(() => first.close());
    for (const path of Object.keys(modes(dir))) chmodSync(join(dir, path), lstatSync(join(dir, path)).isDirectory() ? 0o755 : 0o644);
    // -wal and -shm files left behind by a process that was still running, made (as SQLite does) with the mode of
    // their database file.
    const leftBehind = ['events.db', 'read-models.db'].map((name) => new Database(join(dir, name)));
    try {
      for (const db of leftBehind) db.prepare('SELECT count(*) FROM sqlite_master').get();
      expect(modes(dir)).toMatchObject({
        '.': 'd755',
        'events.db': 'f644',
        'events.db-wal': 'f644',
        'read-models.db-shm': 'f644',
        'secret.key': 'f644',
        'tls/self-signed.key': 'f644',
      });

      const second = await startTestServer({}, dir);
      try {
        expectPrivate(dir, { uploads: false });
        expect((await second.api('GET', '/users/@me', { token: user.token })).body.username).toBe(user.username);
      } finally {
        await second.close();
      }
    } finally {
      for (const db of leftBehind) db.close();
    }
  });
});
