// The analysts' reading of the log (commands/guildEvents.ts): the log as stored, followed by position, and the events
// chosen opened when the stream writes them, as `replay export` opens them: a field whose key is gone reads null and
// its event says `erased: true`. Choosing before opening means another guild's events cost no decryption.
import type { GuildEventLog } from '../commands/guildEvents.js';
import type { SealingEventStore } from './eventStore/sealing.js';

export function guildEventLog(store: SealingEventStore): GuildEventLog {
  return {
    follow(after, select, handler, onError) {
      return store.sealedLog.subscribeToAll(
        after ? { fromPosition: after } : {},
        (batch) => handler(batch.filter(select), batch[batch.length - 1].position),
        onError,
      );
    },
    open: (events) => store.open(events, 'null'),
    head: () => store.headPosition(),
  };
}
