// Work a gateway component starts with no request waiting on it (voice states of ended sessions, ring timeouts): its
// failure is logged, not thrown at nobody, and a closing gateway waits for what is under way before the store closes.
export class BackgroundWork {
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly failed: (error: unknown) => void) {}

  /** Tracks `work`; the promise returned settles with it and never rejects (callers that do not wait mark it `void`). */
  add(work: Promise<unknown>): Promise<void> {
    const tracked = work.then(() => {}, this.failed);
    this.running.add(tracked);
    void tracked.finally(() => this.running.delete(tracked));
    return tracked;
  }

  /** Resolves once the work added so far is done. */
  async settled(): Promise<void> {
    await Promise.all([...this.running]);
  }
}
