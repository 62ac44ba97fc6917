// Kafka behind the bus port: the ONLY file that knows kafkajs, so another client is a change of this file alone.
// One topic carries the whole log. A message's key is the guild its event is about (else the channel, else the
// stream), so Kafka keeps per-guild (per-channel) order within a partition; its headers carry the event type and
// the encoded log position, so consumers can route and deduplicate without parsing the value. The producer is
// idempotent (no duplicates from its own retries), retries as long as the brokers take to elect a leader or to come
// back, and sends in log order, split by bytes under the brokers' limit and compressed.
import {
  type Admin,
  type ConsumerConfig,
  CompressionTypes,
  type EachBatchPayload,
  type IHeaders,
  type ITopicConfig,
  Kafka,
  type KafkaConfig,
  type LogEntry,
  type Producer,
  type ProducerConfig,
  type SASLOptions,
  logLevel,
} from 'kafkajs';
import { type KafkaSettings, withDeadline } from '../engines.js';
import { eventFromJson, eventToJson } from '../eventStore/json.js';
import { type BatchHandler, type Position, type RecordedEvent, comparePositions, decodePosition, encodePosition } from '../../ports/eventStore.js';
import { type Hint, type HintBus, LocalHintBus, hintKey, parseHint } from '../../ports/hints.js';
import type { Logger } from '../logger.js';
import type { BusConsumer, ConsumeOptions, EventBus, EventPublisher } from '../../ports/bus.js';

export type { KafkaSettings };

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

/**
 * The one rule for every event: the guild it is about, else its channel, else its stream. Each is looked for on the
 * event itself (`guildId`) and then on the entity it carries (`webhook.guild_id`), so every event of one entity gets
 * the same key whichever of the two its type spells (WebhookCreated carries only the webhook, WebhookUpdated both).
 */
export function messageKey(event: RecordedEvent): string {
  const data = (event.data ?? {}) as Record<string, unknown>;
  return owner(data, 'guildId', 'guild_id') ?? owner(data, 'channelId', 'channel_id') ?? event.streamId;
}

function owner(data: Record<string, unknown>, field: string, entityField: string): string | null {
  const own = data[field];
  if (typeof own === 'string' && own) return own;
  for (const value of Object.values(data)) {
    if (!value || typeof value !== 'object' || Array.isArray(value)) continue;
    const entity = (value as Record<string, unknown>)[entityField];
    if (typeof entity === 'string' && entity) return entity;
  }
  return null;
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
  /** The offset of each partition's last message taken (handled, or dropped as handled before). */
  private readonly taken = new Map<number, string>();

  /**
   * The messages of a partition's slice that are new: past the last one handled, and past every earlier message of
   * the slice. A slow consumer can fetch an event and its republished copy in one slice, where both are past the last
   * one handled.
   */
  newIn<M extends IncomingMessage>(partition: number, messages: readonly M[]): M[] {
    let newest = this.last.get(partition);
    return messages.filter((message) => {
      const position = positionOf(message);
      if (newest && comparePositions(position, newest) <= 0) return false;
      newest = position;
      return true;
    });
  }

  /** Called once the handler took the batch: a batch that failed is redelivered, and must not be dropped then. */
  handled(partition: number, position: Position): void {
    this.last.set(partition, position);
  }

  /** Called once a slice's offsets are resolved: what a rejoin goes on after. */
  tookUpTo(partition: number, offset: string): void {
    this.taken.set(partition, offset);
  }

  /** Where each partition taken from goes on: the message after the last one taken. */
  resumeAt(): { partition: number; offset: string }[] {
    return [...this.taken].map(([partition, offset]) => ({ partition, offset: String(BigInt(offset) + 1n) }));
  }
}

/** What a consumer's eachBatch is handed, of what it uses: kafkajs's payload, or a test's. */
export type BatchPayload = Pick<EachBatchPayload, 'resolveOffset' | 'heartbeat' | 'isRunning' | 'isStale'> & {
  batch: { partition: number; messages: (IncomingMessage & { offset: string })[] };
};

