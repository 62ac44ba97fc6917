// Personal data enters the log only as ciphertext (docs/privacy.md): this decorator of the EventStore port seals the
// fields domain/personalData.ts names, on append, each group with a data key of its subject from the key store, and
// opens them again on every read and subscription, so commands, projections, the gateway and delivery see clear text
// for as long as the key exists. A destroyed key leaves its fields as the domain's erased values; nothing is ever
// rewritten in the log. Events written before sealing (schema version 1) carry no envelope and are read as they are.
// An envelope keeps its paths and subjects (ids only) in clear, so opening needs no rules and the key shredder can
// learn from the log which keys belong to whom.
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { deepFreeze } from '../frozen.js';
import { nextNonce } from '../nonces.js';
import { type FieldPath, erasedValue, personalFields, valueAt } from '../../domain/personalData.js';
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

/**
 * What a process sealed, kept on the envelopes of the sealed data it appended (which the embedded log hands its
 * subscribers as it was appended) under a symbol that JSON and freezing pass over: its own events open without a
 * decryption, and are forgotten with them. A property rather than a WeakMap: two WeakMap entries a send cost the
 * collector more than the lookups they save. On the envelopes' array, not on the data: JSON.stringify leaves its fast
 * path for an object with a symbol key (about 1.3 µs more for a message's data), not for such an array.
 */
const APPENDED = Symbol('appended');
interface Appended {
  sealer: SealingEventStore;
  generation: number;
  original: Pick<RecordedEvent, 'data' | 'metadata'>;
  opened: RecordedEvent | null;
}

const NO_KEYS: ReadonlyMap<string, Buffer> = new Map();

/** Reused keys whose last sealing is kept: a user's name and avatar in every message they send are sealed once. */
const REPEATED = 10_000;

export class SealingEventStore implements EventStore {
  /** Events already opened, by the recorded (frozen, shared) event: each subscriber of the embedded log gets the same. */
  private opened = new WeakMap<RecordedEvent, RecordedEvent>();
  /** Bumped when keys are destroyed: what was appended before opens from the log again, as any other event. */
  private generation = 0;
  /**
   * By owner of a reused key, that key, the values it sealed last and their ciphertext (a map cleared when full:
   * cheaper than an LRU; cleared when any key is destroyed, so a destroyed key is never used again).
   */
  private readonly repeated = new Map<string, { key: DataKey; plain: string; sealed: Ciphertext | null }>();
  /** Profiles opened, by key, nonce and tag (openOnce): cleared when any key is destroyed. */
  private readonly profiles = new Map<string, readonly unknown[]>();
  /** Fresh keys fetchKeys waited for, which sealNow takes before the key store's. */
  private readonly spare: DataKey[] = [];

  /** `closesKeys`: the store was opened for this log alone (a tool's), and closes with it. */
  constructor(
    private readonly inner: EventStore,
    private readonly keys: KeyStore,
    private readonly closesKeys = false,
  ) {
    keys.onDestroyed(() => {
      this.opened = new WeakMap();
      this.generation += 1;
      this.repeated.clear();
      this.profiles.clear();
    });
  }

  /** The log as it is stored, envelopes and all: for the key shredder and the relay, which must not open it. */
  get sealedLog(): EventStore {
    return this.inner;
  }

  async appendToStream(streamId: string, events: NewEvent[], options?: { expectedRevision?: ExpectedRevision }): Promise<AppendResult> {
    const sealed: NewEvent[] = [];
    for (const event of events) {
      // Sealed synchronously when the keys are at hand (nearly always): an await per event is a measurable share of a send.
      let done = this.sealNow(event);
      while (!done) {
        await this.fetchKeys(event);
        done = this.sealNow(event);
      }
      sealed.push(done);
    }
    return this.inner.appendToStream(streamId, sealed, options);
  }

  async readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    const events = await this.inner.readStream(streamId, options);
    // A cached aggregate's top-up (a send makes two) mostly finds nothing new: nothing to open.
    return events.length === 0 ? events : this.open(events);
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

