// The service's figures in Prometheus's text format (prom-client): requests by route and status, the log's group
// commits, projection lag, gateway sessions and dispatches, interaction deliveries, event streams waiting for their
// readers, and the process's own (CPU, memory, event-loop lag, GC). Counted where they happen (ports/metrics.ts) or
// read when scraped (`watch`).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Metrics } from '../ports/metrics.js';

/** Figures read at scrape time from the running parts. */
export interface Watched {
  /** Events each projector is behind the log's head. */
  projectionLag(): Promise<Record<string, number>>;
  /** Gateway sessions held by this process, and dispatches sent to them since start (null without a gateway). */
  gateway(): { sessions: number; dispatches: number } | null;
}

export class PrometheusMetrics implements Metrics {
  readonly registry = new Registry();
  private readonly requests = new Histogram({
    name: 'parley_http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status, and how long they took',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  private readonly commitSeconds = new Histogram({
    name: 'parley_log_commit_seconds',
    help: 'Group commits of the embedded log: the transaction with its fsync',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
    registers: [this.registry],
  });
  private readonly commitAppends = new Histogram({
    name: 'parley_log_commit_appends',
    help: 'Appends written together by one group commit',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers: [this.registry],
  });
  private readonly events = new Counter({
    name: 'parley_log_events_appended_total',
    help: 'Events appended to the log by this process',
    registers: [this.registry],
  });
  private readonly deliveries = new Counter({
    name: 'parley_interaction_delivery_attempts_total',
    help: 'Interaction delivery attempts by outcome',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly eventStreamsWaiting = new Gauge({
    name: 'parley_event_streams_waiting_for_reader',
    help: 'Guild event streams waiting for their reader to take what they were sent (cut off after EVENT_STREAM_STALL_MS)',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'parley_' });
  }

  request(method: string, route: string, status: number, seconds: number): void {
    this.requests.observe({ method, route, status: String(status) }, seconds);
  }

  commit(appends: number, events: number, seconds: number): void {
    this.commitSeconds.observe(seconds);
    this.commitAppends.observe(appends);
    this.events.inc(events);
  }

  delivery(outcome: string): void {
    this.deliveries.inc({ outcome });
  }

  eventStreamWaiting(change: 1 | -1): void {
    this.eventStreamsWaiting.inc(change);
  }

  /** Registers the figures read when scraped. */
  watch(watched: Watched): void {
    new Gauge({
      name: 'parley_projection_lag_events',
      help: "Events each projector has yet to apply, behind the log's head",
      labelNames: ['projector'],
      registers: [this.registry],
      async collect() {
        for (const [projector, lag] of Object.entries(await watched.projectionLag())) this.set({ projector }, lag);
      },
    });
    new Gauge({
      name: 'parley_gateway_sessions',
      help: 'Gateway sessions this process holds',
      registers: [this.registry],
      collect() {
        this.set(watched.gateway()?.sessions ?? 0);
      },
    });
    // A counter whose value is read from the registry at scrape time: rate() of it gives dispatches per second.
    new Counter({
      name: 'parley_gateway_dispatches_total',
      help: 'Dispatches sent to gateway sessions',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(watched.gateway()?.dispatches ?? 0);
      },
    });
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
