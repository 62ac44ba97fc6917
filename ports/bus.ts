// The event bus: the log's events fanned out to the consumers that are not projectors — gateway nodes, the delivery
// worker, analysts. In the embedded default they read the log directly; in the distributed mode a relay publishes the
// log to Kafka and they consume it there, so the log is read once however many gateway nodes run.
import type { BatchHandler, RecordedEvent } from './eventStore.js';
import type { HintBus } from './hints.js';

export interface ConsumeOptions {
  /**
   * A durable group (delivery, analysts) keeps its place across restarts and shares the work among its members;
   * a non-durable one (each gateway node) sees every event from the live end on, for as long as it runs.
   * A durable group's first start is at the live end too: history is for the replay tool.
   */
  durable: boolean;
}

export interface BusConsumer {
  stop(): Promise<void>;
}

export interface EventBus {
  /** Events reach the handler in log order per key (guild or channel), a batch at a time; a throw is retried. */
  consume(group: string, options: ConsumeOptions, handler: BatchHandler, onError?: (error: unknown) => void): Promise<BusConsumer>;
  /** Hints (typing, presences) between the processes that publish them and every gateway node; never in the log. */
  readonly hints: HintBus;
  /** Resolves when the bus can be used now; rejects saying why not (a broker not answering). Asked by /readyz. */
  reachable(): Promise<void>;
  close(): Promise<void>;
}

/** Where the relay puts the log's events. */
export interface EventPublisher {
  /** Resolves once every event is durably accepted, in order. */
  publish(events: RecordedEvent[]): Promise<void>;
  close(): Promise<void>;
}