/**
 * How consumers take what kafkajs fetches. A fetch brought up to 1 MB a partition (thousands of events), handed on
 * whole with one heartbeat after it: a gateway node waiting on read models for each event went past the session
 * timeout, was evicted, and the group rebalanced in a loop. Now a fetch is smaller, it is handed on a slice at a time
 * (between slices the batch ends if the consumer stops, the partition is taken away or a heartbeat failed), and
 * heartbeats go out while a slice is handled, however long it takes.
 */
export const CONSUMING = {
  /** Events handed to the handler at once. */
  sliceEvents: 100,
  /** How often a heartbeat is asked for while a batch is handled: kafkajs sends one once heartbeatInterval has passed. */
  heartbeatMs: 1000,
  /** The coordinator's own bounds: a member not heard from within sessionTimeout is evicted; kafkajs's defaults. */
  sessionTimeout: 30_000,
  heartbeatInterval: 3000,
  /** What one fetch brings of a partition (kafkajs's default is 1 MB): what a rebalance makes a member drop and refetch. */
  maxBytesPerPartition: 256 * 1024,
  /**
   * How long the broker holds a fetch that finds nothing new (kafkajs's default is 5 s): a stop waits for the fetch
   * under way, and 5 s of it on each stop, beside the HTTP server's grace, took a gateway node past its 10 s to stop.
   * A fetch still returns as soon as a message arrives; idle, a consumer asks once a second.
   */
  maxWaitTimeInMs: 1000,
} as const;

/**
 * A consumer's eachBatch: the new messages of a partition's batch, handed to the bus handler as events, `sliceEvents`
 * at a time, heartbeating every `heartbeatMs` all along. A heartbeat that fails (a rebalance under way) ends the batch
 * after the slice being handled, and is thrown for kafkajs to rejoin the group.
 */
export function batchConsumer(
  handler: BatchHandler,
  progress: PartitionProgress,
  limits: { sliceEvents: number; heartbeatMs: number } = CONSUMING,
): (payload: BatchPayload) => Promise<void> {
  return async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
    /** What the heartbeats failed with: once there is one, the batch ends. */
    const refusals: unknown[] = [];
    const beat = () => heartbeat().catch((error: unknown) => void refusals.push(error));
    const beating = setInterval(() => void beat(), limits.heartbeatMs);
    try {
      for (let from = 0; from < batch.messages.length; from += limits.sliceEvents) {
        if (!isRunning() || isStale() || refusals.length > 0) break;
        const slice = batch.messages.slice(from, from + limits.sliceEvents);
        const events = progress.newIn(batch.partition, slice).map(fromMessage);
        if (events.length > 0) {
          await handler(events);
          progress.handled(batch.partition, events[events.length - 1].position);
        }
        // Offsets are committed only for handled messages: a crash mid-batch redelivers, never skips.
        for (const message of slice) resolveOffset(message.offset);
        progress.tookUpTo(batch.partition, slice[slice.length - 1].offset);
        await beat();
      }
    } finally {
      clearInterval(beating);
    }
    if (refusals.length > 0) throw refusals[0];
  };
}

const pinoLevel = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'debug',
  [logLevel.DEBUG]: 'trace',
  [logLevel.NOTHING]: 'trace',
} as const;

/** The client: TLS and SASL as configured; at start, a broker that does not answer fails after a few quick tries. */
export function kafkaConfig(settings: KafkaSettings, logCreator: KafkaConfig['logCreator']): KafkaConfig {
  return {
    clientId: settings.clientId,
    brokers: settings.brokers,
    ssl: settings.ssl,
    // The same object, not a copy: its password stays out of whatever prints the settings.
    ...(settings.sasl ? { sasl: settings.sasl as SASLOptions } : {}),
    connectionTimeout: 3000,
    retry: { retries: 3, initialRetryTime: 300 },
    logLevel: logLevel.INFO,
    logCreator,
  };
}

/**
 * The relay's producer. Its retries are its own: inherited from the client (3), a leader election of a few seconds
 * failed the send and stopped the relay; kafkajs's own default for an idempotent producer is to retry for as long as
 * it takes (each wait at most maxRetryTime), which keeps its sequence numbers, and so exactly-once, intact.
 */
