// Binary content (avatars, attachments, emojis, stickers) lives beside the log, not in it: events carry the key.
export interface Blob {
  data: Buffer;
  contentType: string;
}

export interface BlobStore {
  put(key: string, blob: Blob): Promise<void>;
  get(key: string): Promise<Blob | null>;
  /** Removes the blob; a missing one is fine. */
  delete(key: string): Promise<void>;
  /** Removes every blob whose key lies under the folder `prefix` (whole segments: `a/1` takes `a/1/x`, never `a/10/x`). */
  deleteUnder(prefix: string): Promise<void>;
  /** The names of the folders directly under the folder `prefix` that hold any blob (none when there is none). */
  folders(prefix: string): Promise<string[]>;
}

/** Keys are slash-separated segments of safe characters, so they map onto paths and object names alike. */
export function assertBlobKey(key: string): void {
  if (!/^[\w-]+(\/[\w.-]+)*$/.test(key) || key.split('/').some((s) => s === '.' || s === '..')) throw new Error(`Unsafe blob key: ${key}`);
}
