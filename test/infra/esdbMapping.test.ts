// The EventStoreDB adapter's mapping, without a server: events to the client's records and back, expected
// revisions, the wrong-expected-version error, and the server-side type filter.
import { ANY, NO_STREAM, STREAM_EXISTS, WrongExpectedVersionError as EsdbWrongExpectedVersionError, type AllStreamResolvedEvent } from '@eventstore/db-client';
import { describe, expect, it } from 'vitest';
import { fromEsdbError, fromEsdbEvent, includedTypesRegex, toEsdbEvent, toEsdbExpectedRevision } from '../../infra/eventStore/esdb.js';
import { type NewEvent, WrongExpectedVersionError, decodePosition, encodePosition } from '../../ports/eventStore.js';

const newEvent: NewEvent = {
  id: '6f1c2a8e-5b0c-4f7e-9d55-2d1c0a9b7e31',
  type: 'UserRenamed',
  data: { userId: '42', username: 'ann' },
  metadata: { actorId: '42', reason: 'typo', correlationId: 'corr', causationId: 'cause', createdAt: '2024-05-01T00:00:00.000Z' },
  schemaVersion: 2,
};

/** What the client hands over for a record it read: built from the client's own output of toEsdbEvent. */
function recorded(data: ReturnType<typeof toEsdbEvent>, extra: { type?: string; isJson?: boolean } = {}): AllStreamResolvedEvent {
  return {
    event: {
      streamId: 'user-42',
      id: data.id,
      isJson: extra.isJson ?? true,
      revision: 7n,
      type: extra.type ?? data.type,
      created: new Date(),
      data: data.data,
      metadata: data.metadata,
      position: { commit: 2n ** 62n + 5n, prepare: 2n ** 62n + 1n },
    },
    commitPosition: 2n ** 62n + 5n,
  } as AllStreamResolvedEvent;
}

describe('event to EventStoreDB record', () => {
  it('keeps id and type, sends the data as JSON, and the metadata with the schema version and $-named correlation', () => {
    const record = toEsdbEvent(newEvent);
    expect(record).toEqual({
      id: newEvent.id,
      contentType: 'application/json',
      type: 'UserRenamed',
      data: { userId: '42', username: 'ann' },
      metadata: { actorId: '42', reason: 'typo', $correlationId: 'corr', $causationId: 'cause', createdAt: '2024-05-01T00:00:00.000Z', schemaVersion: 2 },
    });
  });

  it('gives an id when the event has none, and schema version 1 by default', () => {
    const record = toEsdbEvent({ type: 'Noted', data: {}, metadata: { actorId: null, createdAt: 'now' } });
    expect(record.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(record.metadata).toEqual({ actorId: null, createdAt: 'now', schemaVersion: 1 });
  });

  it('round-trips into the recorded event of the port, position included', () => {
    const event = fromEsdbEvent(recorded(toEsdbEvent(newEvent)));
    expect(event).toEqual({
      id: newEvent.id,
      streamId: 'user-42',
      revision: 7n,
      position: { commit: 2n ** 62n + 5n, prepare: 2n ** 62n + 1n },
      type: 'UserRenamed',
      data: newEvent.data,
      metadata: newEvent.metadata,
      schemaVersion: 2,
    });
    expect(decodePosition(encodePosition(event!.position))).toEqual(event!.position);
  });

  it('leaves out system events, binary records and unresolved links', () => {
    expect(fromEsdbEvent(recorded(toEsdbEvent(newEvent), { type: '$metadata' }))).toBeNull();
    expect(fromEsdbEvent(recorded(toEsdbEvent(newEvent), { isJson: false }))).toBeNull();
    expect(fromEsdbEvent({ commitPosition: 3n })).toBeNull();
  });

  it('falls back to the commit position when the server gives no record position (stream reads before 22.6)', () => {
    const resolved = recorded(toEsdbEvent(newEvent));
    delete (resolved.event as { position?: unknown }).position;
    expect(fromEsdbEvent(resolved)!.position).toEqual({ commit: 2n ** 62n + 5n, prepare: 2n ** 62n + 5n });
  });
});

describe('expected revisions and conflicts', () => {
  it('map one to one onto the client constants', () => {
    expect(toEsdbExpectedRevision('any')).toBe(ANY);
    expect(toEsdbExpectedRevision('no_stream')).toBe(NO_STREAM);
    expect(toEsdbExpectedRevision('stream_exists')).toBe(STREAM_EXISTS);
    expect(toEsdbExpectedRevision(12n)).toBe(12n);
  });

  it("the client's wrong-expected-version error becomes the port's, with the actual revision", () => {
    const atRevision = fromEsdbError(new EsdbWrongExpectedVersionError(undefined, { streamName: 'user-42', expected: 3n, current: 5n }), 'user-42', 3n);
    expect(atRevision).toBeInstanceOf(WrongExpectedVersionError);
    expect(atRevision).toMatchObject({ streamId: 'user-42', expected: 3n, actual: 5n });
    const missing = fromEsdbError(
      new EsdbWrongExpectedVersionError(undefined, { streamName: 'user-9', expected: STREAM_EXISTS, current: NO_STREAM }),
      'user-9',
      'stream_exists',
    );
    expect(missing).toMatchObject({ streamId: 'user-9', expected: 'stream_exists', actual: 'no_stream' });
    const other = new Error('unavailable');
    expect(fromEsdbError(other, 'user-42', 'any')).toBe(other);
  });
});

describe('server-side type filter', () => {
  it('matches every type but system events and the excluded prefix (taken literally)', () => {
    const plain = new RegExp(includedTypesRegex());
    expect(plain.test('UserRegistered')).toBe(true);
    expect(plain.test('$metadata')).toBe(false);
    const excluding = new RegExp(includedTypesRegex('Gateway.'));
    expect(excluding.test('Gateway.SessionStarted')).toBe(false);
    expect(excluding.test('GatewayXSessionStarted')).toBe(true);
    expect(excluding.test('$stats')).toBe(false);
    expect(excluding.test('MessageCreated')).toBe(true);
  });
});
