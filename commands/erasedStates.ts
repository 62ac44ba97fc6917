// What the command side's cache of folded states must forget when something is erased. A deleted message's stream
// keeps its last version in its state (the deletion only marks it), an erased account's stream its names and email,
// every message of a deleted channel or guild its text, every thread of a deleted guild its name: such states leave the cache when the erasure is appended
// or read here, and again once the key shredder has destroyed the keys (a load in between folds the still-readable
// text). The subjects come from the rule the shredder follows (domain/personalData.ts).
import { erasures } from '../domain/personalData.js';
import { messageStream, threadStream, userStream } from './streams.js';

/** Beyond this many streams noted between two destructions, the next destruction drops every state instead. */
const PENDING_MAX = 1000;

/** The cache of folded states (commands/handle.ts), as far as forgetting goes. */
interface StateCache {
  forgetStream(streamId: string): void;
  forgetUnder(prefix: string): void;
}

/** The states an erasure shows: one stream's, or those of every stream under a prefix. */
type Shown = { stream: string } | { prefix: string };

/** The streams whose states show an erased subject. */
function statesShowing(subject: string): Shown[] {
  const id = subject.slice(subject.indexOf(':') + 1);
  if (subject.startsWith('message:')) return [{ stream: messageStream(id) }];
  if (subject.startsWith('user:')) return [{ stream: userStream(id) }];
  // A channel's or guild's messages are not known by stream here: every message's state goes (such deletions are rare).
  // A deleted thread's or ended group DM's own stream holds its erasure, so no state of it is kept (commands/handle.ts);
  // a deleted guild's threads' do not, and show their names, sealed under the guild's keys too: every thread's goes.
  if (subject.startsWith('guild:')) return [{ prefix: messageStream('') }, { prefix: threadStream('') }];
  return [{ prefix: messageStream('') }];
}

export class ErasedStates {
  /** What to forget again once keys are destroyed. */
  private readonly streams = new Set<string>();
  private readonly prefixes = new Set<string>();

  constructor(private readonly cache: StateCache) {}

  /** Forgets the states the events' erasures show (an edit's, of the version it replaced, shows in none); whether any. */
  note(events: readonly { type: string; data: unknown }[]): boolean {
    let any = false;
    for (const event of events)
      for (const erasure of erasures(event)) {
        if (erasure.keepKeyOf) continue;
        for (const shown of statesShowing(erasure.subject)) {
          if ('stream' in shown) {
            this.cache.forgetStream(shown.stream);
            if (this.streams.size < PENDING_MAX) this.streams.add(shown.stream);
            else this.prefixes.add('');
          } else {
            this.cache.forgetUnder(shown.prefix);
            this.prefixes.add(shown.prefix);
          }
        }
        any = true;
      }
    return any;
  }

  keysDestroyed(): void {
    for (const prefix of this.prefixes) this.cache.forgetUnder(prefix);
    if (!this.prefixes.has('')) for (const stream of this.streams) this.cache.forgetStream(stream);
    this.prefixes.clear();
    this.streams.clear();
  }
}
