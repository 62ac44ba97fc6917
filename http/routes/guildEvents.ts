// GET /guilds/:guildId/events: the analysts' stream of a guild's events (commands/guildEvents.ts), caught up from a
// position and then followed, as Server-Sent Events or NDJSON. The response is written here as the reader takes it:
// past EVENT_STREAM_BUFFER_BYTES waiting, the stream waits for the reader up to EVENT_STREAM_STALL_MS, then ends with
// a last line naming the position to resume after, so a stalled reader holds neither memory nor a place for long.
import type { ServerResponse } from 'node:http';
import type { Context } from 'koa';
import { type GuildEvent, type GuildEventStream, openGuildEvents } from '../../commands/guildEvents.js';
import { decodePosition } from '../../ports/eventStore.js';
import type { Logger } from '../../ports/logger.js';
import type { Metrics } from '../../ports/metrics.js';
import { requireAuth } from '../auth.js';
import { guildParams } from '../params.js';
import { route } from '../route.js';
import { parseBody } from '../validation.js';

const positionSchema = {
  type: 'string',
  pattern: '^\\d{1,20}/\\d{1,20}$',
  description: 'A position of the log as the stream gives it (an event’s `position`, an SSE `id`): opaque, compare only for equality.',
} as const;

const eventsQuery = {
  type: 'object',
  properties: {
    after: positionSchema,
    follow: { type: 'boolean', default: false, description: 'NDJSON: keep following the log after catch-up (SSE always does).' },
  },
} as const;

/**
 * SSE's Last-Event-ID, which wins over `after` (an EventSource reconnects with its first URL and this header). Said in
 * the description rather than as the entry's `headers`: Swagger UI hangs rendering this header parameter.
 */
const lastEventIdHeader = { type: 'object', properties: { 'last-event-id': positionSchema } } as const;

const eventSchema = {
  type: 'object',
  properties: {
    position: positionSchema,
    type: { type: 'string' },
    stream: { type: 'string' },
    time: { type: 'string', format: 'date-time' },
    actor_id: { type: ['string', 'null'] },
    data: { type: 'object', description: 'The event’s data, as the event catalogue (/api/v1/asyncapi.json) declares it.' },
    erased: { const: true, description: 'A personal field of this event was erased: it reads null.' },
  },
  required: ['position', 'type', 'stream', 'time', 'actor_id', 'data'],
} as const;

/** The stream's own lines, beside the events: they have no `stream`. */
type Control =
  { type: 'CaughtUp'; position: string | null } | { type: 'StreamEnded'; reason: 'slow_reader' | 'access_lost' | 'failed'; position: string | null };

interface Format {
  contentType: string;
  event(event: GuildEvent): string;
  control(control: Control): string;
  heartbeat: string;
}

const SSE: Format = {
  contentType: 'text/event-stream; charset=utf-8',
  event: (event) => `id: ${event.position}\ndata: ${JSON.stringify(event)}\n\n`,
  // An SSE client sends the last `id` it saw when it reconnects: the control's position is where to resume.
  control: (control) => `${control.position ? `id: ${control.position}\n` : ''}event: ${control.type}\ndata: ${JSON.stringify(control)}\n\n`,
  heartbeat: ': heartbeat\n\n',
};

const NDJSON: Format = {
  contentType: 'application/x-ndjson',
  event: (event) => `${JSON.stringify(event)}\n`,
  control: (control) => `${JSON.stringify(control)}\n`,
  // An empty line: readers of NDJSON skip blank lines.
  heartbeat: '\n',
};

export const guildEventsRoute = route({
  method: 'GET',
  path: '/guilds/:guildId/events',
  summary: 'Stream a guild’s events',
  description:
    'Needs VIEW_AUDIT_LOG (an OAuth2 token: the guilds.events.read scope, granted by a user who has it). The guild’s events in log order ' +
    'after `after` (or, for SSE, the Last-Event-ID header, which wins), caught up and then followed: `Accept: text/event-stream` (SSE, `id:` = position, a `CaughtUp` ' +
    'event when catch-up ends, heartbeat comments) or NDJSON (`application/x-ndjson`, ending after catch-up unless `follow=true`). ' +
    'Events of channels the reader cannot view are left out; message text only where they may read the history; erased fields are null ' +
    'with `"erased": true`. A reader that stops taking events is cut off with a `StreamEnded` line naming the position to resume after. ' +
    'Streams open at once are limited per reader and per guild (429).',
  tag: 'Audit log',
  auth: 'any',
  scope: 'guilds.events.read',
  params: guildParams,
  query: eventsQuery,
  responses: {
    200: {
      description: 'The events, one an SSE message or an NDJSON line, then `StreamEnded` when the server ends the stream.',
      content: { 'application/x-ndjson': eventSchema, 'text/event-stream': { type: 'string' } },
    },
  },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS', 'RATE_LIMITED'],
  async handle(ctx, { params, query }, deps) {
    const sse = ctx.accepts('application/x-ndjson', 'text/event-stream') === 'text/event-stream';
    const { 'last-event-id': lastEventId } = parseBody(lastEventIdHeader, sse && ctx.get('last-event-id') ? { 'last-event-id': ctx.get('last-event-id') } : {});
    const after = lastEventId ?? query.after;
    const auth = requireAuth(ctx);
    const stream = await openGuildEvents(
      deps,
      { userId: auth.userId, applicationId: auth.applicationId },
      params.guildId,
      after ? decodePosition(after) : null,
    );
    await present(ctx, stream, sse ? SSE : NDJSON, { ...deps.config.eventStreams, follow: sse || query.follow, log: deps.log, metrics: deps.metrics });
    return undefined;
  },
});