export const PRODUCER: ProducerConfig = {
  idempotent: true,
  maxInFlightRequests: 1,
  retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 300, maxRetryTime: 30_000 },
};

/**
 * Whether a failed send is worth sending again, as kafkajs's own consumer decides a restart: by the error's original
 * cause. A send's retries (PRODUCER) cover leaders moving, but reaching a broker at all gets the client's few tries,
 * so a broker restarting (no broker answering for seconds) failed the send, and stopped the relay.
 */
export function retriableSend(error: unknown): boolean {
  let cause = error;
  while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause;
  return (cause as { retriable?: unknown }).retriable === true;
}

/** How long a publisher waits before sending again what the brokers could not take: doubling, at most 10 s. */
export const RESEND_MS = { first: 500, most: 10_000 } as const;

/** The topics the bus creates when they are missing: replicated as configured, so acks=-1 means min.insync copies. */
export function topicsToCreate(settings: KafkaSettings, existing: string[]): ITopicConfig[] {
  const replication = { replicationFactor: settings.replicationFactor };
  return [
    {
      topic: settings.topic,
      numPartitions: settings.partitions,
      ...replication,
      configEntries: [
        { name: 'min.insync.replicas', value: String(settings.minInsyncReplicas) },
        // What one batch may carry; sends are split under it (maxBatchBytes), compressed batches are smaller still.
        { name: 'max.message.bytes', value: String(settings.maxBatchBytes + 64 * 1024) },
      ],
    },
    { topic: hintTopic(settings.topic), numPartitions: 1, ...replication },
  ].filter(({ topic }) => !existing.includes(topic));
}

/** A message's bytes as a batch counts them, near enough: key, value, headers and a record's own overhead. */
export function messageBytes(message: OutgoingMessage): number {
  let bytes = 64 + Buffer.byteLength(message.key) + Buffer.byteLength(message.value);
  for (const [name, value] of Object.entries(message.headers)) bytes += Buffer.byteLength(name) + Buffer.byteLength(value) + 8;
  return bytes;
}

/**
 * Consecutive runs of messages of at most maxBytes each, in order: kafkajs packs a partition's messages of one send
 * into one record batch, and a batch over the brokers' limit fails with MESSAGE_TOO_LARGE, not retried, on every
 * restart of the relay. A message larger alone cannot be split: the log refuses such events (eventStore/limits.ts).
 */
