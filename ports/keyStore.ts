// The key store port: the data keys that personal data in the log is encrypted with (crypto-shredding, docs/privacy.md's
// Privacy). It lives apart from the log it protects: destroying a key makes every copy of what it sealed (the log, its
// backups, Kafka topics, exports) unreadable at once, while the log itself is never rewritten. Keys are named by random
// ids the sealed events carry; which subjects (a message, a channel, a user) a key belongs to is learnt from the log by
// the key shredder (processes/keyShredding.ts), which keeps its checkpoint here, beside the keys: a key store restored
// from an old backup resumes from its own checkpoint and so destroys again what the log erased since.
import type { Position } from './eventStore.js';

/** Where a sealed event keeps its envelopes, inside its data. */
export const SEALED = '$sealed';
/** The schema version of events whose personal fields are sealed (1: written before, in clear). */
export const SEALED_SCHEMA = 2;

/** One key's share of an event: the paths it seals (in clear), and their values, encrypted together. */
export interface Envelope {
  /** The data key's id. */
  k: string;
  /** The subjects the key belongs to (ids only). */
  s: string[];
  p: (readonly (string | number)[])[];
  iv: string;
  d: string;
  t: string;
}

export function envelopesOf(event: { data: unknown }): Envelope[] {
  const data = event.data as Record<string, unknown> | null;
  return data && typeof data === 'object' && Array.isArray(data[SEALED]) ? (data[SEALED] as Envelope[]) : [];
}

/** A 256-bit AES key and the id events name it by. */
export interface DataKey {
  id: string;
  key: Buffer;
}

/** One batch of what the shredder learnt from the log, applied atomically with its checkpoint. */
export interface KeyChanges {
  /** Keys and the subjects they belong to, as the log's sealed events name them. */
  owned: { keyId: string; subject: string }[];
  /** Subjects whose keys are destroyed; `except` spares the one key an edit sealed the new version with. */
  erased: { subject: string; except?: string }[];
}

/** The master key a rotation re-wraps the stored keys with (infra/masterKeys.ts). */
export interface Wrapping {
  seal(plain: string): string;
  /** Whether `wrapped` is wrapped by this master key already. */
  wraps(wrapped: string): boolean;
}

export interface KeyStore {
  /** A new key, durable before it is returned, so an event sealed with it is never left without it. */
  create(): Promise<DataKey>;
  /** What create() would give, when a key made ahead is ready now; null when one must be waited for (call create). */
  createNow(): DataKey | null;
  /**
   * The key a subject's data is sealed with now, when the store knows one the subject owns alone (a subject's keys are
   * reused unless fresh; a key shared with another subject goes with that one's erasure too, so it is never reused).
   */
  current(subject: string): Promise<DataKey | null>;
  /** Remembers that `key` now seals `subject`'s data (what current() answers next; the log stays the truth). */
  use(subject: string, key: DataKey): void;
  /** The keys that exist among `ids` (a destroyed or unknown id is absent from the map). */
  load(ids: readonly string[]): Promise<Map<string, Buffer>>;
  /** Applies what the shredder learnt up to `checkpoint`; answers whether any key was destroyed. */
  apply(changes: KeyChanges, checkpoint: Position): Promise<boolean>;
  /** Where the shredder got to (null: it never ran on this key store). */
  checkpoint(): Promise<Position | null>;
  /** Called after keys are destroyed in this process (and on a timer elsewhere): cached openings must be dropped. */
  onDestroyed(listener: () => void): void;
  /**
   * Re-wraps every stored key `target` does not wrap yet, durably, leaving no copy of the old wrapping the store can
   * scrub; answers how many (a master key rotation: infra/rotateMasterKey.ts).
   */
  rewrap?(target: Wrapping): Promise<number>;
  close(): Promise<void>;
}
