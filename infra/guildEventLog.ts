// The analysts' reading of the log (commands/guildEvents.ts): the log as stored, followed by position, with only the
// events chosen opened, and opened as `replay export` opens them: a field whose key is gone reads null and its event
// says `erased: true`. Choosing before opening means another guild's events cost no decryption.
import type { GuildEventLog } from '../commands/guildEvents.js';
import type { SealingEventStore } from './eventStore/sealing.js';

export function guildEventLog(store: SealingEventStore): GuildEventLog {
  return {
    follow(after, select, handler, onError) {
      return store.sealedLog.subscribeToAll(
        after ? { fromPosition: after } : {},
        async (batch) => {
          const chosen = batch.filter(select);
          await handler(chosen.length > 0 ? await store.open(chosen, 'null') : [], batch[batch.length - 1].position);
        },
        onError,
      );
    },
    head: () => store.headPosition(),
  };
}
