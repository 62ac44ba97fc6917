// The Kafka bus without a broker: message keys, headers, the value round-trip, the per-partition progress that drops
// a relay's republished messages, sends split by bytes, the producer's retries (kafkajs's own client, which connects
// to nothing until asked), the topics it creates, its consumer groups and the deadline of joining one, and how a
// consumer hands a fetched batch on (slices, heartbeats all along, an early end).
import { inspect } from 'node:util';
import { Kafka, KafkaJSError, KafkaJSNonRetriableError, type LogEntry } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import {
  CONSUMING,
  HEADERS,
  PRODUCER,
  PartitionProgress,
  batchConsumer,
  consumerGroup,
  fromMessage,
  joinedWithin,
  kafkaConfig,
  leadersElected,
  messageBytes,
  messageKey,
  positionOf,
  retriableSend,
  splitByBytes,
  toMessage,
  topicsToCreate,
} from '../../infra/bus/kafka.js';
import { loadKafkaSettings } from '../../infra/engines.js';
import { MAX_EVENT_BYTES } from '../../infra/eventStore/limits.js';
import type { RecordedEvent } from '../../ports/eventStore.js';
import { freePort } from '../contracts/ports.js';

function event(data: unknown, overrides: Partial<RecordedEvent> = {}): RecordedEvent {
  return {
    id: '0b7c5f9e-2f52-4a8e-9d0e-3c1f6a7b8c9d',
    streamId: 'message-555',
    revision: 3n,
    position: { commit: 2n ** 61n + 10n, prepare: 2n ** 61n + 9n },
    type: 'MessageCreated',
    data,
    metadata: { actorId: '42', reason: null, correlationId: 'c', createdAt: '2024-05-01T00:00:00.000Z' },
    schemaVersion: 2,
    ...overrides,
  };
}

/** What a consumer receives for a produced message: the same key, value and headers, as bytes. */
function received(message: ReturnType<typeof toMessage>) {
  return {
    key: Buffer.from(message.key),
    value: Buffer.from(message.value),
    headers: Object.fromEntries(Object.entries(message.headers).map(([k, v]) => [k, Buffer.from(v)])),
  };
}

describe('message keys', () => {
  it('are the guild id when the event names a guild, so a guild keeps one order', () => {
    expect(messageKey(event({ guildId: '900', channelId: '901', message: {} }))).toBe('900');
  });

  it('are the channel id for events outside guilds (DMs)', () => {
    expect(messageKey(event({ guildId: null, channelId: '901' }))).toBe('901');
  });

  it('fall back to the stream id for events of neither (accounts, applications)', () => {
    expect(messageKey(event({ userId: '42' }, { streamId: 'user-42', type: 'UserRegistered' }))).toBe('user-42');
    expect(messageKey(event(null, { streamId: 'user-43' }))).toBe('user-43');
  });
});

describe('message keys within one entity', () => {
  const webhook = { id: '70', guild_id: '900', channel_id: '901', name: 'hook' };
  it('are the same for every event of a webhook, whether the event names the guild or only carries the webhook', () => {
    const stream = { streamId: 'webhook-70' };
    const keys = [
      messageKey(event({ webhook, sealedToken: 'x', tokenHash: 'y' }, { ...stream, type: 'WebhookCreated' })),
      messageKey(
        event({ webhookId: '70', guildId: '900', channelId: '902', previousChannelId: '901', changes: [], webhook }, { ...stream, type: 'WebhookUpdated' }),
      ),
      messageKey(event({ webhook }, { ...stream, type: 'WebhookDeleted' })),
    ];
    expect(keys).toEqual(['900', '900', '900']);
  });

  it('follow the carried entity’s channel outside guilds, and the stream when it names neither', () => {
    expect(messageKey(event({ invite: { code: 'abc', guild_id: null, channel_id: '555' } }, { streamId: 'invite-abc' }))).toBe('555');
    expect(messageKey(event({ command: { id: '1', guild_id: null } }, { streamId: 'application-commands-9-global' }))).toBe('application-commands-9-global');
  });
});

describe('messages', () => {
  it('carry the event type, position, id and stream in headers', () => {
    const message = toMessage(event({ guildId: '900' }));
    expect(message.headers).toEqual({
      [HEADERS.type]: 'MessageCreated',
      [HEADERS.position]: `${2n ** 61n + 10n}/${2n ** 61n + 9n}`,
      [HEADERS.id]: '0b7c5f9e-2f52-4a8e-9d0e-3c1f6a7b8c9d',
      [HEADERS.stream]: 'message-555',
    });
  });

  it('give back the recorded event exactly, bigints included', () => {
    const original = event({ guildId: '900', message: { content: 'hé ✓', embeds: [] } });
    const message = received(toMessage(original));
    expect(fromMessage(message)).toEqual(original);
    expect(positionOf(message)).toEqual(original.position);
  });

  it('without a value or a position header are refused', () => {
    expect(() => fromMessage({ key: null, value: null })).toThrow(/without a value/);
    expect(() => positionOf({ key: null, value: Buffer.from('{}'), headers: {} })).toThrow(/position header/);
  });
});

