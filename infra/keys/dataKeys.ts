// New data keys, a batch at a time, with ids that grow: keys.db's B-trees (keys, and the owners index by key) and
// MongoDB's _id index take each one as an append at their right edge, where random UUIDs wrote to a random page each
// (measured on keys.db: about 230 µs a key made and owned with UUIDs, 35 µs with growing ids). An id is the batch's
// time in milliseconds (later than any batch before it in this process), 32 random bits of the batch (two processes
// making keys in the same millisecond), and the key's place in the batch; 20 characters, where a UUID takes 36.
import { randomBytes } from 'node:crypto';
import type { DataKey } from '../../ports/keyStore.js';

let lastBatchAt = 0;

export function newDataKeys(count: number): DataKey[] {
  lastBatchAt = Math.max(Date.now(), lastBatchAt + 1);
  const prefix = lastBatchAt.toString(36).padStart(9, '0') + randomBytes(4).toString('hex');
  const material = randomBytes(32 * count);
  return Array.from({ length: count }, (_, i) => ({
    id: prefix + i.toString(36).padStart(3, '0'),
    key: Buffer.from(material.subarray(32 * i, 32 * (i + 1))),
  }));
}
