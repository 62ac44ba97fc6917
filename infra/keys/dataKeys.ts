// New data keys, a batch at a time, with ids that grow: keys.db's B-trees (keys, and the owners index by key) and
// MongoDB's _id index take each one as an append at their right edge, where random UUIDs wrote to a random page each
// (measured on keys.db: about 230 µs a key made and owned with UUIDs, 35 µs with growing ids). An id is the batch's
// time in milliseconds (later than any batch before it in this process), 32 random bits of the batch (two processes
// making keys in the same millisecond), and the key's place in the batch; 20 characters, where a UUID takes 36.
import { randomBytes } from 'node:crypto';
import type { DataKey } from '../../ports/keyStore.js';

/**
 * How long a process of the distributed mode trusts a key it cached: another process's shredder may have destroyed it
 * since (the key stores on PostgreSQL and MongoDB).
 */
export const KEY_TTL_MS = 30_000;

let lastBatchAt = 0;

/** Keys as one buffer of their bytes (32 a key, in the order of `ids`), as the key writer thread sends them back. */
export interface KeyBatch {
  ids: string[];
  material: Uint8Array;
}

export function newKeyBatch(count: number): KeyBatch & { material: Buffer } {
  lastBatchAt = Math.max(Date.now(), lastBatchAt + 1);
  const prefix = lastBatchAt.toString(36).padStart(9, '0') + randomBytes(4).toString('hex');
  return { ids: Array.from({ length: count }, (_, i) => prefix + i.toString(36).padStart(3, '0')), material: randomBytes(32 * count) };
}

/** The batch's keys, each with a copy of its own bytes. */
export function dataKeysOf({ ids, material }: KeyBatch): DataKey[] {
  return ids.map((id, i) => ({ id, key: Buffer.from(material.subarray(32 * i, 32 * (i + 1))) }));
}

export function newDataKeys(count: number): DataKey[] {
  return dataKeysOf(newKeyBatch(count));
}
