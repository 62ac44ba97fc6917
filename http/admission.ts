// Admission: a process admits requests up to a limit that it adapts to keep what it admits fast, and answers the rest
// at once with 503 and Retry-After, before their body is read, instead of queueing them until their client gives up.
// 429 stays the rate limits'.
//
// A fixed count of requests in flight does not bound their latency: a request's wait is about the requests ahead of it
// divided by the rate they are served at (Little's law), and that rate falls with the machine's speed and its other
// load. So the limit moves, as TCP's congestion window does (and Netflix's concurrency-limits' gradient): each window
// of `targetMs` compares what the window's admitted requests waited with the target, and multiplies the limit by their
// ratio, shrinking it when they waited longer and growing it, while it is used, when they waited less. Their wait is
// measured from admission to answer, plus the event loop's delay in the window: a request waits about one turn of the
// loop before admission sees it, and under overload that turn is the larger part (measured: docs/operations.md, Overload).
// MAX_REQUESTS_IN_FLIGHT stays the ceiling; a floor keeps an ordinary burst from being refused on a slow machine.
//
// Admission decides on the server's 'request' event, before koa: under overload refusals outnumber what is admitted
// twenty to one, and each one taken through koa's middleware cost about what the loop had left for the admitted
// sends and for new connections' handshakes (measured: docs/operations.md, Overload). A refusal is a prebuilt answer
// written whole, headers and body in one write. A client that asks again at once, as a load generator does, would
// still keep the process busy refusing it: a connection refused again within Retry-After is answered once that has
// passed since its last refusal, so each connection costs at most one refusal a Retry-After. A client that waits as
// it is told is answered at once; a new connection is, too (its handshake costs it more than waiting would).
//
// Under a flood of new connections the handshakes queue on the loop, and a client's first request, written with its
// handshake, has waited most of its answer's time before the 'request' event. While the process is overloaded (its
// limit refused a request within the last OVERLOADED_FOR_MS), a connection whose TLS handshake took over
// LATE_HANDSHAKE_MS while the loop was busy for most of it has its first request refused at once, whatever the limit:
// served, it would be answered late, with the loop time the handshakes still under way need; refused, its client's
// next request is timed and served from a fresh start (CoDel's rule: a request that has already waited past the target
// is dropped rather than served). A handshake as slow while the loop was idle is the network's: served. So is one as
// slow on a process its limit has not had to refuse for: a busy start (modules compiled, the log caught up) on a
// loaded machine slows the first handshakes, and their clients, which connected all at once, are not an overload,
// unless they are a flood: a connection accepted behind HANDSHAKE_FLOOD handshakes under way, or secure while as many
// are, is part of one, whether or not the limit has refused yet (a flood's first requests reach admission before the
// limit is full).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server as TlsServer } from 'node:https';
import type { Socket } from 'node:net';
import { type EventLoopUtilization, performance } from 'node:perf_hooks';
import type { Context, Next } from 'koa';
import type { Metrics } from '../ports/metrics.js';
import { apiRequest } from './apiVersions.js';
import { closeAfterAnswer } from './lingeringClose.js';
import { isOperatorRequest } from './operations.js';

declare module 'koa' {
  interface DefaultState {
    /**
     * Gives the request's admission back before it ends: a response that streams for minutes (an event stream) has
     * started, and is bounded by limits of its own, not by the queue admission keeps short.
     */
    leaveAdmission?: () => void;
    /** The requests admitted and not yet answered: background work in a request yields while there are any. */
    requestsInFlight?: () => number;
  }
}

/** The seconds a refused client is asked to wait: the queue it was refused by drains within that. */
export const OVERLOAD_RETRY_AFTER_S = 1;

/** A body larger than this is not read to keep the connection after a refusal: the connection closes instead. */
const DRAIN_ON_REFUSAL_BYTES = 64 * 1024;

/** A handshake that waited longer than this on a busy loop has used half the second its request is meant to be answered in. */
const LATE_HANDSHAKE_MS = 500;

/** How long after its limit last refused a request a process is taken to be overloaded, for late handshakes. */
const OVERLOADED_FOR_MS = 5000;

/**
 * Handshakes under way at a connection's accept that make it part of a flood: at about a millisecond of the loop
 * each, the loop's next tenth of a second and more. A client's own burst (a bot's shards, a test's parallel
 * requests) opens tens of connections at once, not hundreds.
 */
const HANDSHAKE_FLOOD = 128;

/**
 * The share of a handshake's wait the loop was busy for that says the wait was the process's, not the network's: a
 * handshake needs a millisecond of it. Measured under the overload on a machine shared with other work, 0.8–1 (a
 * process waiting for a core is not always busy by this measure); a slow link on an idle process, near 0.
 */
const SATURATED = 0.5;

/** How often the event loop's delay is sampled while requests are in flight. */
const LOOP_SAMPLE_MS = 10;

