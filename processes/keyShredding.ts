// The key shredder: follows the log as it is stored (sealed), learns from each event's envelopes which keys belong to
// which subjects, and destroys the keys of the subjects an event erases (domain/personalData.ts: a deleted message,
// an edit's previous version, a deleted channel or guild, an erased account). The log is the truth: its checkpoint is
// kept in the key store itself, in the same write, so a crash replays at most one batch, and a key store restored
// from an older backup replays every erasure the log recorded since (README, Privacy: backups). Commands that erase
// wait for it (settleFiles), so a 2xx means the keys are gone.
import { LRUCache } from 'lru-cache';
import { type FieldPath, erasures } from '../domain/personalData.js';
import type { EventStore, Position } from '../ports/eventStore.js';
import { type Envelope, type KeyChanges, type KeyStore, envelopesOf } from '../ports/keyStore.js';
import { CHECKPOINT_EVERY, LogFollower, reactor } from '../projections/reactor.js';

/** Whether the envelope seals a field at or under `field`. */
function seals(envelope: Envelope, field: FieldPath): boolean {
  return envelope.p.some((path) => field.every((key, i) => path[i] === key));
}

/** What the shredder learnt since its last checkpoint, and the key store it goes to. */
class Shredding {
  pending: KeyChanges = { owned: [], erased: [] };
  /** Reused keys whose owners were learnt already (a message's key is never reused: it is not kept). */
  readonly known = new LRUCache<string, true>({ max: 10_000 });

  constructor(readonly keys: KeyStore) {}

  /** Applies what was learnt, with the position it holds through: the checkpoint is in the key store's same write. */
  async flush(through: Position): Promise<void> {
    await this.keys.apply(this.pending, through);
    this.pending = { owned: [], erased: [] };
  }
}

/** Every event: the owners of keys are learnt from each event's envelopes, whatever its type. */
const keyShredding = reactor({
  name: 'keyShredder',
  handles: 'every event',
  async react(events, shredding: Shredding) {
    // A batch starts with no erasure pending: one makes its batch checkpoint (and flush) at once.
    let previous: Position | null = null;
    for (const event of events) {
      const envelopes = envelopesOf(event);
      const { pending } = shredding;
      // The key store learns a batch's owners before it erases: a key that comes after an erasure of its subject in
      // the same batch (a second edit after the first) must not be taken by it, so what came before is applied first.
      if (previous && envelopes.some((envelope) => envelope.s.some((subject) => pending.erased.some((erasure) => erasure.subject === subject)))) {
        await shredding.flush(previous);
      }
      const { owned, erased } = shredding.pending;
      // By index: the log's events are frozen, and V8 steps through a frozen array's for…of with an object per step.
      for (let e = 0; e < envelopes.length; e++) {
        const envelope = envelopes[e];
        // A user's key seals their name in every message they send: it is learnt once, not once a message.
        if (shredding.known.has(envelope.k)) continue;
        if (!envelope.s[0].startsWith('message:')) shredding.known.set(envelope.k, true);
        for (let s = 0; s < envelope.s.length; s++) owned.push({ keyId: envelope.k, subject: envelope.s[s] });
      }
      for (const erasure of erasures(event)) {
        const keep = erasure.keepKeyOf;
        const own = keep ? envelopes.find((envelope) => envelope.s[0] === erasure.subject && seals(envelope, keep))?.k : undefined;
        erased.push({ subject: erasure.subject, except: own });
      }
      previous = event.position;
    }
    const { pending } = shredding;
    if (pending.erased.length > 0 || pending.owned.length >= CHECKPOINT_EVERY) return 'checkpoint';
  },
});

export class KeyShredder {
  private readonly follower: LogFollower<Shredding>;

  /** `log`: the log as stored, whose envelopes name the keys. */
  constructor(log: EventStore, keys: KeyStore, onError: (error: unknown) => void = () => {}) {
    const shredding = new Shredding(keys);
    const checkpoint = { load: () => keys.checkpoint(), save: (position: Position) => shredding.flush(position) };
    this.follower = new LogFollower(keyShredding, shredding, log, checkpoint, onError);
  }

  start(): Promise<void> {
    return this.follower.start();
  }

  /**
   * Resolves once the keys the log erased up to `position` are destroyed, or at once when the shredder is not running:
   * true then, false when `timeoutMs` passed first.
   */
  waitFor(position: Position | null, timeoutMs: number): Promise<boolean> {
    return this.follower.waitFor(position, timeoutMs);
  }

  caughtUp(): Promise<void> {
    return this.follower.caughtUp();
  }

  /** Stops; what it learnt of owners since the last checkpoint is kept, with the position it got to. */
  stop(): Promise<void> {
    return this.follower.stop();
  }
}
