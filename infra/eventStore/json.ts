// Recorded events as JSON text, for what leaves the process: Kafka message values and NDJSON exports. Bigints
// (revision, position) travel as strings, the position in its checkpoint encoding.
import { type RecordedEvent, decodePosition, encodePosition } from '../../ports/eventStore.js';

type EventJson = Omit<RecordedEvent, 'revision' | 'position'> & { revision: string; position: string };

export function eventToJson(event: RecordedEvent): string {
  const json: EventJson = { ...event, revision: String(event.revision), position: encodePosition(event.position) };
  return JSON.stringify(json);
}

export function eventFromJson(text: string): RecordedEvent {
  const parsed = JSON.parse(text) as EventJson;
  return { ...parsed, revision: BigInt(parsed.revision), position: decodePosition(parsed.position) };
}