describe('partition progress', () => {
  const at = (n: bigint) => ({ commit: n, prepare: n });
  const messagesAt = (...ns: bigint[]) => ns.map((n) => received(toMessage(event({ guildId: '900' }, { position: at(n) }))));
  const positions = (messages: ReturnType<typeof messagesAt>) => messages.map((message) => positionOf(message).commit);

  it('drops what a partition already handled (a republish after a relay crash), per partition', () => {
    const progress = new PartitionProgress();
    expect(positions(progress.newIn(0, messagesAt(5n)))).toEqual([5n]);
    progress.handled(0, at(5n));
    expect(positions(progress.newIn(0, messagesAt(4n, 5n, 6n)))).toEqual([6n]);
    expect(positions(progress.newIn(1, messagesAt(1n)))).toEqual([1n]);
  });

  it('keeps a batch whose handler failed, so its redelivery is not dropped', () => {
    const progress = new PartitionProgress();
    expect(positions(progress.newIn(0, messagesAt(7n)))).toEqual([7n]);
    expect(positions(progress.newIn(0, messagesAt(7n)))).toEqual([7n]);
  });
});

const settings = (env: Record<string, string> = {}) => loadKafkaSettings({ KAFKA_BROKERS: 'k1:9092', ...env });

describe('sends', () => {
  const sized = (n: number, bytes: number) => toMessage(event({ guildId: `g${n}`, text: 'x'.repeat(bytes), n }));

  it('are split by bytes, in order, each under the limit: one large batch no longer exceeds the brokers’ maximum', () => {
    const messages = Array.from({ length: 40 }, (_, n) => sized(n, 90_000 + n * 1000));
    const batches = splitByBytes(messages, 1_000_000);
    expect(batches.length).toBeGreaterThan(4);
    expect(batches.flat()).toEqual(messages);
    for (const batch of batches) expect(batch.reduce((sum, m) => sum + messageBytes(m), 0)).toBeLessThanOrEqual(1_000_000);
  });

  it('fit the largest event the log takes in one batch, and refuse a message over the limit rather than fail at the broker', () => {
    const largest = sized(0, MAX_EVENT_BYTES - 200);
    expect(messageBytes(largest)).toBeLessThanOrEqual(settings().maxBatchBytes);
    expect(splitByBytes([largest], settings().maxBatchBytes)).toEqual([[largest]]);
    expect(() => splitByBytes([sized(1, 2000)], 1000)).toThrow(/MessageCreated of \d+ bytes is over KAFKA_MAX_BATCH_BYTES \(1000\)/);
  });
});

describe('the relay’s producer', () => {
  function warnings(create: (kafka: Kafka) => void): string[] {
    const seen: string[] = [];
    const kafka = new Kafka(kafkaConfig(settings(), () => (entry: LogEntry) => void seen.push(entry.log.message)));
    create(kafka);
    return seen;
  }

  it('retries as long as an idempotent producer should, instead of the client’s 3 tries (kafkajs warns when it is limited)', () => {
    // What the relay's producer was: the client's retry settings, inherited.
    expect(warnings((kafka) => kafka.producer({ idempotent: true, maxInFlightRequests: 1 }))).toContain(
      'Limiting retries for the idempotent producer may invalidate EoS guarantees',
    );
    expect(warnings((kafka) => kafka.producer(PRODUCER))).toEqual([]);
    expect(PRODUCER).toMatchObject({ idempotent: true, maxInFlightRequests: 1, retry: { retries: Number.MAX_SAFE_INTEGER } });
  });

  it('sends again what no broker answered (a broker restarting), not what the brokers refused', async () => {
    // What the relay's producer fails with while no broker answers: the client's 3 tries to connect, used up.
    const kafka = new Kafka(kafkaConfig(settings({ KAFKA_BROKERS: `127.0.0.1:${await freePort()}` }), () => () => {}));
    const unanswered = await kafka
      .producer(PRODUCER)
      .connect()
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(unanswered).toBeInstanceOf(KafkaJSNonRetriableError);
    expect(retriableSend(unanswered)).toBe(true);
    // A refusal (a batch too large) fails the same way, around a cause that is not worth sending again.
    expect(retriableSend(new KafkaJSNonRetriableError(new KafkaJSError('message too large', { retriable: false })))).toBe(false);
  });
});

