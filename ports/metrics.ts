// What the edges and the log report for operators to watch; infra/metrics.ts keeps the figures for Prometheus.
export interface Metrics {
  /** An answered HTTP request, by route template (never the raw path: ids would make a series per message). */
  request(method: string, route: string, status: number, seconds: number): void;
  /** One group commit of the embedded log: its appends, its events, and the transaction's time with its fsync. */
  commit(appends: number, events: number, seconds: number): void;
  /** One interaction delivery attempt, by what became of it (the event type that recorded it). */
  delivery(outcome: string): void;
  /** A guild event stream began (1) or ended (-1) a wait for its reader to take what it was sent. */
  eventStreamWaiting(change: 1 | -1): void;
}

export const noMetrics: Metrics = { request() {}, commit() {}, delivery() {}, eventStreamWaiting() {} };
