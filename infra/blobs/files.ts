// Embedded blob store: one file per blob under DATA_DIR/blobs, written to a temporary name, fsync'd and renamed, so
// a blob an event refers to is complete on disk before the event is appended. Blobs are private to the service's
// user like the rest of DATA_DIR (infra/dataDir.ts).
import { mkdir, open, readFile, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PRIVATE_DIR, PRIVATE_FILE } from '../dataDir.js';
import { type Blob, type BlobStore, assertBlobKey } from '../../ports/blobs.js';

export class FileBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private path(key: string): string {
    assertBlobKey(key);
    return join(this.root, key);
  }

  async put(key: string, blob: Blob): Promise<void> {
    const path = this.path(key);
    await mkdir(dirname(path), { recursive: true, mode: PRIVATE_DIR });
    await writeSmall(`${path}.type`, blob.contentType);
    const temporary = `${path}.${process.pid}.tmp`;
    const file = await open(temporary, 'w', PRIVATE_FILE);
    try {
      await file.writeFile(blob.data);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  }

  async get(key: string): Promise<Blob | null> {
    const path = this.path(key);
    try {
      const [data, contentType] = await Promise.all([readFile(path), readFile(`${path}.type`, 'utf8')]);
      return { data, contentType };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const path = this.path(key);
    await Promise.all([rm(path, { force: true }), rm(`${path}.type`, { force: true })]);
    await syncDirectory(dirname(path));
  }

  async deleteUnder(prefix: string): Promise<void> {
    const path = this.path(prefix);
    await rm(path, { recursive: true, force: true });
    await syncDirectory(dirname(path));
  }

  async folders(prefix: string): Promise<string[]> {
    try {
      const entries = await readdir(this.path(prefix), { withFileTypes: true });
      return entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }
}

/** Makes a removal durable: whoever records it as done (a checkpoint) must not see the file come back after a crash. */
async function syncDirectory(path: string): Promise<void> {
  let directory;
  try {
    directory = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

async function writeSmall(path: string, text: string): Promise<void> {
  const file = await open(path, 'w', PRIVATE_FILE);
  try {
    await file.writeFile(text);
    await file.sync();
  } finally {
    await file.close();
  }
}