describe('topics', () => {
  it('are created replicated with min.insync.replicas, 3 and 2 unless configured, and only when missing', () => {
    const [events, hints] = topicsToCreate(settings(), []);
    expect(events).toMatchObject({ topic: 'parley.events', numPartitions: 12, replicationFactor: 3 });
    expect(events.configEntries).toContainEqual({ name: 'min.insync.replicas', value: '2' });
    expect(hints).toMatchObject({ topic: 'parley.events.hints', replicationFactor: 3 });
    const [single] = topicsToCreate(settings({ KAFKA_REPLICATION_FACTOR: '1' }), ['parley.events.hints']);
    expect(single.replicationFactor).toBe(1);
    expect(single.configEntries).toContainEqual({ name: 'min.insync.replicas', value: '1' });
    expect(topicsToCreate(settings(), ['parley.events', 'parley.events.hints'])).toEqual([]);
    expect(() => settings({ KAFKA_REPLICATION_FACTOR: '2', KAFKA_MIN_INSYNC_REPLICAS: '3' })).toThrow(/cannot exceed KAFKA_REPLICATION_FACTOR/);
  });
});

describe('consumer groups', () => {
  it('are the same on every start: one per durable role, one per process for the gateway nodes, which commit nothing', () => {
    const node = settings({ WORKER_ID: '1', PROCESS_ID: '3' });
    expect(consumerGroup(node, 'delivery', true)).toEqual({ groupId: 'parley.delivery', autoCommit: true });
    const gateway = consumerGroup(node, 'gateway', false);
    expect(gateway).toEqual(consumerGroup(settings({ WORKER_ID: '1', PROCESS_ID: '3' }), 'gateway', false));
    expect(gateway.autoCommit).toBe(false);
    expect(gateway.groupId).not.toBe(consumerGroup(settings({ WORKER_ID: '1', PROCESS_ID: '4' }), 'gateway', false).groupId);
    expect(consumerGroup(settings({ KAFKA_GROUP_MEMBER: 'gateway-1' }), 'gateway', false).groupId).toBe('parley.gateway.gateway-1');
  });

  it('that are not joined in time fail the start with a line saying so', async () => {
    await expect(joinedWithin(new Promise(() => {}), 50, 'parley.gateway.gateway-1')).rejects.toThrow(
      'Kafka consumer group parley.gateway.gateway-1 was not joined within 0.05 s (KAFKA_JOIN_TIMEOUT_MS)',
    );
    await expect(joinedWithin(Promise.resolve(), 50, 'g')).resolves.toBeUndefined();
  });
});

describe('TLS and SASL', () => {
  const secure = { KAFKA_SSL: 'true', KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'parley', KAFKA_SASL_PASSWORD: 'hunter2-secret' };

  it('are read from the environment and handed to the client', () => {
    const config = kafkaConfig(settings(secure), undefined);
    expect(config.ssl).toBe(true);
    expect(config.sasl).toMatchObject({ mechanism: 'scram-sha-512', username: 'parley', password: 'hunter2-secret' });
    expect(kafkaConfig(settings(), undefined)).toMatchObject({ ssl: false });
    expect(kafkaConfig(settings(), undefined).sasl).toBeUndefined();
  });

  it('never show the password where settings are printed, and refuse a mechanism without credentials', () => {
    const loaded = settings(secure);
    expect(JSON.stringify(loaded)).not.toContain('hunter2');
    expect(inspect(loaded, { depth: 5 })).not.toContain('hunter2');
    expect(JSON.stringify(kafkaConfig(loaded, undefined))).not.toContain('hunter2');
    expect(() => settings({ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'parley' })).toThrow(
      'KAFKA_SASL_PASSWORD is required when KAFKA_SASL_MECHANISM=plain',
    );
    expect(() => settings({ KAFKA_SASL_MECHANISM: 'kerberos' })).toThrow(/KAFKA_SASL_MECHANISM must be one of none, plain, scram-sha-256, scram-sha-512/);
  });
});

