// Promises that resolve once some progress through the log reaches a position: what caughtUp() and read-your-writes
// waits are made of.
import { type Position, comparePositions } from '../../ports/eventStore.js';

interface Waiter {
  target: Position;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class PositionWaiters {
  private waiters: Waiter[] = [];

  get size(): number {
    return this.waiters.length;
  }

  wait(target: Position): Promise<void> {
    return new Promise((resolve, reject) => this.waiters.push({ target, resolve, reject }));
  }

  /** Resolves every waiter whose target `reached` has got to. */
  settle(reached: Position | null): void {
    if (!reached) return;
    this.waiters = this.waiters.filter((waiter) => {
      if (comparePositions(reached, waiter.target) < 0) return true;
      waiter.resolve();
      return false;
    });
  }

  rejectAll(error: unknown): void {
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
  }
}