  /** The event sealed, or null when a key it needs is not at hand (fetchKeys gets it). */
  private sealNow(event: NewEvent): NewEvent | null {
    const groups = personalFields(event);
    if (groups.length === 0) return event;
    // Every key first, so that an event short of one takes none: the fresh ones taken go back for the next try.
    const fresh: DataKey[] = [];
    for (const group of groups) {
      const key = group.fresh ? (this.spare.pop() ?? this.keys.createNow()) : this.repeated.get(group.subjects[0])?.key;
      if (!key) {
        this.spare.push(...fresh);
        return null;
      }
      if (group.fresh) fresh.push(key);
    }
    const original = { data: event.data, metadata: event.metadata };
    const envelopes: Envelope[] = [];
    const emptied: FieldPath[] = [];
    let taken = 0;
    for (const group of groups) {
      const plain = JSON.stringify(group.paths.map((path) => valueAt(original, path)));
      const sealed = group.fresh ? new Ciphertext(fresh[taken++], plain) : this.sealReused(group.subjects[0], plain);
      for (const path of group.paths) emptied.push(path);
      envelopes.push(new PendingEnvelope(group.subjects, group.paths, sealed));
    }
    // Sealed fields stay in place as null, so opening puts each back where it was (clients compare bytes and key order).
    const root = withValues(original, emptied, () => null);
    // Where withValues copied the data (a path under it), the envelopes go into that copy rather than into another.
    const data = (root.data === original.data ? { ...(original.data as Record<string, unknown>) } : root.data) as Record<string, unknown>;
    // Frozen when first read (open), after the log froze the sealed event: what the two share is walked once.
    (envelopes as Envelope[] & { [APPENDED]?: Appended })[APPENDED] = { sealer: this, generation: this.generation, original, opened: null };
    data[SEALED] = envelopes;
    return { ...event, data, metadata: root.metadata as NewEvent['metadata'], schemaVersion: SEALED_SCHEMA };
  }

  /**
   * Sealed with the owner's current key (sealNow made sure it is known); the same values as its last sealing share
   * that ciphertext (no nonce is reused for other values), so a user's name in every message they send is encrypted once.
   */
  private sealReused(owner: string, plain: string): Ciphertext {
    const last = this.repeated.get(owner)!;
    if (last.plain === plain && last.sealed) return last.sealed;
    const sealed = new Ciphertext(last.key, plain);
    this.repeated.set(owner, { key: last.key, plain, sealed });
    return sealed;
  }

  /** Gets what sealNow found missing: fresh keys made, owners' current keys (a new one for an owner that has none). */
  private async fetchKeys(event: NewEvent): Promise<void> {
    const groups = personalFields(event);
    const fresh = groups.filter((group) => group.fresh).length;
    while (this.spare.length < fresh) this.spare.push(await this.keys.create());
    for (const group of groups) {
      const owner = group.subjects[0];
      if (group.fresh || this.repeated.has(owner)) continue;
      let key = await this.keys.current(owner);
      if (!key) {
        key = await this.keys.create();
        this.keys.use(owner, key);
      }
      if (this.repeated.size >= REPEATED) this.repeated.clear();
      this.repeated.set(owner, { key, plain: '', sealed: null });
    }
  }

  /**
   * The events with their sealed fields opened, or read as erased where their key is gone. The keys of a batch are
   * looked up once, together; each event is decrypted when its data or metadata is first read (the runner hands an
   * event only to the projections of its type, the gateway only to its derivers: most readers of most events never
   * look), and then once for all its readers. The analysts' export (`null`) opens at once: it reads every field.
   */
  async open(events: RecordedEvent[], erasedAs: ErasedAs = 'domain'): Promise<RecordedEvent[]> {
    const lazy = erasedAs === 'domain';
    const needed = new Set<string>();
    for (const event of events) {
      if (this.mine(event) || (lazy && this.opened.has(event))) continue;
      // By index: the log's events are frozen, and V8 steps through a frozen array's for…of with an object per step.
      const envelopes = envelopesOf(event);
      for (let i = 0; i < envelopes.length; i++) needed.add(envelopes[i].k);
    }
    const keys = needed.size > 0 ? await this.keys.load([...needed]) : NO_KEYS;
    const opener: Opener = { keys, profiles: this.profiles, erasedAs };
    return events.map((event) => {
      const mine = this.mine(event);
      // Frozen, as every reader of the log gets its events: what was appended never changes.
      if (mine) return (mine.opened ??= { ...event, ...deepFreeze(mine.original) });
      const envelopes = envelopesOf(event);
      if (envelopes.length === 0) return event;
      if (!lazy) return openEvent(event, envelopes, opener);
      // Only an event the log shares among its readers (its frozen tail) is remembered: a page read from disk is one
      // reader's own, and a million entries of a weak map cost the collector more than they could save.
      const shared = Object.isFrozen(event);
      const known = shared ? this.opened.get(event) : undefined;
      if (known) return known;
      const opened = new OpenedWhenRead(event, envelopes, opener);
      if (shared) this.opened.set(event, opened);
      return opened;
    });
  }

  /** What this process appended as `event`, while no key has been destroyed since. */
  private mine(event: RecordedEvent): Appended | null {
    const appended = (envelopesOf(event) as { [APPENDED]?: Appended })[APPENDED];
    return appended?.sealer === this && appended.generation === this.generation ? appended : null;
  }
}

