// DMs left over from deletions made before account deletion left DMs (DmRecipientLeft): both participants' accounts
// were deleted, so no one can reach the DM, but nothing ended it and its messages and files stayed. At each start the
// background workers' role ends them as the second deletion would now: the first participant leaves (leaveDms, the
// account deletion's own step), the second counts as gone, and the projections, the key shredder and the attachment
// remover do the rest. Newer deletions leave none, so once a pass has ended them a start costs one read-model query
// that finds nothing. A failed pass is logged and tried again later: it never fails the start.
import { leaveDms } from '../commands/accountDeletion.js';
import { type Uses, lastPosition, serviceMeta, settleWithFiles } from '../commands/deps.js';
import { type EventStore, type Position, comparePositions } from '../ports/eventStore.js';
import type { Logger } from '../ports/logger.js';
import { dmsProjection } from '../projections/dms.js';
import { dmsShowingBothDeleted } from '../projections/dms.queries.js';
import { usersProjection } from '../projections/users.js';
import { usersByIds } from '../projections/users.queries.js';

export interface LeftoverDmsDeps extends Uses<'commands' | 'readStore' | 'clock' | 'settle' | 'settleFiles'> {
  store: Pick<EventStore, 'headPosition'>;
  log: Logger;
}

/** DMs read at a time. */
const BATCH = 100;
/** How long after a failed pass the next one starts. */
const RETRY_MS = 60_000;

export class LeftoverDms {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly deps: LeftoverDmsDeps) {}

  /** Starts a pass and returns: the start does not wait for it. */
  start(): void {
    this.running = this.endAll()
      .then((ended) => {
        if (ended > 0) this.deps.log.info({ ended }, `ended ${ended} DM(s) whose two accounts were deleted before account deletion left DMs`);
      })
      .catch((error: unknown) => {
        this.deps.log.error({ err: error }, `ending the DMs of two deleted accounts failed: trying again in ${RETRY_MS / 1000} s`);
        if (this.stopped) return;
        this.timer = setTimeout(() => this.start(), RETRY_MS);
        this.timer.unref();
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** How many DMs it ended, once their keys, documents and files are gone. */
  private async endAll(): Promise<number> {
    await this.readModelsAt(await this.deps.store.headPosition());
    let ended = 0;
    let last: Position | null = null;
    let afterId = '';
    while (!this.stopped) {
      const shown = await dmsShowingBothDeleted(this.deps.readStore, afterId, BATCH);
      if (shown.length === 0) break;
      const users = await usersByIds(
        this.deps.readStore,
        shown.flatMap((dm) => dm.recipient_ids),
      );
      const deleted = new Set(users.filter((user) => user.deleted).map((user) => user._id));
      for (const dm of shown.filter((dm) => dm.recipient_ids.every((id) => deleted.has(id)))) {
        const position = await leaveDms(this.deps, serviceMeta(this.deps), dm.recipient_ids[0], [dm]);
        if (position) ended += 1;
        last = lastPosition(last, position);
      }
      afterId = shown.at(-1)!._id;
    }
    await settleWithFiles(this.deps, last);
    return ended;
  }

  /**
   * Waits for the DMs and users read models to show the log up to `head`, which holds every deletion made before the
   * upgrade. A wait for the shared read store gives up after its timeout (a distributed projector still catching up):
   * the query would miss what they do not show yet, so the pass fails, to be tried again.
   */
  private async readModelsAt(head: Position | null): Promise<void> {
    if (!head) return;
    await this.deps.settle(head);
    const checkpoints = await this.deps.readStore.getCheckpoints([dmsProjection.name, usersProjection.name]);
    if ([...checkpoints.values()].some((done) => !done || comparePositions(done, head) < 0))
      throw new Error('the DMs and users read models are behind the log');
  }
}
