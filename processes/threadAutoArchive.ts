// Auto-archiving, as the widely used API does it: a thread with no activity (a message, its creation or unarchiving)
// for its auto_archive_duration is archived, recorded as ThreadArchived with no actor (whose dispatch is THREAD_UPDATE,
// and which makes no audit-log entry). Every sweep asks the threads read model, which the log feeds, for the threads
// idle by the clock port's time: a restart (or a process that starts late) finds every thread that fell idle
// meanwhile, the send path does nothing for it, and a sweep costs one indexed range read per duration. The thread's
// decider has the last word, so a thread that came back to life, was archived or deleted in between is left alone.
import type { Uses } from '../commands/deps.js';
import { archiveIdleThread } from '../commands/threads.js';
import type { EventStore } from '../ports/eventStore.js';
import type { Logger } from '../ports/logger.js';
import { idleThreads } from '../projections/threads.queries.js';

export interface AutoArchiveDeps extends Uses<'commands' | 'readStore' | 'clock' | 'settle'> {
  store: Pick<EventStore, 'headPosition'>;
  log: Logger;
}

/** Threads archived per read of the idle index; a longer backlog takes further reads in the same sweep. */
const SWEEP_BATCH = 100;

export class ThreadAutoArchive {
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;
  private stopped = false;

  /** `sweepEveryMs`: how often the clock is asked, the lateness an archiving may have past its due time. */
  constructor(
    private readonly runtime: AutoArchiveDeps,
    private readonly sweepEveryMs: number,
  ) {}

  /** Sweeps at once (what fell idle while no process ran), then every `sweepEveryMs`. */
  start(): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), this.sweepEveryMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.sweeping;
  }

  /** One sweep at a time: a slow one is not overtaken by the next. */
  private tick(): void {
    if (this.sweeping) return;
    this.sweeping = this.sweep()
      .catch((error: unknown) => this.runtime.log.error({ err: error }, 'reading the idle threads failed'))
      .finally(() => (this.sweeping = null));
  }

  private async sweep(): Promise<void> {
    // The read models first show the whole log as it is now (after a restart they may still be catching up), so a
    // message sent before the sweep counts; one sent during it waits behind the archiving (commands/threads.ts).
    await this.runtime.settle(await this.runtime.store.headPosition());
    for (;;) {
      const due = await idleThreads(this.runtime.readStore, this.runtime.clock.now(), SWEEP_BATCH);
      let archived = 0;
      for (const thread of due) {
        if (this.stopped) return; // the next start finds the rest
        // One thread's failure (its stream contended) is retried by the next sweep, without holding the others back.
        const done = await archiveIdleThread(this.runtime, thread._id).catch((error: unknown) => {
          this.runtime.log.error({ err: error, threadId: thread._id }, 'archiving an idle thread failed');
          return false;
        });
        if (done) archived += 1;
      }
      // A short batch was all that is due; one that archived nothing holds threads the read model shows late.
      if (due.length < SWEEP_BATCH || archived === 0) return;
    }
  }
}