/** What opening a batch needs: its keys, the profiles opened before, and how an erased field reads. */
interface Opener {
  keys: ReadonlyMap<string, Buffer>;
  profiles: Map<string, readonly unknown[]>;
  erasedAs: ErasedAs;
}

/**
 * An event whose data and metadata are opened when either is first read; the batch's keys are let go then. They are
 * own enumerable getters, so that a spread, JSON and for…in read them as fields, defined from one shared pair: a
 * getter made per event (an object literal's) leaves V8's fast properties, and costs ten times as much to make.
 */
class OpenedWhenRead implements RecordedEvent {
  static readonly #fields = {
    data: {
      get(this: OpenedWhenRead) {
        return this.#open().data;
      },
      enumerable: true,
    },
    metadata: {
      get(this: OpenedWhenRead) {
        return this.#open().metadata;
      },
      enumerable: true,
    },
  };

  readonly id: string;
  readonly streamId: string;
  readonly revision: bigint;
  readonly position: RecordedEvent['position'];
  readonly type: string;
  declare readonly data: unknown;
  declare readonly metadata: RecordedEvent['metadata'];
  readonly schemaVersion: number;
  #sealed: { event: RecordedEvent; envelopes: Envelope[]; opener: Opener } | null;
  #opened: RecordedEvent | null = null;

  constructor(event: RecordedEvent, envelopes: Envelope[], opener: Opener) {
    this.id = event.id;
    this.streamId = event.streamId;
    this.revision = event.revision;
    this.position = event.position;
    this.type = event.type;
    Object.defineProperty(this, 'data', OpenedWhenRead.#fields.data);
    Object.defineProperty(this, 'metadata', OpenedWhenRead.#fields.metadata);
    this.schemaVersion = event.schemaVersion;
    this.#sealed = { event, envelopes, opener };
  }

  #open(): RecordedEvent {
    if (!this.#opened) {
      const { event, envelopes, opener } = this.#sealed!;
      this.#opened = openEvent(event, envelopes, opener);
      this.#sealed = null;
    }
    return this.#opened;
  }
}

function openEvent(event: RecordedEvent, envelopes: Envelope[], { keys, profiles, erasedAs }: Opener): RecordedEvent {
  const sealed: FieldPath[][] = [];
  const opened: (readonly unknown[] | null)[] = [];
  for (const envelope of envelopes) {
    const key = keys.get(envelope.k);
    sealed.push(envelope.p);
    // A profile's values are shared by every event that repeats them: frozen.
    opened.push(key ? openOnce(key, envelope, profiles, decrypt, deepFreeze) : null);
  }
  return withOpened(event, sealed, opened, erasedAs);
}

/**
 * The event with each envelope's paths set to what it opened to (null: its key is gone, the fields read as erased).
 * The rebuild's read-ahead thread decrypts on its own (readAhead.ts), and its events come here with their data
 * already without the envelopes: a reader's own, set in place.
 */
export function withOpened(
  event: RecordedEvent,
  sealed: readonly (readonly FieldPath[])[],
  opened: readonly (readonly unknown[] | null)[],
  erasedAs: ErasedAs = 'domain',
): RecordedEvent {
  const stored = event.data as Record<string, unknown>;
  const data = SEALED in stored ? withoutEnvelopes(stored) : stored;
  const paths: FieldPath[] = [];
  const values: unknown[] = [];
  let erased = false;
  for (let e = 0; e < sealed.length; e++) {
    const open = opened[e];
    if (!open) erased = true;
    sealed[e].forEach((path, i) => {
      const value = open ? open[i] : erasedAs === 'null' ? null : erasedValue(path);
      if (value === undefined) return;
      paths.push(path);
      values.push(value);
    });
  }
  // `data` and the root are this call's own copies (or the caller's own data): set in place, not copied again.
  const unsealed = { data, metadata: event.metadata };
  const root = withValues(unsealed, paths, (i) => values[i], new Set([unsealed, data]));
  const result = { ...event, data: root.data, metadata: root.metadata as RecordedEvent['metadata'] };
  return erased && erasedAs === 'null' ? ({ ...result, erased: true } as RecordedEvent) : result;
}

/** A copy of sealed data without its envelopes. */
function withoutEnvelopes({ [SEALED]: _, ...data }: Record<string, unknown>): Record<string, unknown> {
  return data;
}

/** Opened profiles kept (a map cleared when full, and whenever a key is destroyed). */
const PROFILES = 10_000;

