// Kafka behind the bus port: the ONLY file that knows kafkajs, so another client is a change of this file alone.
// One topic carries the whole log. A message's key is the guild id of its event (else the channel id, else the
// stream id), so Kafka keeps per-guild (per-channel) order within a partition; its headers carry the event type and
// the encoded log position, so consumers can route and deduplicate without parsing the value. The producer is
// idempotent (no duplicates from its own retries) and sends one batch at a time, in log order.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { type IHeaders, Kafka, type LogEntry, type Producer, logLevel } from 'kafkajs';
import { withDeadline } from '../engines.js';
import { eventFromJson, eventToJson } from '../eventStore/json.js';
import { type Position, type RecordedEvent, comparePositions, decodePosition, encodePosition } from '../../ports/eventStore.js';
import { type Hint, type HintBus, LocalHintBus, hintKey, parseHint } from '../../ports/hints.js';
import type { Logger } from '../logger.js';
import type { BusConsumer, ConsumeOptions, EventBus, EventPublisher } from '../../ports/bus.js';

export interface KafkaSettings {
  brokers: string[];
  topic: string;
  clientId: string;
  /** Partitions of the topic when the bus creates it. */
  partitions?: number;
}

/** Hints ride a topic of their own: they are not state, need no order by key, and are dropped when stale. */
export const hintTopic = (topic: string) => `${topic}.hints`;

export const HEADERS = { type: 'event-type', position: 'position', id: 'event-id', stream: 'stream-id' } as const;

export interface OutgoingMessage {
  key: string;
  value: string;
  headers: Record<string, string>;
}

/** The message of a key-value store: what consumers receive (values and headers as bytes). */
export interface IncomingMessage {
  key: Buffer | null;
  value: Buffer | null;
  headers?: IHeaders;
}

/** Guild first (every event of a guild in one order), then channel (DMs), then the stream itself. */
export function messageKey(event: RecordedEvent): string {
  const data = (event.data ?? {}) as Record<string, unknown>;
  for (const field of ['guildId', 'channelId'] as const) {
    const value = data[field];
    if (typeof value === 'string' && value) return value;
  }
  return event.streamId;
}

export function toMessage(event: RecordedEvent): OutgoingMessage {
  const position = encodePosition(event.position);
  return {
    key: messageKey(event),
    value: eventToJson(event),
    headers: { [HEADERS.type]: event.type, [HEADERS.position]: position, [HEADERS.id]: event.id, [HEADERS.stream]: event.streamId },
  };
}

export function fromMessage(message: IncomingMessage): RecordedEvent {
  if (!message.value) throw new Error('Kafka message without a value');
  return eventFromJson(message.value.toString('utf8'));
}

/** The position header of a message, read without parsing its value. */
export function positionOf(message: IncomingMessage): Position {
  const header = message.headers?.[HEADERS.position];
  const text = Array.isArray(header) ? header[0] : header;
  if (text === undefined) throw new Error('Kafka message without a position header');
  return decodePosition(text.toString());
}

/**
 * What each partition has delivered: the relay publishes in log order, so positions grow within a partition, and a
 * message at or before the last one handled is a republish after a relay crash.
 */
export class PartitionProgress {
  private readonly last = new Map<number, Position>();

  isNew(partition: number, position: Position): boolean {
    const seen = this.last.get(partition);
    return !seen || comparePositions(position, seen) > 0;
  }

  /** Called once the handler took the batch: a batch that failed is redelivered, and must not be dropped then. */
  handled(partition: number, position: Position): void {
    this.last.set(partition, position);
  }
}

const pinoLevel = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'debug',
  [logLevel.DEBUG]: 'trace',
  [logLevel.NOTHING]: 'trace',
} as const;

export class KafkaEventBus implements EventBus {
  private readonly closers = new Set<() => Promise<void>>();
  readonly hints: HintBus;

  private constructor(
    private readonly kafka: Kafka,
    private readonly settings: KafkaSettings,
    log: Logger,
  ) {
    this.hints = new KafkaHintBus(kafka, hintTopic(settings.topic), `${settings.clientId}.hints`, log, this.closers);
  }

