// An engine that cannot be reached for now (the database restarting, refusing connections, out of them; a connection
// it dropped) is an outage to wait out, not a bug: a background reader retries, a request is answered 503 with
// Retry-After. What the adapters' errors look like then: Node's codes for a connection refused, reset or timed out;
// PostgreSQL's SQLSTATEs for a lost connection (class 08), a server shutting down or starting (57P01-57P03) and too many
// clients (53300); and node-postgres's own errors for a connection it lost, which carry no code, only their message.
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const SQLSTATES = /^(08...|57P0[123]|53300)$/;
const LOST_CONNECTION =
  /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|timeout exceeded when trying to connect)/;

/** Why `error` is an engine's outage (its message), or null when it is not one. Looks through causes and aggregates. */
export function outageOf(error: unknown, depth = 0): string | null {
  if (!(error instanceof Error) || depth > 5) return null;
  const { code } = error as { code?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SQLSTATES.test(code))) return error.message || code;
  if (LOST_CONNECTION.test(error.message)) return error.message;
  for (const inner of [error.cause, ...(error instanceof AggregateError ? error.errors : [])]) {
    const why = outageOf(inner, depth + 1);
    if (why) return why;
  }
  return null;
}
