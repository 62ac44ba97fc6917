// The key shredder: follows the log as it is stored (sealed), learns from each event's envelopes which keys belong to
// which subjects, and destroys the keys of the subjects an event erases (domain/personalData.ts: a deleted message,
// an edit's previous version, a deleted channel or guild, an erased account). The log is the truth: its checkpoint is
// kept in the key store itself, in the same write, so a crash replays at most one batch, and a key store restored
// from an older backup replays every erasure the log recorded since (README, Privacy: backups). Commands that erase
// wait for it (settleFiles), so a 2xx means the keys are gone.
import { LRUCache } from 'lru-cache';
import { type FieldPath, erasures } from '../domain/personalData.js';
import { type EventStore, type Position, PositionWaits, type RecordedEvent, type Subscription, comparePositions } from '../ports/eventStore.js';
import { type Envelope, type KeyChanges, type KeyStore, envelopesOf } from '../ports/keyStore.js';

/** Batches that destroy nothing move the checkpoint at most this often (in events). */
const CHECKPOINT_EVERY = 1000;

/** Whether the envelope seals a field at or under `field`. */
function seals(envelope: Envelope, field: FieldPath): boolean {
  return envelope.p.some((path) => field.every((key, i) => path[i] === key));
}

export class KeyShredder {
  private subscription: Subscription | null = null;
  private processed: Position | null = null;
  private pending: KeyChanges = { owned: [], erased: [] };
  private uncheckpointed = 0;
  private readonly waits = new PositionWaits();
  /** Reused keys whose owners were learnt already (a message's key is never reused: it is not kept). */
  private readonly known = new LRUCache<string, true>({ max: 10_000 });

  /** `log`: the log as stored, whose envelopes name the keys. */
  constructor(
    private readonly log: EventStore,
    private readonly keys: KeyStore,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  async start(): Promise<void> {
    const from = await this.keys.checkpoint();
    this.processed = from;
    this.subscription = this.log.subscribeToAll(
      { fromPosition: from ?? undefined },
      (events) => this.follow(events),
      (error) => {
        this.subscription = null;
        this.waits.releaseAll();
        this.onError(error);
      },
    );
  }

  private async follow(events: RecordedEvent[]): Promise<void> {
    let previous = this.processed;
    for (const event of events) {
      const envelopes = envelopesOf(event);
      // The key store learns a batch's owners before it erases: a key that comes after an erasure of its subject in
      // the same batch (a second edit after the first) must not be taken by it, so what came before is applied first.
      if (previous && envelopes.some((envelope) => envelope.s.some((subject) => this.pending.erased.some((erasure) => erasure.subject === subject)))) {
        await this.flush(previous);
      }
      // By index: the log's events are frozen, and V8 steps through a frozen array's for…of with an object per step.
      for (let e = 0; e < envelopes.length; e++) {
        const envelope = envelopes[e];
        // A user's key seals their name in every message they send: it is learnt once, not once a message.
        if (this.known.has(envelope.k)) continue;
        if (!envelope.s[0].startsWith('message:')) this.known.set(envelope.k, true);
        for (let s = 0; s < envelope.s.length; s++) this.pending.owned.push({ keyId: envelope.k, subject: envelope.s[s] });
      }
      for (const erasure of erasures(event)) {
        const keep = erasure.keepKeyOf;
        const own = keep ? envelopes.find((envelope) => envelope.s[0] === erasure.subject && seals(envelope, keep))?.k : undefined;
        this.pending.erased.push({ subject: erasure.subject, except: own });
      }
      previous = event.position;
    }
    const last = events[events.length - 1].position;
    this.uncheckpointed += events.length;
    if (this.pending.erased.length > 0 || this.uncheckpointed >= CHECKPOINT_EVERY || this.pending.owned.length >= CHECKPOINT_EVERY) await this.flush(last);
    this.processed = last;
    this.waits.reached(last);
  }

  private async flush(through: Position): Promise<void> {
    await this.keys.apply(this.pending, through);
    this.pending = { owned: [], erased: [] };
    this.uncheckpointed = 0;
  }

  /**
   * Resolves once the keys the log erased up to `position` are destroyed, or at once when the shredder is not running:
   * true then, false when `timeoutMs` passed first.
   */
  async waitFor(position: Position | null, timeoutMs: number): Promise<boolean> {
    if (!position || !this.subscription) return true;
    if (!this.reached(position)) await this.waits.wait(position, timeoutMs);
    return this.reached(position);
  }

  private reached(position: Position): boolean {
    return this.processed !== null && comparePositions(this.processed, position) >= 0;
  }

  async caughtUp(): Promise<void> {
    await this.subscription?.caughtUp();
  }

  async stop(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = null;
    await subscription?.stop();
    // What it learnt of owners since the last checkpoint is kept, with the position it got to.
    if (this.processed && (this.pending.owned.length > 0 || this.uncheckpointed > 0)) await this.keys.apply(this.pending, this.processed);
    this.pending = { owned: [], erased: [] };
    this.waits.releaseAll();
  }
}