export interface AdmissionLimits {
  /** The most requests at once (MAX_REQUESTS_IN_FLIGHT); 0: no admission control at all. */
  maxRequestsInFlight: number;
  /** The fewest the adaptive limit goes down to (ADMISSION_MIN_IN_FLIGHT). */
  admissionMinInFlight: number;
  /** The wait admitted requests are held under (ADMISSION_TARGET_MS); 0: the ceiling alone, fixed. */
  admissionTargetMs: number;
}

export interface Admission {
  /**
   * The server's first look at a request (its 'request' listener, before koa): takes a place for it, or answers it
   * 503 here and says it did (false). The operator's endpoints take no place and are never refused.
   */
  enter(req: IncomingMessage, res: ServerResponse): boolean;
  /** In koa, after the operator's endpoints: the request's place on its state, given back once it is answered. */
  middleware(ctx: Context, next: Next): Promise<unknown>;
  /** Times a TLS server's handshakes: a connection whose handshake waited on a busy loop has its first request refused. */
  watchHandshakes(server: TlsServer): void;
}

/** `metrics` counts each refusal as koa's measure would have: method, route `unmatched`, 503. */
export function admission(limits: AdmissionLimits, metrics: Pick<Metrics, 'request'>): Admission {
  if (limits.maxRequestsInFlight === 0) return { enter: () => true, middleware: (_ctx, next) => next(), watchHandshakes: () => {} };
  const limit = new AdaptiveLimit(limits);
  const requestsInFlight = () => limit.inFlight;
  const places = new WeakMap<IncomingMessage, () => void>();
  /** When each connection's last refusal was answered, or will be. */
  const refusedAt = new WeakMap<Socket, number>();
  /**
   * TLS connections whose handshake waited too long on a saturated loop, until their first request, and whether each
   * was part of a flood of handshakes (refused whether or not the limit has refused lately).
   */
  const lateHandshakes = new WeakMap<Socket, { flood: boolean }>();
  /** When the limit last refused a request. */
  let limitRefusedAt = -Infinity;
  return {
    enter(req, res) {
      const path = pathOf(req.url);
      const now = performance.now();
      const handshake = lateHandshakes.get(req.socket);
      if (handshake) lateHandshakes.delete(req.socket);
      const late = handshake !== undefined && (handshake.flood || now - limitRefusedAt < OVERLOADED_FOR_MS);
      if (isOperatorRequest(req.method, path)) return true;
      const overLimit = !late && !limit.acquire();
      if (overLimit) limitRefusedAt = now;
      if (late || overLimit) {
        metrics.request(req.method ?? 'GET', 'unmatched', 503, 0);
        // A connection refused less than Retry-After ago is answered once that has passed since its last refusal.
        const due = (refusedAt.get(req.socket) ?? -Infinity) + OVERLOAD_RETRY_AFTER_S * 1000;
        if (due <= now || !keepsConnection(req)) {
          refusedAt.set(req.socket, now);
          refuse(req, res, path);
        } else {
          refusedAt.set(req.socket, due);
          setTimeout(() => {
            if (!res.destroyed) refuse(req, res, path);
          }, due - now);
        }
        return false;
      }
      const leave = placeIn(limit, now);
      places.set(req, leave);
      // Answered before koa's side of admission saw it (a failure in the middleware ahead of it), it still gives back.
      res.once('close', leave);
      return true;
    },
    watchHandshakes(server) {
      if (limits.admissionTargetMs === 0) return;
      const accepted = new WeakMap<Socket, { at: number; loop: EventLoopUtilization; behind: number }>();
      // The handshakes under way: a connection's is over once it is secure, or once it closes before that.
      const handshaking = new WeakSet<Socket>();
      let underWay = 0;
      const over = (tcp: Socket) => {
        if (handshaking.delete(tcp)) underWay -= 1;
      };
      server.on('connection', (socket: Socket) => {
        accepted.set(socket, { at: performance.now(), loop: performance.eventLoopUtilization(), behind: underWay });
        handshaking.add(socket);
        underWay += 1;
        socket.once('close', () => over(socket));
      });
      server.on('secureConnection', (socket: Socket & { _parent?: Socket }) => {
        // Node's TLS socket names the TCP connection it wraps, the one 'connection' gave, `_parent`.
        const start = socket._parent && accepted.get(socket._parent);
        if (!start) return;
        over(socket._parent!);
        if (performance.now() - start.at <= LATE_HANDSHAKE_MS) return;
        if (performance.eventLoopUtilization(start.loop).utilization < SATURATED) return;
        // Behind a flood, or overtaken by one: the first of a flood are accepted with few ahead, and share the loop with
        // the rest as they come.
        lateHandshakes.set(socket, { flood: Math.max(start.behind, underWay) >= HANDSHAKE_FLOOD });
      });
    },
    async middleware(ctx, next) {
      const leave = places.get(ctx.req);
      if (leave) {
        ctx.state.requestsInFlight = requestsInFlight;
        ctx.state.leaveAdmission = leave;
      }
      try {
        await next();
      } finally {
        leave?.();
      }
    },
  };
}

