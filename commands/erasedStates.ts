// What the command side's cache of folded states must forget when something is erased. A deleted message's stream
// keeps its last version in its state (the deletion only marks it), an erased account's stream its names and email,
// and every message of a deleted channel or guild its text: such states leave the cache when the erasure is appended
// or read here, and again once the key shredder has destroyed the keys (a load in between folds the still-readable
// text). The subjects come from the rule the shredder follows (domain/personalData.ts).
import { erasures } from '../domain/personalData.js';
import { messageStream, userStream } from './streams.js';

/** Beyond this many erasures noted between two destructions, the next destruction clears the whole cache instead. */
const PENDING_MAX = 1000;

type StreamPicker = (streamId: string) => boolean;

/** The cache of folded states (commands/handle.ts), as far as forgetting goes. */
interface StateCache {
  forget(which: StreamPicker): void;
}

/** The streams whose states show an erased subject; an edit's erasure (of the version it replaced) leaves none. */
function statesShowing(subject: string): StreamPicker {
  const [kind, id] = [subject.slice(0, subject.indexOf(':')), subject.slice(subject.indexOf(':') + 1)];
  switch (kind) {
    case 'message': {
      const stream = messageStream(id);
      return (streamId) => streamId === stream;
    }
    case 'user': {
      const stream = userStream(id);
      return (streamId) => streamId === stream;
    }
    // A channel's or guild's messages are not known by stream here: every message's state goes (such deletions are rare).
    default:
      return (streamId) => streamId.startsWith(messageStream(''));
  }
}

export class ErasedStates {
  /** What to forget again once keys are destroyed. */
  private pending: StreamPicker[] = [];

  constructor(private readonly cache: StateCache) {}

  /** Forgets the states the events' erasures show; whether there were any. */
  note(events: readonly { type: string; data: unknown }[]): boolean {
    let any = false;
    for (const event of events)
      for (const erasure of erasures(event)) {
        if (erasure.keepOwn) continue;
        const picker = statesShowing(erasure.subject);
        this.cache.forget(picker);
        if (this.pending.length < PENDING_MAX) this.pending.push(picker);
        else this.pending = [() => true];
        any = true;
      }
    return any;
  }

  keysDestroyed(): void {
    if (this.pending.length === 0) return;
    const pickers = this.pending;
    this.pending = [];
    this.cache.forget((streamId) => pickers.some((pick) => pick(streamId)));
  }
}