  /** Reaches the brokers and makes sure the topic exists; an unreachable cluster fails here, once, with one line. */
  static async connect(settings: KafkaSettings, log: Logger, timeoutMs = 10_000): Promise<KafkaEventBus> {
    // While connecting, failures are reported by the error thrown, not by kafkajs logging each retry.
    let starting = true;
    const kafka = new Kafka({
      clientId: settings.clientId,
      brokers: settings.brokers,
      connectionTimeout: 3000,
      retry: { retries: 3, initialRetryTime: 300 },
      logLevel: logLevel.INFO,
      logCreator: () => (entry: LogEntry) => {
        if (starting) return;
        const { message, ...extra } = entry.log;
        log[pinoLevel[entry.level]]({ kafka: entry.namespace, ...extra }, message);
      },
    });
    const admin = kafka.admin();
    const address = settings.brokers.join(',');
    try {
      await withDeadline(
        (async () => {
          await admin.connect();
          const topics = await admin.listTopics();
          const wanted = [
            { topic: settings.topic, numPartitions: settings.partitions ?? 12 },
            { topic: hintTopic(settings.topic), numPartitions: 1 },
          ].filter(({ topic }) => !topics.includes(topic));
          if (wanted.length) await admin.createTopics({ waitForLeaders: true, topics: wanted });
        })(),
        timeoutMs,
        'Kafka',
        address,
      );
    } finally {
      await admin.disconnect().catch(() => {});
    }
    starting = false;
    return new KafkaEventBus(kafka, settings, log);
  }

  async publisher(): Promise<EventPublisher> {
    const producer = this.kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const close = () => producer.disconnect();
    this.closers.add(close);
    return {
      publish: async (events) => {
        if (events.length === 0) return;
        await producer.send({ topic: this.settings.topic, acks: -1, messages: events.map(toMessage) });
      },
      close: async () => {
        this.closers.delete(close);
        await close();
      },
    };
  }

  async consume(group: string, options: ConsumeOptions, handler: Parameters<EventBus['consume']>[2], onError?: (error: unknown) => void): Promise<BusConsumer> {
    const base = `${this.settings.clientId}.${group}`;
    const consumer = this.kafka.consumer({ groupId: options.durable ? base : `${base}.${hostname()}.${process.pid}.${randomUUID().slice(0, 8)}` });
    const progress = new PartitionProgress();
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart) onError?.(payload.error);
    });
    // Resolving once the group is joined means "from now on" holds for the caller, not from some later moment.
    const joined = new Promise<void>((resolve) => {
      const remove = consumer.on(consumer.events.GROUP_JOIN, () => {
        remove();
        resolve();
      });
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [this.settings.topic], fromBeginning: false });
    await consumer.run({
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        const events = batch.messages.filter((message) => progress.isNew(batch.partition, positionOf(message))).map(fromMessage);
        if (!isRunning() || isStale()) return;
        if (events.length > 0) {
          await handler(events);
          progress.handled(batch.partition, events[events.length - 1].position);
        }
        // Offsets are committed only for handled messages: a crash mid-batch redelivers, never skips.
        for (const message of batch.messages) resolveOffset(message.offset);
        await heartbeat();
      },
    });
    await joined;
    const stop = () => consumer.disconnect();
    this.closers.add(stop);
    return {
      stop: async () => {
        this.closers.delete(stop);
        await stop();
      },
    };
  }

  async close(): Promise<void> {
    await Promise.all([...this.closers].map((close) => close()));
    this.closers.clear();
  }
}

/**
 * Hints between processes: an api process publishes (its producer connects on first use), every gateway node reads
 * all of them from the live end in a group of its own (its consumer starts on first subscribe). Losing one is fine.
 */
class KafkaHintBus implements HintBus {
  private readonly local = new LocalHintBus();
  private producer: Promise<Producer> | null = null;
  private consuming: Promise<void> | null = null;

  constructor(
    private readonly kafka: Kafka,
    private readonly topic: string,
    private readonly group: string,
    private readonly log: Logger,
    private readonly closers: Set<() => Promise<void>>,
  ) {}

  publish(hint: Hint): void {
    this.producer ??= this.connectProducer();
    this.producer
      .then((producer) => producer.send({ topic: this.topic, messages: [{ key: hintKey(hint), value: JSON.stringify(hint) }] }))
      .catch((error) => this.log.warn({ err: error }, 'hint not published'));
  }

  subscribe(listener: (hint: Hint) => void): () => void {
    this.consuming ??= this.consume().catch((error) => this.log.error({ err: error }, 'hints not consumed'));
    return this.local.subscribe(listener);
  }

  private async connectProducer(): Promise<Producer> {
    const producer = this.kafka.producer();
    await producer.connect();
    this.closers.add(() => producer.disconnect());
    return producer;
  }

  private async consume(): Promise<void> {
    const consumer = this.kafka.consumer({ groupId: `${this.group}.${hostname()}.${process.pid}.${randomUUID().slice(0, 8)}` });
    await consumer.connect();
    this.closers.add(() => consumer.disconnect());
    await consumer.subscribe({ topics: [this.topic], fromBeginning: false });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const hint = message.value ? parseHint(message.value.toString('utf8'), Date.now()) : null;
        if (hint) this.local.publish(hint);
      },
    });
  }
}