/**
 * What `open` makes of an envelope. A profile's (a user's name and avatar, sealed once under their key and repeated in
 * every message they send: sealReused) is opened once and kept in `profiles`, as `keep` makes it; other envelopes each
 * have their own key. The sealing store keeps the values, the rebuild's read-ahead thread their text.
 */
export function openOnce<T>(
  key: Buffer,
  envelope: Envelope,
  profiles: Map<string, T>,
  open: (key: Buffer, envelope: Envelope) => T | null,
  keep?: (opened: T) => T,
): T | null {
  if (!envelope.s[0].startsWith('user:')) return open(key, envelope);
  // The tag authenticates the ciphertext: under one key and nonce, another text would not have this tag.
  const id = `${envelope.k}:${envelope.iv}:${envelope.t}`;
  const known = profiles.get(id);
  if (known !== undefined) return known;
  const opened = open(key, envelope);
  if (opened === null) return null;
  if (profiles.size >= PROFILES) profiles.clear();
  const kept = keep ? keep(opened) : opened;
  profiles.set(id, kept);
  return kept;
}

/** What an encryption makes: the key's id is its envelope's own (Ciphertext.keyId). */
type Sealed = Pick<Envelope, 'iv' | 'd' | 't'>;

/**
 * Values to seal with a key, encrypted when first needed: when their event is serialized (the embedded log serializes
 * a group commit's events back to back) or their envelope is read. Setting up AES-GCM for a fresh key costs several
 * times more between a request's other work than in such a run (cold caches: 31–50 µs against 14 µs an encryption in a
 * microbenchmark). Its fields are private: freezing an event leaves them alone, and its key is never walked.
 */
class Ciphertext {
  #sealed: Sealed | null = null;
  /** Dropped once encrypted: the event the process keeps holds no more clear text than it did before. */
  #pending: { key: DataKey; plain: string } | null;

  readonly keyId: string;

  constructor(key: DataKey, plain: string) {
    this.keyId = key.id;
    this.#pending = { key, plain };
  }

  sealed(): Sealed {
    if (!this.#sealed) {
      const { key, plain } = this.#pending!;
      this.#sealed = encrypt(key, plain);
      this.#pending = null;
    }
    return this.#sealed;
  }
}

/** An envelope whose ciphertext is made when it is first serialized (toJSON) or read. */
class PendingEnvelope implements Envelope {
  readonly k: string;
  readonly #ciphertext: Ciphertext;

  constructor(
    readonly s: string[],
    readonly p: FieldPath[],
    ciphertext: Ciphertext,
  ) {
    this.k = ciphertext.keyId;
    this.#ciphertext = ciphertext;
  }

  get iv(): string {
    return this.#ciphertext.sealed().iv;
  }

  get d(): string {
    return this.#ciphertext.sealed().d;
  }

  get t(): string {
    return this.#ciphertext.sealed().t;
  }

  toJSON(): Envelope {
    const { iv, d, t } = this.#ciphertext.sealed();
    return { k: this.k, s: this.s, p: this.p, iv, d, t };
  }
}

function encrypt(key: DataKey, plain: string): Sealed {
  const iv = nextNonce();
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  // GCM's final() adds no bytes: the base64 of update() is the whole ciphertext (and a base64 output encoding for
  // update() and final() would cost a string decoder per call: about a tenth of an encryption).
  const d = cipher.update(plain, 'utf8').toString('base64');
  cipher.final();
  return { iv: iv.toString('base64'), d, t: cipher.getAuthTag().toString('base64') };
}

/** The values an envelope sealed, or null when they do not open (a key that is not the one they were sealed with). */
function decrypt(key: Buffer, envelope: Envelope): unknown[] | null {
  const plain = decryptText(key, envelope);
  return plain === null ? null : (JSON.parse(plain) as unknown[]);
}

/** The JSON text of the values an envelope sealed, or null when they do not open. */
export function decryptText(key: Buffer, envelope: Pick<Envelope, 'iv' | 'd' | 't'>): string | null {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(envelope.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(envelope.t, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(envelope.d, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/**
 * A copy of `root` with each of `paths` set to its value (`valueOf` its index; undefined removes the field), copying
 * only the objects and arrays along the paths: the rest is shared with the original, which may be frozen. `copied`:
 * objects the caller made for this call (the root among them, or not), set in place rather than copied.
 */
export function withValues<T extends Record<string, unknown>>(
  root: T,
  paths: readonly FieldPath[],
  valueOf: (index: number) => unknown,
  copied = new Set<object>(),
): T {
  const result = copied.has(root) ? (root as Record<string | number, unknown>) : copyOf(root, copied);
  entries: for (let p = 0; p < paths.length; p++) {
    const path = paths[p];
    const value = valueOf(p);
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