export function splitByBytes(messages: OutgoingMessage[], maxBytes: number): OutgoingMessage[][] {
  const batches: OutgoingMessage[][] = [];
  let current: OutgoingMessage[] = [];
  let size = 0;
  for (const message of messages) {
    const bytes = messageBytes(message);
    if (bytes > maxBytes) throw new Error(`a ${message.headers[HEADERS.type]} of ${bytes} bytes is over KAFKA_MAX_BATCH_BYTES (${maxBytes})`);
    if (current.length > 0 && size + bytes > maxBytes) {
      batches.push(current);
      current = [];
      size = 0;
    }
    current.push(message);
    size += bytes;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/**
 * A consumer's group, the same on every start (a new group each start left one behind in the brokers every time). A
 * durable group is shared by the role's processes and commits its offsets; a per-process one (each gateway node) is
 * named after the process and commits none, so each start reads from the live end, as its sessions expect.
 */
export function consumerGroup(settings: Pick<KafkaSettings, 'clientId' | 'member'>, group: string, durable: boolean): ConsumerConfig & { autoCommit: boolean } {
  const base = `${settings.clientId}.${group}`;
  return { groupId: durable ? base : `${base}.${settings.member}`, autoCommit: durable };
}

/** Waits for the consumer to join its group, at most `ms`: a group that never forms must fail the start, not hang it. */
export async function joinedWithin(joined: Promise<void>, ms: number, groupId: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `Kafka consumer group ${groupId} was not joined within ${ms / 1000} s (KAFKA_JOIN_TIMEOUT_MS): are the brokers and their group coordinator up?`,
          ),
        ),
      ms,
    );
  });
  try {
    await Promise.race([joined, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves once every partition of `topics` has a leader, asking again (100 ms, doubling to 1 s) until then or until
 * `givenUp()`. A topic another process has just created is listed before its partitions have leaders (createTopics'
 * waitForLeaders waits only for the creator), and a process starting beside it then failed its first send or join.
 */
export async function leadersElected(admin: Pick<Admin, 'fetchTopicMetadata'>, topics: string[], givenUp: () => boolean): Promise<void> {
  for (let wait = 100; !givenUp(); wait = Math.min(wait * 2, 1000)) {
    const found = await admin.fetchTopicMetadata({ topics }).then(
      (metadata) => metadata.topics,
      // Not yet known to the broker asked, or no leader yet: both pass.
      () => [],
    );
    const led = found.length === topics.length && found.every(({ partitions }) => partitions.length > 0 && partitions.every(({ leader }) => leader >= 0));
    if (led) return;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

function logEntry(log: Logger, entry: LogEntry): void {
  const { message, ...extra } = entry.log;
  log[pinoLevel[entry.level]]({ kafka: entry.namespace, ...extra }, message);
}

export class KafkaEventBus implements EventBus {
  private readonly closers = new Set<() => Promise<void>>();
  /** The admin client /readyz asks through, made on first use. */
  private probe: Admin | null = null;
  readonly hints: HintBus;

  private constructor(
    private readonly kafka: Kafka,
    private readonly settings: KafkaSettings,
    private readonly log: Logger,
  ) {
    this.hints = new KafkaHintBus(kafka, hintTopic(settings.topic), consumerGroup(settings, 'hints', false), log, this.closers);
  }

  /** Reaches the brokers and makes sure the topics exist; an unreachable cluster fails here, once, with one line. */
  static async connect(settings: KafkaSettings, log: Logger, timeoutMs = 10_000): Promise<KafkaEventBus> {
    // While connecting, failures are reported by the error thrown, not by kafkajs logging each retry.
    let starting = true;
    const kafka = new Kafka(
      kafkaConfig(settings, () => (entry: LogEntry) => {
        if (!starting) logEntry(log, entry);
      }),
    );
    const admin = kafka.admin();
    /** Once the start has succeeded or failed: nothing goes on asking for leaders after it. */
    let over = false;
    try {
      await withDeadline(
        (async () => {
          await admin.connect();
          const topics = topicsToCreate(settings, await admin.listTopics());
          if (topics.length) await admin.createTopics({ waitForLeaders: true, topics });
          await leadersElected(admin, [settings.topic, hintTopic(settings.topic)], () => over);
        })(),
        timeoutMs,
        'Kafka',
        settings.brokers.join(','),
      );
    } finally {
      over = true;
      await admin.disconnect().catch(() => {});
    }
    starting = false;
    return new KafkaEventBus(kafka, settings, log);
  }

  /**
   * The bus of a role that only publishes hints (api) or none (projector): it connects on first use and a failure
   * loses a hint, so such a role starts, and keeps serving, without Kafka.
   */
  static lazy(settings: KafkaSettings, log: Logger): KafkaEventBus {
    return new KafkaEventBus(new Kafka(kafkaConfig(settings, () => (entry: LogEntry) => logEntry(log, entry))), settings, log);
  }

  /**
   * A send the brokers could not take for a reason that passes (none answering) is sent again, until it is taken or
   * the publisher is closed: the relay waits out a broker restart instead of stopping. A batch sent again that had
   * been written is dropped by the idempotent producer, or else by the consumers, by position.
   */
  async publisher(): Promise<EventPublisher> {
    const producer = this.kafka.producer(PRODUCER);
    await producer.connect();
    let closed = false;
    const close = () => {
      closed = true;
      return producer.disconnect();
    };
    this.closers.add(close);
    const send = async (messages: OutgoingMessage[]) => {
      for (let wait: number = RESEND_MS.first; ; wait = Math.min(wait * 2, RESEND_MS.most)) {
        try {
          return await producer.send({ topic: this.settings.topic, acks: -1, compression: CompressionTypes.GZIP, messages });
        } catch (error) {
          if (closed || !retriableSend(error)) throw error;
          this.log.warn({ err: error, retryInMs: wait }, 'Kafka did not take a batch: sending it again');
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
      }
    };
    return {
      publish: async (events) => {
        for (const messages of splitByBytes(events.map(toMessage), this.settings.maxBatchBytes)) await send(messages);
      },
      close: async () => {
        this.closers.delete(close);
        await close();
      },
    };
  }

  async consume(group: string, options: ConsumeOptions, handler: Parameters<EventBus['consume']>[2], onError?: (error: unknown) => void): Promise<BusConsumer> {
    const { groupId, autoCommit } = consumerGroup(this.settings, group, options.durable);
    const { sessionTimeout, heartbeatInterval, maxBytesPerPartition, maxWaitTimeInMs } = CONSUMING;
    const consumer = this.kafka.consumer({ groupId, sessionTimeout, heartbeatInterval, maxBytesPerPartition, maxWaitTimeInMs });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart) onError?.(payload.error);
    });
    // kafkajs restarts a consumer that lost the brokers (stopped, restarting) once they answer again, and the restarted
    // one joins with no offsets of its own when its group commits none: it would start at the live end and skip what
    // the relay published meanwhile. A per-process group's every join goes on after what this consumer took (nothing,
    // at its first). A durable group's committed offsets are what its members go on from: a partition this member took
    // before a rebalance may have been taken further by another since.
    const progress = new PartitionProgress();
    if (!options.durable) {
      consumer.on(consumer.events.GROUP_JOIN, () => {
        for (const { partition, offset } of progress.resumeAt()) consumer.seek({ topic: this.settings.topic, partition, offset });
      });
    }
    // Resolving once the group is joined means "from now on" holds for the caller, not from some later moment.
    const joined = new Promise<void>((resolve) => {
      const remove = consumer.on(consumer.events.GROUP_JOIN, () => {
        remove();
        resolve();
      });
    });
    const stop = () => consumer.disconnect();
    this.closers.add(stop);
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [this.settings.topic], fromBeginning: false });
      await consumer.run({
        autoCommit,
        eachBatchAutoResolve: false,
        eachBatch: batchConsumer(handler, progress),
      });
      await joinedWithin(joined, this.settings.joinTimeoutMs, groupId);
    } catch (error) {
      this.closers.delete(stop);
      await stop().catch(() => {});
      throw error;
    }
    return {
      stop: async () => {
        this.closers.delete(stop);
        await stop();
      },
    };
  }

  /**
   * Asks the cluster for its brokers, once, with no retry: a health check polled every few seconds must neither wait
   * out the client's retries nor leave them piling up behind it while the brokers are away.
   */
  async reachable(): Promise<void> {
    if (!this.probe) {
      const admin = this.kafka.admin({ retry: { retries: 0 } });
      const close = () => admin.disconnect();
      this.closers.add(close);
      this.probe = admin;
    }
    try {
      await this.probe.connect();
      await this.probe.describeCluster();
    } catch (error) {
      throw new Error(`Kafka (${this.settings.brokers.join(',')}) does not answer: ${(error as Error).message}`, { cause: error });
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.closers].map((close) => close()));
    this.closers.clear();
    this.probe = null;
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
    private readonly group: ConsumerConfig & { autoCommit: boolean },
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
    const consumer = this.kafka.consumer({ groupId: this.group.groupId, maxWaitTimeInMs: CONSUMING.maxWaitTimeInMs });
    await consumer.connect();
    this.closers.add(() => consumer.disconnect());
    await consumer.subscribe({ topics: [this.topic], fromBeginning: false });
    await consumer.run({
      autoCommit: this.group.autoCommit,
      eachMessage: async ({ message }) => {
        const hint = message.value ? parseHint(message.value.toString('utf8'), Date.now()) : null;
        if (hint) this.local.publish(hint);
      },
    });
  }
}
