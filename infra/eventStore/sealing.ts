// Personal data enters the log only as ciphertext (README, Privacy): this decorator of the EventStore port seals the
// fields domain/personalData.ts names, on append, each group with a data key of its subject from the key store, and
// opens them again on every read and subscription, so commands, projections, the gateway and delivery see clear text
// for as long as the key exists. A destroyed key leaves its fields as the domain's erased values; nothing is ever
// rewritten in the log. Events written before sealing (schema version 1) carry no envelope and are read as they are.
// An envelope keeps its paths and subjects (ids only) in clear, so opening needs no rules and the key shredder can
// learn from the log which keys belong to whom.
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { deepFreeze } from '../frozen.js';
import { nextNonce } from '../nonces.js';
import { type FieldPath, type SealGroup, erasedValue, personalFields, valueAt } from '../../domain/personalData.js';
import type {
  AppendResult,
  BatchHandler,
  EventStore,
  ExpectedRevision,
  NewEvent,
  Position,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  SubscribeToAllOptions,
  Subscription,
} from '../../ports/eventStore.js';
import { type DataKey, type Envelope, type KeyStore, SEALED, SEALED_SCHEMA, envelopesOf } from '../../ports/keyStore.js';

/** How a field whose key is gone reads: as the domain's erased value, or as null for the analysts' export. */
export type ErasedAs = 'domain' | 'null';

/** Reused keys whose last sealing is kept: a user's name and avatar in every message they send are sealed once. */
const REPEATED = 10_000;

export class SealingEventStore implements EventStore {
  /** Events already opened, by the recorded (frozen, shared) event: each subscriber of the embedded log gets the same. */
  private opened = new WeakMap<RecordedEvent, RecordedEvent>();
  /**
   * What this process sealed, by the sealed data it appended (which the embedded log hands its subscribers as it was
   * appended): its own events open without a decryption, and are forgotten with them.
   */
  private appended = new WeakMap<object, Pick<RecordedEvent, 'data' | 'metadata'>>();
  /** By reused key, the values it sealed last and their ciphertext (a map cleared when full: cheaper than an LRU). */
  private readonly repeated = new Map<string, { plain: string; sealed: Pick<Envelope, 'iv' | 'd' | 't'> }>();

  /** `closesKeys`: the store was opened for this log alone (a tool's), and closes with it. */
  constructor(
    private readonly inner: EventStore,
    private readonly keys: KeyStore,
    private readonly closesKeys = false,
  ) {
    keys.onDestroyed(() => {
      this.opened = new WeakMap();
      this.appended = new WeakMap();
      this.repeated.clear();
    });
  }

  /** The log as it is stored, envelopes and all: for the key shredder and the relay, which must not open it. */
  get sealedLog(): EventStore {
    return this.inner;
  }

  async appendToStream(streamId: string, events: NewEvent[], options?: { expectedRevision?: ExpectedRevision }): Promise<AppendResult> {
    const sealed: NewEvent[] = [];
    for (const event of events) sealed.push(await this.seal(event));
    return this.inner.appendToStream(streamId, sealed, options);
  }

