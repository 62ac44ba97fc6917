// The operator's endpoints at the origin's root, answered before authentication and body parsing: GET /healthz (the
// process is up), GET /readyz (it serves current data: 503 while starting or while the projections are far behind the
// log) and GET /metrics (Prometheus text, behind METRICS_TOKEN: it names routes and volumes, not for everyone).
import { timingSafeEqual } from 'node:crypto';
import type { Context, Next } from 'koa';
import { outageOf } from '../ports/outages.js';

/** Projections further behind the log than this many events: the reads this process answers are too stale. */
export const READY_MAX_LAG = 1000;
/** How long /readyz waits for the engines to answer before it says they do not (the health check itself waits 4 s). */
const READY_ENGINES_MS = 2000;

export interface Operations {
  /** Whether the server is listening (false while starting and once closing). */
  ready(): boolean;
  /** Events the furthest-behind projection has yet to apply. */
  lag(): Promise<number>;
  /** The figures in Prometheus's text format. */
  metrics(): Promise<string>;
  /** METRICS_TOKEN; null: /metrics is off. */
  metricsToken: string | null;
}

function withinDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the engines did not answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

const sameSecret = (given: string, expected: string) => given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));

const OPERATOR_PATHS = ['/healthz', '/readyz', '/metrics'] as const;

/** A request for an operator's endpoint: answered before admission, and never refused by it. */
export const isOperatorRequest = (method: string | undefined, path: string) =>
  (method === 'GET' || method === 'HEAD') && (OPERATOR_PATHS as readonly string[]).includes(path);

export function operations(ops: Operations) {
  const endpoints: Record<(typeof OPERATOR_PATHS)[number], (ctx: Context) => Promise<void> | void> = {
    '/healthz'(ctx) {
      ctx.status = ops.ready() ? 200 : 503;
      ctx.body = { status: ops.ready() ? 'ok' : 'starting' };
    },
    async '/readyz'(ctx) {
      // The lag is read from the engines (the log, the checkpoints): one that fails or does not answer in time is
      // the reason this process is not ready, said as such, not a 500 or a health check that hangs.
      const lag = await withinDeadline(ops.lag(), READY_ENGINES_MS).catch((error: unknown) => error as Error);
      if (lag instanceof Error) {
        ctx.status = 503;
        ctx.body = { status: 'engine unreachable', reason: outageOf(lag) ?? lag.message };
        return;
      }
      const ready = ops.ready() && lag <= READY_MAX_LAG;
      ctx.status = ready ? 200 : 503;
      ctx.body = { status: ready ? 'ready' : ops.ready() ? 'catching up' : 'starting', projection_lag: lag };
    },
    async '/metrics'(ctx) {
      if (!ops.metricsToken) {
        ctx.status = 404;
        ctx.body = { code: 'METRICS_DISABLED', message: 'Set METRICS_TOKEN to serve /metrics' };
        return;
      }
      const token = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1];
      if (!token || !sameSecret(token, ops.metricsToken)) {
        ctx.status = 401;
        ctx.body = { code: 'UNAUTHORIZED', message: '401: Unauthorized' };
        return;
      }
      ctx.type = 'text/plain; version=0.0.4';
      ctx.body = await ops.metrics();
    },
  };
  return async function operatorEndpoints(ctx: Context, next: Next) {
    if (!isOperatorRequest(ctx.method, ctx.path)) return next();
    const answer = endpoints[ctx.path as (typeof OPERATOR_PATHS)[number]];
    ctx.state.route = ctx.path;
    await answer(ctx);
  };
}
