// `npm run replay -- erase --user ID`: an operator carries out an erasure request, with the same use case as
// POST /users/@me/delete (commands/accountDeletion.ts) minus the password. The tool projects its own events, as a
// rebuild does, so the processes that run projectors (the server, embedded) must be stopped first: a running one keeps
// tokens and documents in memory that it learns have changed only through its own writes (infra/readStore/cached.ts),
// and would keep honouring the erased tokens. On the embedded default the replay tool holds DATA_DIR's lock while it
// runs (infra/dataDirLock.ts), so a running server makes it refuse.
import { deleteAccount } from '../commands/accountDeletion.js';
import { AggregateCache, CommandHandler } from '../commands/handle.js';
import { systemClock } from '../ports/clock.js';
import type { KeyStore } from '../ports/keyStore.js';
import { KeyShredder } from '../processes/keyShredding.js';
import type { SealingEventStore } from './eventStore/sealing.js';
import type { ReadStore } from '../ports/readStore.js';
import type { SecretBox } from '../ports/secrets.js';
import { allProjections } from '../projections/index.js';
import { ProjectionRunner } from '../projections/runner.js';
import { userById } from '../projections/users.queries.js';

/** Deletes the account `userId`, writing a progress line per step to `out`; refuses an unknown id. */
export async function eraseAccount(
  { store, keys, readStore, secrets }: { store: SealingEventStore; keys: KeyStore; readStore: ReadStore; secrets: SecretBox },
  userId: string,
  out: NodeJS.WritableStream,
): Promise<void> {
  let failure: unknown = null;
  const projections = new ProjectionRunner(store, readStore, allProjections, (error) => (failure = error));
  // The profile key goes as the server's shredder would destroy it: by following the log to the erasure.
  const shredder = new KeyShredder(store.sealedLog, keys, (error) => (failure = error));
  await projections.start();
  await shredder.start();
  try {
    await projections.caughtUp();
    if (!/^\d{1,20}$/.test(userId) || !(await userById(readStore, userId))) throw new Error(`no user has the id ${userId}`);
    const deps = {
      commands: new CommandHandler(store, new AggregateCache()),
      readStore,
      secrets,
      clock: systemClock,
      settle: (position: Parameters<ProjectionRunner['waitFor']>[0]) => projections.waitFor(position),
      // The erasure is the last event the deletion appends: the shredder caught up with the log has destroyed its keys.
      settleFiles: () => shredder.caughtUp(),
    };
    // Each event records the account itself as the actor (it leaves its guilds), and the operator's request as the reason.
    await deleteAccount(deps, { actorId: userId, reason: 'erasure request' }, null, (step) => out.write(`erase ${userId}: ${step}\n`));
    if (failure) throw failure;
  } finally {
    await shredder.stop();
    await projections.stop();
  }
}
