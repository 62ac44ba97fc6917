// Kafka messages of events, without a broker: keys, headers, the value round-trip, and the per-partition progress
// that drops a relay's republished messages.
import { describe, expect, it } from 'vitest';
import { HEADERS, PartitionProgress, fromMessage, messageKey, positionOf, toMessage } from '../../infra/bus/kafka.js';
import type { RecordedEvent } from '../../ports/eventStore.js';

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

  it('drops what a partition already handled (a republish after a relay crash), per partition', () => {
    const progress = new PartitionProgress();
    expect(progress.isNew(0, at(5n))).toBe(true);
    progress.handled(0, at(5n));
    expect(progress.isNew(0, at(4n))).toBe(false);
    expect(progress.isNew(0, at(5n))).toBe(false);
    expect(progress.isNew(0, at(6n))).toBe(true);
    expect(progress.isNew(1, at(1n))).toBe(true);
  });

  it('keeps a batch whose handler failed, so its redelivery is not dropped', () => {
    const progress = new PartitionProgress();
    expect(progress.isNew(0, at(7n))).toBe(true);
    expect(progress.isNew(0, at(7n))).toBe(true);
  });
});