/**
 * The way out of `limit` of a request admitted at `admitted`, which gives its place back once. Made here rather than
 * inline in enter(), where the transpiler would name each request's copy (a defineProperty per request).
 */
function placeIn(limit: AdaptiveLimit, admitted: number): () => void {
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    limit.release(performance.now() - admitted);
  };
}

/** The path of a request's target, as koa's ctx.path reads it (an absolute-form target's too). */
function pathOf(url = '/'): string {
  if (!url.startsWith('/')) return URL.canParse(url) ? new URL(url).pathname : url;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** The limit on requests at once, moved once a window by how long the window's admitted requests waited. */
class AdaptiveLimit {
  private limit: number;
  /** Requests admitted and not yet answered (a stream that gave its place back is not counted). */
  inFlight = 0;
  private readonly ceiling: number;
  private readonly floor: number;
  private readonly targetMs: number;
  // The window under way: its admitted requests' waits, the most in flight, the loop delay sampled in it.
  private windowStart = performance.now();
  private waited: number[] = [];
  private peak = 0;
  private loopDelay = { count: 0, sumMs: 0 };
  private sampler: NodeJS.Timeout | null = null;

  constructor(limits: AdmissionLimits) {
    this.ceiling = limits.maxRequestsInFlight;
    this.floor = Math.min(limits.admissionMinInFlight, this.ceiling);
    this.targetMs = limits.admissionTargetMs;
    // It starts open: an idle process has no reason to refuse, and the first overloaded window closes it.
    this.limit = this.ceiling;
  }

  acquire(): boolean {
    if (this.inFlight >= Math.floor(this.limit)) return false;
    this.inFlight += 1;
    this.peak = Math.max(this.peak, this.inFlight);
    if (this.inFlight === 1 && this.targetMs > 0) this.sampleLoop();
    return true;
  }

  release(waitedMs: number): void {
    this.inFlight -= 1;
    if (this.targetMs === 0) return;
    this.waited.push(waitedMs);
    const now = performance.now();
    if (now - this.windowStart >= this.targetMs) this.adapt(now);
    // The loop is only watched while something is in flight: an idle process keeps no timer going.
    if (this.inFlight === 0 && this.sampler) {
      clearInterval(this.sampler);
      this.sampler = null;
    }
  }

  private adapt(now: number): void {
    const loopDelayMs = this.loopDelay.count ? this.loopDelay.sumMs / this.loopDelay.count : 0;
    // The median: a stream held open for minutes, or an upload from a slow client, says nothing of the queue.
    const waitedMs = this.waited.sort((a, b) => a - b)[this.waited.length >> 1] + loopDelayMs;
    // At most halved or grown by a quarter a window: one slow window (a collection, a neighbour's burst) moves it, not
    // throws it; and it only grows while it is used, so a quiet spell does not open it past what was tried.
    const gradient = Math.min(1.25, Math.max(0.5, this.targetMs / Math.max(waitedMs, 1)));
    if (gradient < 1) this.limit = Math.max(this.floor, this.limit * gradient);
    else if (this.peak >= this.limit / 2) this.limit = Math.min(this.ceiling, this.limit * gradient + 1);
    this.windowStart = now;
    this.waited = [];
    this.loopDelay = { count: 0, sumMs: 0 };
    this.peak = this.inFlight;
  }

  /** The loop's delay: how late a timer of LOOP_SAMPLE_MS fires is how long a request that arrives waits to be read. */
  private sampleLoop(): void {
    let expected = performance.now() + LOOP_SAMPLE_MS;
    this.sampler = setInterval(() => {
      const now = performance.now();
      this.loopDelay.count += 1;
      this.loopDelay.sumMs += Math.max(0, now - expected);
      expected = now + LOOP_SAMPLE_MS;
    }, LOOP_SAMPLE_MS);
    this.sampler.unref();
  }
}

/** The refusal's body for each error code (the API versions' forms), made once. */
const refusals = new Map<string | number, string>();

/** Whether a refusal keeps the connection: Node reads a small unread body on, a large or unannounced one is not worth it. */
function keepsConnection(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return !(length === undefined ? req.headers['transfer-encoding'] !== undefined : Number(length) > DRAIN_ON_REFUSAL_BYTES);
}

/** Answers 503 in the error form of the API version `path` (the request's) names. */
function refuse(req: IncomingMessage, res: ServerResponse, path: string): void {
  const code = apiRequest(path)?.version.errorCode('SERVICE_UNAVAILABLE') ?? 'SERVICE_UNAVAILABLE';
  let body = refusals.get(code);
  if (body === undefined) {
    body = JSON.stringify({ code, message: `The server is busy: try again in ${OVERLOAD_RETRY_AFTER_S} second` });
    refusals.set(code, body);
  }
  if (!keepsConnection(req)) closeAfterAnswer({ req, res });
  // A string body goes out with the headers in one write (a Buffer would be a second one).
  res.writeHead(503, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'Retry-After': String(OVERLOAD_RETRY_AFTER_S) });
  res.end(body);
}
