// DATA_DIR holds the log, the read models (password hashes, message content), the service's secret key and its TLS
// private key: only the service's own user may read any of it. Whatever is created there gets 0700 (directories) or
// 0600 (files) as its creation mode, which a umask can only narrow, never widen; secureDataDir narrows at start what
// an earlier version, or another tool, left with looser modes.
import { randomBytes } from 'node:crypto';
import { type Stats, chmodSync, closeSync, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const PRIVATE_DIR = 0o700;
export const PRIVATE_FILE = 0o600;

/**
 * Makes an existing DATA_DIR and everything in it private; called once at start, before anything in it is opened.
 * Uploads are not walked one by one, which would make every start slower as they grow: their folder becomes 0700,
 * so no other user reaches them, and new ones are created 0600.
 */
export function secureDataDir(dir: string): void {
  let stat: Stats;
  try {
    // DATA_DIR itself may be a symbolic link to the real directory: follow that one.
    stat = statSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  secure(dir, stat, new Set([join(dir, 'blobs')]));
}

function secure(path: string, stat: Stats, opaque: Set<string>): void {
  // A link inside may lead out of DATA_DIR, and what another user owns (lost+found on a mount point) is not ours.
  if (stat.isSymbolicLink() || stat.uid !== process.getuid?.()) return;
  const mode = stat.isDirectory() ? PRIVATE_DIR : PRIVATE_FILE;
  if ((stat.mode & 0o777) !== mode) chmodSync(path, mode);
  if (stat.isDirectory() && !opaque.has(path)) for (const name of readdirSync(path)) secure(join(path, name), lstatSync(join(path, name)), opaque);
}

/**
 * Creates an SQLite database file (and its directory) private before SQLite opens it: SQLite creates the -wal and
 * -shm files, whenever it does, with the mode of the database file, so they are private too, whatever the umask.
 */
export function createPrivateDatabaseFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIR });
  closeSync(openSync(file, 'a', PRIVATE_FILE));
}

/**
 * Creates a private file holding `text`, whole or not at all, and makes it durable, its name included: a key file must
 * be on disk before anything is wrapped with it. The text is written and fsynced under a name of this process's own,
 * then linked to `file`, so another process starting beside this one (or this one after a crash) never reads a
 * created but still empty file. Throws EEXIST when `file` exists already.
 */
export function createPrivateFileDurably(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIR });
  const draft = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.draft`;
  const fd = openSync(draft, 'wx', PRIVATE_FILE);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(draft, file);
  } finally {
    unlinkSync(draft);
    syncDirectory(dirname(file));
  }
}

/** Makes the names in `dir` durable: a file created, renamed or removed there survives a crash once this returns. */
export function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
