// The EventStoreDB adapter's subscription loop, without a server: the client's subscription is an object-mode
// readable stream, so a PassThrough carrying what the client would push stands in for it here.
import { PassThrough } from 'node:stream';
import { type AllStreamResolvedEvent, type AllStreamSubscription, EventStoreDBClient } from '@eventstore/db-client';
import { describe, expect, it, vi } from 'vitest';
import { BATCH, EsdbEventStore, EsdbSubscription, toEsdbEvent } from '../../infra/eventStore/esdb.js';
import type { Position, RecordedEvent } from '../../ports/eventStore.js';
import { eventually } from '../contracts/eventually.js';

const at = (n: bigint): Position => ({ commit: n, prepare: n });

function resolved(n: number, type = 'Noted'): AllStreamResolvedEvent {
  const record = toEsdbEvent({ type, data: { n }, metadata: { actorId: null, createdAt: '2024-01-01T00:00:00.000Z' } });
  return {
    event: {
      streamId: `s-${n}`,
      id: record.id,
      isJson: true,
      revision: 0n,
      type,
      created: new Date(),
      data: record.data,
      metadata: record.metadata,
      position: at(BigInt(n)),
    },
    commitPosition: BigInt(n),
  } as AllStreamResolvedEvent;
}

function source() {
  const stream = new PassThrough({ objectMode: true }) as PassThrough & { unsubscribed: number; unsubscribe(): Promise<void> };
  stream.unsubscribed = 0;
  stream.unsubscribe = async () => {
    stream.unsubscribed += 1;
  };
  return stream;
}

function start(stream: ReturnType<typeof source>, handler: (events: RecordedEvent[]) => Promise<void> | void, head: () => Promise<Position | null>) {
  const errors: unknown[] = [];
  let stopped = 0;
  const subscription = new EsdbSubscription(stream as unknown as AllStreamSubscription, null, handler, {
    head,
    onError: (error) => errors.push(error),
    onStop: () => (stopped += 1),
  });
  return { subscription, errors, stopped: () => stopped };
}

describe('EventStoreDB subscription loop', () => {
  it('hands over in order, in batches of what arrived meanwhile, leaving system events out', async () => {
    const stream = source();
    const batches: number[][] = [];
    const { subscription } = start(
      stream,
      async (events) => {
        batches.push(events.map((e) => (e.data as { n: number }).n));
        await new Promise((resolve) => setTimeout(resolve, 20));
      },
      async () => null,
    );
    stream.write(resolved(1));
    await eventually(() => expect(batches).toHaveLength(1));
    for (let n = 2; n <= 6; n++) stream.write(resolved(n, n === 4 ? '$statistics' : 'Noted'));
    await eventually(() => expect(batches.flat()).toEqual([1, 2, 3, 5, 6]));
    expect(batches.length).toBeLessThan(5);
    await subscription.stop();
  });

  it('caughtUp() waits until the last deliverable position has been handled', async () => {
    const stream = source();
    let handled = 0;
    const { subscription } = start(
      stream,
      () => void (handled += 1),
      async () => at(3n),
    );
    const caughtUp = subscription.caughtUp();
    let done = false;
    void caughtUp.then(() => (done = true));
    stream.write(resolved(1));
    stream.write(resolved(2));
    await eventually(() => expect(handled).toBeGreaterThan(0));
    expect(done).toBe(false);
    stream.write(resolved(3));
    await caughtUp;
    await subscription.stop();
  });

  it('an error of the stream stops the subscription, reports it once and fails caughtUp', async () => {
    const stream = source();
    const { subscription, errors } = start(
      stream,
      () => {},
      async () => at(10n),
    );
    const waiting = subscription.caughtUp();
    stream.destroy(new Error('connection lost'));
    await expect(waiting).rejects.toThrow('connection lost');
    expect(errors).toHaveLength(1);
    await expect(subscription.caughtUp()).rejects.toThrow('connection lost');
    expect(stream.unsubscribed).toBe(1);
    await subscription.stop();
  });

  it('stop() unsubscribes, and nothing is handled after it', async () => {
    const stream = source();
    const seen: RecordedEvent[] = [];
    const { subscription, stopped } = start(
      stream,
      (events) => void seen.push(...events),
      async () => null,
    );
    stream.write(resolved(1));
    await eventually(() => expect(seen).toHaveLength(1));
    await subscription.stop();
    stream.write(resolved(2));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toHaveLength(1);
    expect(stream.unsubscribed).toBe(1);
    expect(stopped()).toBe(1);
  });
});

describe('EventStoreDB subscriptions of the adapter', () => {
  it('ask the client to buffer a whole batch, not the 16 events of a default object stream', async () => {
    // The real client, pointed at a port nothing listens on: the subscription's stream exists before it connects.
    const client = EventStoreDBClient.connectionString('esdb://127.0.0.1:1?tls=false');
    const subscribe = vi.spyOn(client, 'subscribeToAll');
    const store = new (EsdbEventStore as unknown as new (client: EventStoreDBClient) => EsdbEventStore)(client);
    const subscription = store.subscribeToAll(
      {},
      () => {},
      () => {},
    );
    try {
      const source = subscribe.mock.results[0].value as AllStreamSubscription;
      expect(source.readableHighWaterMark).toBe(BATCH);
    } finally {
      await subscription.stop();
      await store.close();
    }
  });
});
