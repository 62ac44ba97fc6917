// Gateway nodes that crashed. A voice state names the node whose session holds it and ends with that session, which a
// crashed node never ends. So each node holds the lease `gateway-node:{node}` while it runs (renewed every RENEW_MS,
// lasting LEASE_MS), and every node looks, as often, for voice states held on other nodes: a node whose lease ran out
// (or that never held one) is gone, and the node that takes its lease ends what it left, once.
import type { Clock } from '../ports/clock.js';
import { LEASE_MS, type Leases } from '../ports/leases.js';
import type { Logger } from '../ports/logger.js';

const leaseName = (node: string) => `gateway-node:${node}`;

export class NodeLease {
  constructor(
    private readonly leases: Leases,
    /** This node: its lease's name and the holder of what it takes over. */
    private readonly node: string,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /** Takes or renews this node's lease; a store that cannot be reached is logged, and tried again at the next renewal. */
  async renew(): Promise<void> {
    const now = this.clock.now();
    try {
      if (!(await this.leases.claim(leaseName(this.node), this.node, now, now + LEASE_MS)))
        this.log.warn({ node: this.node }, 'this gateway node’s lease was taken (it could not renew it in time): its sessions’ voice states were ended');
    } catch (error) {
      this.log.warn({ err: error, node: this.node }, 'gateway node lease not renewed');
    }
  }

  /** Whether `node` is gone, its lease run out: this node then holds it, and ends what the node left. */
  async takeOver(node: string): Promise<boolean> {
    const now = this.clock.now();
    return this.leases.claim(leaseName(node), this.node, now, now + LEASE_MS);
  }

  /** Gives this node's lease up, at a graceful stop, once its sessions' voice states are ended. */
  release(): Promise<void> {
    return this.leases.release(leaseName(this.node), this.node);
  }
}
