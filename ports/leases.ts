// Named, expiring claims shared by the processes of a deployment (MongoDB's `leases`; DATA_DIR/leases.db for the
// embedded server): snowflake process ids (infra/processIds.ts), the one relay that publishes (infra/bus/relay.ts), and
// the gateway nodes whose sessions' voice states live on while they run (gateway/nodeLease.ts).
export interface Leases {
  /** Takes `name` for `holder` until `until` when it is free, expired at `now` or `holder`'s already (ms since the epoch); whether it did. */
  claim(name: string, holder: string, now: number, until: number): Promise<boolean>;
  /** Gives `name` up if `holder` holds it. */
  release(name: string, holder: string): Promise<void>;
  close(): Promise<void>;
}

/** A lease lasts this long unless renewed. */
export const LEASE_MS = 30_000;
/**
 * It is renewed this often. A holder that could not renew before less than this was left stops before another may
 * take it: clocks of the deployment may differ by up to this much.
 */
export const RENEW_MS = 10_000;
