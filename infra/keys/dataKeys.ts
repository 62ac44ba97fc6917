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

/**
 * Keys made ahead `count` at a time with one durable write (`store`), handed out one at a time: concurrent takers
 * wait for the batch under way instead of making their own. The shared engines' key stores use it.
 */
export class KeysMadeAhead {
  private ahead: DataKey[] = [];
  private making: Promise<void> | null = null;

  constructor(
    private readonly count: number,
    private readonly store: (made: DataKey[]) => Promise<void>,
  ) {}

  async take(): Promise<DataKey> {
    for (;;) {
      const key = this.takeNow();
      if (key) return key;
      await (this.making ??= this.make().finally(() => (this.making = null)));
    }
  }

  takeNow(): DataKey | null {
    return this.ahead.pop() ?? null;
  }

  /** Once the batch under way, if any, is written or failed. */
  async settled(): Promise<void> {
    await this.making?.catch(() => {});
  }

  private async make(): Promise<void> {
    const made = newDataKeys(this.count);
    await this.store(made);
    // Taken from the end: the lowest id first, so the owners index by key grows at its edge too.
    this.ahead = made.reverse();
  }
}

/** The keys of `ids` the cache holds, and the ids to look up. */
export function fromCache(ids: readonly string[], cache: { get(id: string): Buffer | undefined }): { found: Map<string, Buffer>; missing: string[] } {
  const found = new Map<string, Buffer>();
  const missing: string[] = [];
  for (const id of ids) {
    const key = cache.get(id);
    if (key) found.set(id, key);
    else missing.push(id);
  }
  return { found, missing };
}
