// Snowflake ids carry the process that made them (WORKER_ID and PROCESS_ID, 5 bits each): two processes with the same
// pair can mint the same id in the same millisecond. Every process therefore holds its pair as a lease in a store all
// processes of the deployment share (MongoDB; DATA_DIR for the embedded server and its tools), renewed while it runs:
// PROCESS_ID set and held by another running process refuses to start; PROCESS_ID unset takes the first free one, so
// replicas of one service (`--scale delivery=3`) need no settings of their own.
import type { Clock } from '../ports/clock.js';
import { LEASE_MS, type Leases, RENEW_MS } from '../ports/leases.js';

const IDS = 32;

const leaseName = (workerId: number, processId: number) => `snowflake:${workerId}:${processId}`;

export class ProcessIdLease {
  private timer: NodeJS.Timeout | null = null;
  private until: number;

  private constructor(
    private readonly leases: Leases,
    readonly workerId: number,
    readonly processId: number,
    private readonly holder: string,
    private readonly clock: Clock,
    until: number,
    private readonly onLost: (error: Error) => void,
  ) {
    this.until = until;
    this.timer = setInterval(() => void this.renew(), RENEW_MS);
    this.timer.unref();
  }

  /** Takes `processId` (null: the first free one) of `workerId` for `holder`; refuses when none can be had. */
  static async take(
    leases: Leases,
    ids: { workerId: number; processId: number | null },
    holder: string,
    clock: Clock,
    onLost: (error: Error) => void,
  ): Promise<ProcessIdLease> {
    const candidates = ids.processId === null ? Array.from({ length: IDS }, (_, id) => id) : [ids.processId];
    for (const processId of candidates) {
      const now = clock.now();
      if (await leases.claim(leaseName(ids.workerId, processId), holder, now, now + LEASE_MS)) {
        return new ProcessIdLease(leases, ids.workerId, processId, holder, clock, now + LEASE_MS, onLost);
      }
    }
    throw new Error(
      ids.processId === null
        ? `every PROCESS_ID of WORKER_ID ${ids.workerId} is held by a running process: give this one another WORKER_ID`
        : `PROCESS_ID ${ids.processId} of WORKER_ID ${ids.workerId} is held by another running process: give each process its own, or leave PROCESS_ID unset to take a free one`,
    );
  }

  /** Renews the lease; gives up (onLost) when it was taken, or when it could not be renewed in time. */
  async renew(): Promise<void> {
    if (!this.timer) return;
    const now = this.clock.now();
    let lost: Error | null = null;
    try {
      if (await this.leases.claim(leaseName(this.workerId, this.processId), this.holder, now, now + LEASE_MS)) this.until = now + LEASE_MS;
      else lost = new Error(`PROCESS_ID ${this.processId} of WORKER_ID ${this.workerId} was taken by another process: this one must stop minting ids`);
    } catch (error) {
      if (this.until - this.clock.now() < RENEW_MS) {
        lost = new Error(`the lease of PROCESS_ID ${this.processId} could not be renewed before it ran out: this process must stop minting ids`, {
          cause: error,
        });
      }
    }
    if (lost && this.timer) {
      this.stopRenewing();
      this.onLost(lost);
    }
  }

  /** Gives the id up for the next process (at a graceful stop). */
  async release(): Promise<void> {
    this.stopRenewing();
    await this.leases.release(leaseName(this.workerId, this.processId), this.holder);
  }

  private stopRenewing(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
