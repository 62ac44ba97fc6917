// A catch-up subscription over a log that can be read in pages by position. It reads from the checkpoint until a
// page comes back empty, then waits to be woken by the next append and reads again from where it stopped. Catch-up
// and live are the same read, so the switch can neither skip nor repeat an event.
import { type BatchHandler, type Position, type RecordedEvent, type Subscription, comparePositions } from '../../ports/eventStore.js';

/** A catch-up runs at most this long before it lets other work in. */
const YIELD_AFTER_MS = 20;

export interface CatchUpOptions {
  /** Exclusive start; null = from the beginning of the log. */
  from: Position | null;
  excludeTypePrefix?: string;
  /** Events strictly after `after` (from the start when null), in order. An empty page means caught up. */
  readPage: (after: Position | null) => Promise<RecordedEvent[]>;
  head: () => Promise<Position | null>;
  handler: BatchHandler;
  onError?: (error: unknown) => void;
  onStop?: () => void;
  /**
   * Whether a failed read or handler is worth trying again (an engine's outage): the ms to wait before reading again
   * from the last position handled, or null to stop the subscription (onError). `attempt` counts from 0 per outage.
   */
  retryAfter?: (error: unknown, attempt: number) => number | null;
}

export class CatchUpSubscription implements Subscription {
  private last: Position | null;
  private stopped = false;
  private wakeups = 0;
  private sleeper: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private waiters: { target: Position; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private failure: unknown = null;
  /** When the loop last let the event loop run other work (a timer, a request). */
  private ranSince = performance.now();

  constructor(private readonly options: CatchUpOptions) {
    this.last = options.from;
  }

  start(): void {
    this.loop = this.run();
  }

  /** Called by the log after each append. */
  wake(): void {
    this.wakeups += 1;
    const sleeper = this.sleeper;
    this.sleeper = null;
    sleeper?.();
  }

  private async run(): Promise<void> {
    try {
      for (let failures = 0; !this.stopped;) {
        try {
          await this.step();
          failures = 0;
        } catch (error) {
          const wait = this.options.retryAfter?.(error, failures++) ?? null;
          if (wait === null || this.stopped) throw error;
          // Read again from the last batch handled: what failed is read (and handed on) again, nothing is skipped.
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, wait);
            this.sleeper = () => (clearTimeout(timer), resolve());
          });
        }
      }
    } catch (error) {
      this.failure = error;
      this.stopped = true;
      for (const waiter of this.waiters.splice(0)) waiter.reject(error);
      this.options.onError?.(error);
    }
  }

  /** Reads a page and hands it on, or sleeps until woken when there is nothing new. */
  private async step(): Promise<void> {
    const seen = this.wakeups;
    const page = await this.options.readPage(this.last);
    if (this.stopped) return;
    if (page.length === 0) {
      this.settleWaiters();
      if (this.wakeups === seen) await new Promise<void>((resolve) => (this.sleeper = resolve));
      this.ranSince = performance.now();
      return;
    }
    const prefix = this.options.excludeTypePrefix;
    const events = prefix ? page.filter((e) => !e.type.startsWith(prefix)) : page;
    if (events.length > 0) await this.options.handler(events);
    this.last = page[page.length - 1].position;
    this.settleWaiters();
    // The embedded log reads a page synchronously and most handlers finish in microtasks: a long catch-up would
    // otherwise hold the event loop until it ends, and the server it runs in could not even start listening.
    if (performance.now() - this.ranSince > YIELD_AFTER_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      this.ranSince = performance.now();
    }
  }

  private settleWaiters(): void {
    const last = this.last;
    this.waiters = this.waiters.filter((waiter) => {
      if (last && comparePositions(last, waiter.target) >= 0) {
        waiter.resolve();
        return false;
      }
      return true;
    });
  }

  async caughtUp(): Promise<void> {
    if (this.failure) throw this.failure;
    const head = await this.options.head();
    if (!head || (this.last && comparePositions(this.last, head) >= 0)) return;
    await new Promise<void>((resolve, reject) => {
      this.waiters.push({ target: head, resolve, reject });
      this.wake();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop;
    for (const waiter of this.waiters.splice(0)) waiter.reject(new Error('subscription stopped'));
    this.options.onStop?.();
  }
}