export const guildEventRoutes = [guildEventsRoute];

interface Presenting {
  follow: boolean;
  bufferBytes: number;
  stallMs: number;
  heartbeatMs: number;
  log: Logger;
  metrics: Pick<Metrics, 'eventStreamWaiting'>;
}

/**
 * A stream catching up is background work beside the requests the process serves: while any is in flight, each
 * catch-up batch is followed by a pause of (1 - share) / share times what the batch took (reading, opening, presenting
 * and writing it, in wall time, which also counts the requests' work interleaved with it), at most `mostPauseMs`, so
 * that a catch-up always goes on; with none in flight it reads at full speed. The next batch is read and chosen during
 * the pause, outside what is timed, and the bytes are encrypted and sent after it: `share` is set at half the tenth of
 * the senders' rate a stream may cost (measured: 0.87–0.93× their rate, median 0.90×, while a stream caught up on a busy
 * process; 0.32–0.38× with no pause).
 */
const CATCH_UP_WHEN_BUSY = { share: 0.05, mostPauseMs: 1000 } as const;

/** The pause after a catch-up batch that took `batchMs`, while `busy` (requests in flight). */
function catchUpPause(batchMs: number, busy: boolean): number {
  const { share, mostPauseMs } = CATCH_UP_WHEN_BUSY;
  return busy ? Math.min(mostPauseMs, (batchMs * (1 - share)) / share) : 0;
}

/** Writes the stream on the response as the reader takes it, until it ends, the reader goes, or it is cut off. */
async function present(ctx: Context, stream: GuildEventStream, format: Format, options: Presenting): Promise<void> {
  ctx.respond = false;
  const res = ctx.res;
  res.writeHead(200, { 'Content-Type': format.contentType, 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' });
  res.flushHeaders();
  // Streams are limited per reader and per guild; holding an admission slot for their life would shrink what others get.
  ctx.state.leaveAdmission?.();
  let gone = false;
  const leave = () => {
    gone = true;
    void stream.close();
  };
  res.once('close', leave);
  const heartbeat = setInterval(() => {
    if (!res.writableNeedDrain) res.write(format.heartbeat);
  }, options.heartbeatMs);
  let position: string | null = null;
  let announced = false;
  const busy = ctx.state.requestsInFlight ?? (() => 0);
  try {
    for (;;) {
      const started = performance.now();
      const batch = await stream.next();
      if (gone) return;
      if (!batch) {
        if (stream.ended) res.write(format.control({ type: 'StreamEnded', ...stream.ended }));
        return;
      }
      // One write a batch: a socket write per event costs the event loop more than the JSON.
      const lines = batch.events.map(format.event);
      position = batch.position;
      if (batch.caughtUp && !announced) {
        announced = true;
        lines.push(format.control({ type: 'CaughtUp', position }));
        if (!options.follow) {
          res.write(lines.join(''));
          return;
        }
      }
      if (lines.length) res.write(lines.join(''));
      const pause = announced ? 0 : catchUpPause(performance.now() - started, busy() > 0);
      if (pause > 0) {
        await new Promise((resolve) => setTimeout(resolve, pause));
        if (gone) return;
      }
      if (res.writableNeedDrain && res.writableLength > options.bufferBytes && !(await drained(res, options))) {
        if (!gone) res.write(format.control({ type: 'StreamEnded', reason: 'slow_reader', position }));
        return;
      }
    }
  } catch (error) {
    options.log.error({ err: error, requestId: ctx.state.requestId }, 'an event stream failed');
    if (!gone) res.write(format.control({ type: 'StreamEnded', reason: 'failed', position }));
  } finally {
    clearInterval(heartbeat);
    res.off('close', leave);
    await stream.close();
    res.end();
  }
}

/**
 * Whether the reader took what was waiting within `stallMs` (or went away, which ends the stream anyway). The wait is
 * counted in the metrics: operators see readers that fall behind before they are cut off.
 */
function drained(res: ServerResponse, { stallMs, metrics }: Pick<Presenting, 'stallMs' | 'metrics'>): Promise<boolean> {
  metrics.eventStreamWaiting(1);
  return new Promise((resolve) => {
    const done = (taken: boolean) => {
      metrics.eventStreamWaiting(-1);
      clearTimeout(timer);
      res.off('drain', took);
      res.off('close', took);
      resolve(taken);
    };
    const took = () => done(true);
    const timer = setTimeout(() => done(false), stallMs);
    res.on('drain', took);
    res.on('close', took);
  });
}
