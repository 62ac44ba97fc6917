// What the key stores on the shared engines (infra/keys/postgres.ts, infra/keys/mongo.ts) keep in this process, each
// store holding one: the keys made ahead, the keys it opened and each subject's current key. Every process caches the
// keys it opened, but the shredder of another process may destroy them: a cached key lives KEY_TTL_MS at most, and
// the onDestroyed listeners are also called every KEY_TTL_MS, so what was opened with a key destroyed elsewhere is
// dropped within twice that. Destructions made here are dropped at once.
import { LRUCache } from 'lru-cache';
import type { DataKey, KeyChanges, Wrapping } from '../../ports/keyStore.js';
import type { SecretBox } from '../../ports/secrets.js';
import { KEY_TTL_MS, KeysMadeAhead, fromCache } from './dataKeys.js';

/** Keys made ahead with one durable write. */
export const BATCH = 256;
/** Open keys kept in memory: a channel's recent messages are read without a query. */
const CACHED_KEYS = 100_000;

/** A data key as its engine stores it: wrapped by the master key. */
export interface WrappedKey {
  id: string;
  wrapped: string;
}

export class SharedKeys {
  private readonly ahead: KeysMadeAhead;
  private readonly cache = new LRUCache<string, Buffer>({ max: CACHED_KEYS, ttl: KEY_TTL_MS });
  private readonly current_ = new LRUCache<string, DataKey>({ max: 10_000, ttl: KEY_TTL_MS });
  /** Counts destructions made here: a read that started before one must not cache what it found. */
  private generation = 0;
  private readonly listeners: (() => void)[] = [];
  private readonly expiry: NodeJS.Timeout;

  /** `store` writes a batch made ahead, durably. */
  constructor(
    private readonly secrets: Pick<SecretBox, 'seal' | 'open'>,
    store: (made: WrappedKey[]) => Promise<void>,
  ) {
    this.ahead = new KeysMadeAhead(BATCH, (made) => store(made.map((key) => ({ id: key.id, wrapped: this.secrets.seal(key.key.toString('base64')) }))));
    this.expiry = setInterval(() => this.notify(), KEY_TTL_MS);
    this.expiry.unref();
  }

  async create(): Promise<DataKey> {
    const key = await this.ahead.take();
    this.cache.set(key.id, key.key);
    return key;
  }

  createNow(): DataKey | null {
    const key = this.ahead.takeNow();
    if (key) this.cache.set(key.id, key.key);
    return key;
  }

  /** The subject's current key, remembered or else the one `find` finds (which is remembered unless a destruction overtook it). */
  async current(subject: string, find: () => Promise<DataKey | null>): Promise<DataKey | null> {
    const known = this.current_.get(subject);
    if (known) return known;
    const generation = this.generation;
    const found = await find();
    if (found && generation === this.generation) {
      this.cache.set(found.id, found.key);
      this.current_.set(subject, found);
    }
    return found;
  }

  use(subject: string, key: DataKey): void {
    this.current_.set(subject, key);
  }

  /** The keys of `ids` in memory, and those `fetch` finds of the others, unwrapped. */
  async load(ids: readonly string[], fetch: (missing: string[]) => AsyncIterable<WrappedKey>): Promise<Map<string, Buffer>> {
    const { found, missing } = fromCache(ids, this.cache);
    if (missing.length === 0) return found;
    const generation = this.generation;
    for await (const { id, wrapped } of fetch(missing)) {
      const key = this.unwrap(wrapped);
      if (generation === this.generation) this.cache.set(id, key);
      found.set(id, key);
    }
    return found;
  }

  unwrap(wrapped: string): Buffer {
    return Buffer.from(this.secrets.open(wrapped), 'base64');
  }

  /** A stored key wrapped by `target` instead. */
  rewrapped(wrapped: string, target: Wrapping): string {
    return target.seal(this.secrets.open(wrapped));
  }

  /** Keys destroyed here leave memory at once, and the listeners are told. */
  destroyed(ids: readonly string[]): void {
    this.generation++;
    for (const id of ids) this.cache.delete(id);
    this.current_.clear();
    this.notify();
  }

  onDestroyed(listener: () => void): void {
    this.listeners.push(listener);
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }

  async close(): Promise<void> {
    clearInterval(this.expiry);
    await this.ahead.settled();
  }
}

/** A batch names the same owner once per event sealed with its key: each owner once. */
export function distinctOwners(owned: KeyChanges['owned']): KeyChanges['owned'] {
  return [...new Map(owned.map((owner) => [`${owner.subject}\u0000${owner.keyId}`, owner])).values()];
}

/**
 * Which keys the erasures destroy: every key an erased subject owns, unless each erasure of that subject spares it.
 * `subjects` are the erased ones, whose owned keys the store then asks `destroys` about.
 */
export function erasures(erased: KeyChanges['erased']): { subjects: string[]; destroys(subject: string, keyId: string): boolean } {
  const spared = new Map<string, (string | undefined)[]>();
  for (const { subject, except } of erased) spared.set(subject, [...(spared.get(subject) ?? []), except]);
  return { subjects: [...spared.keys()], destroys: (subject, keyId) => !spared.get(subject)!.every((except) => except === keyId) };
}