  async readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.open(await this.inner.readStream(streamId, options));
  }

  async readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.open(await this.inner.readAll(options));
  }

  subscribeToAll(options: SubscribeToAllOptions, handler: BatchHandler, onError?: (error: unknown) => void): Subscription {
    return this.inner.subscribeToAll(options, async (events) => handler(await this.open(events)), onError);
  }

  headPosition(): Promise<Position | null> {
    return this.inner.headPosition();
  }

  async close(): Promise<void> {
    await this.inner.close();
    if (this.closesKeys) await this.keys.close();
  }

  private async seal(event: NewEvent): Promise<NewEvent> {
    const groups = personalFields(event);
    if (groups.length === 0) return event;
    const original = { data: event.data, metadata: event.metadata };
    const envelopes: Envelope[] = [];
    const emptied: [FieldPath, unknown][] = [];
    for (const group of groups) {
      const key = await this.keyFor(group);
      const values: unknown[] = [];
      for (const path of group.paths) {
        values.push(valueAt(original, path));
        emptied.push([path, null]);
      }
      const plain = JSON.stringify(values);
      // The same values under the same key may share one ciphertext (no nonce is reused for other values).
      const last = group.fresh ? undefined : this.repeated.get(key.id);
      let sealed = last?.plain === plain ? last.sealed : undefined;
      if (!sealed) {
        sealed = encrypt(key.key, plain);
        if (!group.fresh) {
          if (this.repeated.size >= REPEATED) this.repeated.clear();
          this.repeated.set(key.id, { plain, sealed });
        }
      }
      envelopes.push({ k: key.id, s: group.subjects, p: group.paths, iv: sealed.iv, d: sealed.d, t: sealed.t });
    }
    // Sealed fields stay in place as null, so opening puts each back where it was (clients compare bytes and key order).
    const root = withValues(original, emptied);
    // Where withValues copied the data (a path under it), the envelopes go into that copy rather than into another.
    const data = (root.data === original.data ? { ...(original.data as Record<string, unknown>) } : root.data) as Record<string, unknown>;
    data[SEALED] = envelopes;
    // Frozen when first read (open), after the log froze the sealed event: what the two share is walked once.
    this.appended.set(data, original);
    return { ...event, data, metadata: root.metadata as NewEvent['metadata'], schemaVersion: SEALED_SCHEMA };
  }

  private async keyFor(group: SealGroup): Promise<DataKey> {
    const owner = group.subjects[0];
    if (!group.fresh) {
      const current = await this.keys.current(owner);
      if (current) return current;
    }
    const key = await this.keys.create();
    if (!group.fresh) this.keys.use(owner, key);
    return key;
  }

  /** The events with their sealed fields opened, or read as erased where their key is gone. */
  async open(events: RecordedEvent[], erasedAs: ErasedAs = 'domain'): Promise<RecordedEvent[]> {
    const cache = erasedAs === 'domain' ? this.opened : null;
    const needed = new Set<string>();
    for (const event of events)
      if (!cache?.has(event) && !this.appended.has(event.data as object)) for (const envelope of envelopesOf(event)) needed.add(envelope.k);
    const keys = needed.size > 0 ? await this.keys.load([...needed]) : new Map<string, Buffer>();
    return events.map((event) => {
      const known = cache?.get(event);
      if (known) return known;
      const envelopes = envelopesOf(event);
      if (envelopes.length === 0) return event;
      const mine = this.appended.get(event.data as object);
      // Frozen, as every reader of the log gets its events: what was appended never changes.
      const opened = mine ? { ...event, ...deepFreeze(mine) } : openEvent(event, envelopes, keys, erasedAs);
      cache?.set(event, opened);
      return opened;
    });
  }
}

function openEvent(event: RecordedEvent, envelopes: Envelope[], keys: Map<string, Buffer>, erasedAs: ErasedAs): RecordedEvent {
  const { [SEALED]: _, ...data } = event.data as Record<string, unknown>;
  const entries: [FieldPath, unknown][] = [];
  let erased = false;
  for (const envelope of envelopes) {
    const key = keys.get(envelope.k);
    const values = key ? decrypt(key, envelope) : null;
    if (!values) erased = true;
    envelope.p.forEach((path, i) => entries.push([path, values ? values[i] : erasedAs === 'null' ? null : erasedValue(path)]));
  }
  const root = withValues(
    { data, metadata: event.metadata },
    entries.filter(([, value]) => value !== undefined),
  );
  const opened = { ...event, data: root.data, metadata: root.metadata as RecordedEvent['metadata'] };
  return erased && erasedAs === 'null' ? ({ ...opened, erased: true } as RecordedEvent) : opened;
}

function encrypt(key: Buffer, plain: string): { iv: string; d: string; t: string } {
  const iv = nextNonce();
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return { iv: iv.toString('base64'), d: data.toString('base64'), t: cipher.getAuthTag().toString('base64') };
}

/** The values an envelope sealed, or null when they do not open (a key that is not the one they were sealed with). */
function decrypt(key: Buffer, envelope: Envelope): unknown[] | null {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(envelope.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(envelope.t, 'base64'));
    return JSON.parse(Buffer.concat([decipher.update(Buffer.from(envelope.d, 'base64')), decipher.final()]).toString('utf8')) as unknown[];
  } catch {
    return null;
  }
}

/**
 * A copy of `root` with each path set to its value (undefined removes the field), copying only the objects and arrays
 * along the paths: the rest is shared with the original, which may be frozen.
 */
export function withValues<T extends Record<string, unknown>>(root: T, entries: [FieldPath, unknown][]): T {
  const copied = new Set<object>();
  const result = copyOf(root, copied);
  entries: for (const [path, value] of entries) {
    let node = result;
    for (let i = 0; i < path.length - 1; i++) {
      const child = node[path[i]];
      if (child === null || typeof child !== 'object') {
        if (value === undefined) continue entries;
        node[path[i]] = typeof path[i + 1] === 'number' ? [] : {};
      } else if (!copied.has(child)) {
        node[path[i]] = copyOf(child, copied);
      }
      node = node[path[i]] as Record<string | number, unknown>;
    }
    const last = path[path.length - 1];
    if (value === undefined) delete node[last];
    else node[last] = value;
  }
  return result as T;
}

/** A shallow copy of an object or array, remembered in `copied` (a module function: a closure per call costs a send). */
function copyOf(value: object, copied: Set<object>): Record<string | number, unknown> {
  const clone = (Array.isArray(value) ? [...value] : { ...value }) as Record<string | number, unknown>;
  copied.add(clone);
  return clone;
}
