// Readers of GET /guilds/:id/events over the real HTTPS server: the bytes as they come, split into SSE messages or
// NDJSON lines, with the whole capture kept for byte searches.
import { request } from 'undici';
import type { TestServer } from '../support/server.js';

export interface StreamedEvent {
  position: string;
  type: string;
  stream: string;
  time: string;
  actor_id: string | null;
  data: any;
  erased?: true;
}

/** A line or message of the stream: an event, or the stream's own CaughtUp / StreamEnded. */
export type Item = (StreamedEvent & { id?: string }) | { type: 'CaughtUp' | 'StreamEnded'; reason?: string; position: string | null; id?: string };

export const isEvent = (item: Item): item is StreamedEvent => 'stream' in item;

export interface OpenedStream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The error body of a refusal. */
  refusal: any;
  /** Every byte received so far. */
  captured(): Buffer;
  /** The next item; null when the stream ended. */
  next(): Promise<Item | null>;
  /** Items until one matches (inclusive); fails if the stream ends first. */
  until(match: (item: Item) => boolean): Promise<Item[]>;
  /** Every item until the server ends the stream. */
  rest(): Promise<Item[]>;
  close(): void;
}

export interface StreamOptions {
  token: string;
  sse?: boolean;
  query?: string;
  headers?: Record<string, string>;
  prefix?: string;
}

export async function openEvents(server: Pick<TestServer, 'origin' | 'dispatcher'>, guildId: string, options: StreamOptions): Promise<OpenedStream> {
  const controller = new AbortController();
  const response = await request(`${server.origin}${options.prefix ?? '/api/v10'}/guilds/${guildId}/events${options.query ?? ''}`, {
    dispatcher: server.dispatcher,
    signal: controller.signal,
    headers: {
      authorization: `Bearer ${options.token}`,
      accept: options.sse ? 'text/event-stream' : 'application/x-ndjson',
      ...options.headers,
    },
  });
  const chunks: Buffer[] = [];
  if (response.statusCode !== 200) {
    const refusal = await response.body.json();
    return {
      status: response.statusCode,
      headers: response.headers,
      refusal,
      captured: () => Buffer.alloc(0),
      next: async () => null,
      until: none,
      rest: none,
      close() {},
    };
  }
  const iterator = (response.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  let buffered = '';
  const items: Item[] = [];
  let done = false;
  const separator = options.sse ? '\n\n' : '\n';
  async function fill(): Promise<void> {
    while (items.length === 0 && !done) {
      let chunk: IteratorResult<Buffer>;
      try {
        chunk = await iterator.next();
      } catch {
        done = true;
        return;
      }
      if (chunk.done) {
        done = true;
        return;
      }
      chunks.push(chunk.value);
      buffered += chunk.value.toString('utf8');
      let end: number;
      while ((end = buffered.indexOf(separator)) !== -1) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + separator.length);
        const item = options.sse ? parseSse(block) : block.trim() ? (JSON.parse(block) as Item) : null;
        if (item) items.push(item);
      }
    }
  }
  const next = async () => {
    await fill();
    return items.shift() ?? null;
  };
  return {
    status: 200,
    headers: response.headers,
    refusal: null,
    captured: () => Buffer.concat(chunks),
    next,
    async until(match) {
      const seen: Item[] = [];
      for (;;) {
        const item = await next();
        if (!item) throw new Error(`the stream ended before the item awaited; saw ${JSON.stringify(seen.map((i) => i.type))}`);
        seen.push(item);
        if (match(item)) return seen;
      }
    },
    async rest() {
      const seen: Item[] = [];
      for (let item = await next(); item; item = await next()) seen.push(item);
      return seen;
    },
    close: () => controller.abort(),
  };
}

const none = async (): Promise<never> => {
  throw new Error('the stream was refused');
};

/** One SSE message: its `data` (JSON), with its `id`; a comment (heartbeat) is none. */
function parseSse(block: string): Item | null {
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('id: ')) id = line.slice(4);
    else if (line.startsWith('data: ')) data.push(line.slice(6));
  }
  if (data.length === 0) return null;
  return { ...(JSON.parse(data.join('\n')) as Item), ...(id ? { id } : {}) };
}

/**
 * Waits until /metrics (behind `metricsToken`) counts `count` event streams waiting for their readers to take what the
 * server wrote them: the server writes nothing more to those readers until they read.
 */
export async function streamsWaitingForReaders(server: Pick<TestServer, 'call'>, metricsToken: string, count: number): Promise<void> {
  for (;;) {
    const scraped = await server.call('GET', '/metrics', { headers: { authorization: `Bearer ${metricsToken}` } });
    if (scraped.status !== 200) throw new Error(`/metrics answered ${scraped.status}: ${scraped.text}`);
    if (Number(/^parley_event_streams_waiting_for_reader (\d+)$/m.exec(scraped.text)?.[1]) === count) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Appends `count` copies of a sent message's MessageCreated straight to the log as other messages (the ids after its
 * own), which seals them as a send does: megabytes ahead of a reader in seconds, where sending them would take minutes.
 * The copies' ids, in order.
 */
export async function appendCopiesOf(server: Pick<TestServer, 'runtime'>, messageId: string, count: number): Promise<string[]> {
  const store = server.runtime.store;
  const [created] = await store.readStream(`message-${messageId}`);
  const data = created.data as { messageId: string; message: { id: string } };
  const copies = Array.from({ length: count }, (_, i) => String(BigInt(messageId) + BigInt(i + 1)));
  await Promise.all(
    copies.map((id) =>
      store.appendToStream(
        `message-${id}`,
        [{ type: 'MessageCreated', data: { ...data, messageId: id, message: { ...data.message, id } }, metadata: created.metadata }],
        { expectedRevision: 'no_stream' },
      ),
    ),
  );
  return copies;
}