describe('a consumer’s batch', () => {
  /** What kafkajs hands eachBatch for `count` messages of partition 0, at offsets 100…, and what it is told back. */
  function fetched(count: number, payload: { heartbeat?: () => Promise<void>; isRunning?: () => boolean } = {}) {
    const messages = Array.from({ length: count }, (_, n) => ({
      ...received(toMessage(event({ guildId: '900', n }, { position: { commit: BigInt(n + 1), prepare: BigInt(n + 1) } }))),
      offset: String(100 + n),
    }));
    const resolved: string[] = [];
    return {
      resolved,
      payload: {
        batch: { partition: 0, messages },
        resolveOffset: (offset: string) => void resolved.push(offset),
        heartbeat: payload.heartbeat ?? (async () => {}),
        isRunning: payload.isRunning ?? (() => true),
        isStale: () => false,
      },
    };
  }
  const numbers = (events: RecordedEvent[]) => events.map((e) => (e.data as { n: number }).n);

  it('is handed on a slice at a time, and a fetch brings at most 256 KiB a partition, not kafkajs’s 1 MB', async () => {
    const slices: number[][] = [];
    const { payload, resolved } = fetched(250);
    await batchConsumer((events) => void slices.push(numbers(events)), new PartitionProgress())(payload);
    expect(slices.map((slice) => slice.length)).toEqual([100, 100, 50]);
    expect(slices.flat()).toEqual(Array.from({ length: 250 }, (_, n) => n));
    expect(resolved).toHaveLength(250);
    expect(CONSUMING.maxBytesPerPartition).toBe(256 * 1024);
  });

  it('heartbeats while a slow slice is handled, not only once the batch is done', async () => {
    let beats = 0;
    let seenWhileHandling = 0;
    const { payload } = fetched(3, { heartbeat: async () => void (beats += 1) });
    const handler = async () => {
      // A handler waiting on read models: it goes on until three heartbeats went out meanwhile, or gives up after 2 s.
      const deadline = Date.now() + 2000;
      while (beats < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      seenWhileHandling = beats;
    };
    await batchConsumer(handler, new PartitionProgress(), { sliceEvents: 100, heartbeatMs: 20 })(payload);
    expect(seenWhileHandling).toBeGreaterThanOrEqual(3);
  });

  it('drops a republished copy fetched in the same slice as its original (a relay restarted while the consumer lagged)', async () => {
    const handed: number[] = [];
    const { payload, resolved } = fetched(4);
    // The relay published 1…4, restarted from an older checkpoint, and published 3 and 4 again: one fetch holds all six.
    const copies = payload.batch.messages.slice(2).map((message, n) => ({ ...message, offset: String(104 + n) }));
    payload.batch.messages.push(...copies);
    await batchConsumer((events) => void handed.push(...numbers(events)), new PartitionProgress())(payload);
    expect(handed).toEqual([0, 1, 2, 3]);
    expect(resolved).toEqual(['100', '101', '102', '103', '104', '105']);
  });

  it('ends between slices when the consumer stops, resolving only the offsets it handled', async () => {
    let running = true;
    const handled: number[] = [];
    const { payload, resolved } = fetched(5, { isRunning: () => running });
    const handler = (events: RecordedEvent[]) => {
      handled.push(...numbers(events));
      running = false;
    };
    await batchConsumer(handler, new PartitionProgress(), { sliceEvents: 2, heartbeatMs: 1000 })(payload);
    expect(handled).toEqual([0, 1]);
    expect(resolved).toEqual(['100', '101']);
  });

  it('ends after the slice under way when a heartbeat fails (a rebalance), throwing it for kafkajs to rejoin; the redelivery hands on only the rest', async () => {
    const rebalance = Object.assign(new Error('The group is rebalancing, so a rejoin is needed'), { type: 'REBALANCE_IN_PROGRESS' });
    const handled: number[] = [];
    const progress = new PartitionProgress();
    const handler = (events: RecordedEvent[]) => void handled.push(...numbers(events));
    const first = fetched(5, { heartbeat: () => Promise.reject(rebalance) });
    await expect(batchConsumer(handler, progress, { sliceEvents: 2, heartbeatMs: 1000 })(first.payload)).rejects.toBe(rebalance);
    expect(handled).toEqual([0, 1]);
    expect(first.resolved).toEqual(['100', '101']);
    // Where this member got the partition back uncommitted, the same messages come again: the handled ones are dropped.
    const again = fetched(5);
    await batchConsumer(handler, progress, { sliceEvents: 2, heartbeatMs: 1000 })(again.payload);
    expect(handled).toEqual([0, 1, 2, 3, 4]);
  });
});

describe('leaders of a topic another process has just created', () => {
  /** A broker's answers for the topics, in turn: a failure (no leader yet, topic unknown) or each partition's leader. */
  const broker = (...answers: (number[] | Error)[]) => {
    let asked = 0;
    return {
      get asked() {
        return asked;
      },
      fetchTopicMetadata: async ({ topics }: { topics?: string[] } = {}) => {
        const answer = answers[Math.min(asked++, answers.length - 1)];
        if (answer instanceof Error) throw answer;
        return { topics: topics!.map((name) => ({ name, partitions: answer.map((leader, partitionId) => ({ partitionId, leader })) })) } as never;
      },
    };
  };

  it('are waited for: the topic unknown, then a partition without a leader, then every partition led', async () => {
    const admin = broker(new KafkaJSError('This server does not host this topic-partition', { retriable: true }), [0, -1, 0], [0, 0, 0]);
    await leadersElected(admin, ['parley', 'parley.hints'], () => false);
    expect(admin.asked).toBe(3);
  });

  it('stops asking once the start is over (its deadline passed)', async () => {
    const admin = broker([-1]);
    await leadersElected(admin, ['parley'], () => admin.asked === 2);
    expect(admin.asked).toBe(2);
  });
});
