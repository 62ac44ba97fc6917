// Interaction delivery signatures (scheme v1). This file is also the reference implementation bot authors copy into
// their receivers, which is why it depends on nothing but node:crypto.
//
// The service sends X-Service-Timestamp (Unix seconds) and X-Service-Signature = "v1=" + lowercase hex
// HMAC-SHA256(key = webhook token, text = "v1:" + timestamp + ":" + raw request body). A receiver must verify against
// the body exactly as received, before any JSON parsing, and reject stale timestamps so a captured delivery cannot be
// replayed later.
import { createHmac, timingSafeEqual } from 'node:crypto';

const DEFAULT_TOLERANCE_SECONDS = 300;

/** Returns the X-Service-Signature header value, "v1=<hex>". */
export function signInteraction(token: string, timestamp: string, rawBody: string): string {
  return `v1=${createHmac('sha256', token).update(`v1:${timestamp}:${rawBody}`).digest('hex')}`;
}

/**
 * True when the headers carry a valid v1 signature of `rawBody` with a timestamp within `toleranceSeconds` of now (in
 * either direction, to absorb clock skew). Missing or malformed headers yield false; this never throws.
 */
export function verifyInteraction(
  token: string,
  request: { timestamp: string | undefined; signature: string | undefined; rawBody: string },
  options: { toleranceSeconds?: number; nowSeconds?: number } = {},
): boolean {
  const { timestamp, signature, rawBody } = request;
  if (typeof timestamp !== 'string' || typeof signature !== 'string' || typeof rawBody !== 'string') return false;
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  // Written as "not within" so that a NaN tolerance or clock rejects instead of accepting every age.
  if (!(Math.abs(now - Number(timestamp)) <= (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS))) return false;
  const expected = Buffer.from(signInteraction(token, timestamp, rawBody), 'utf8');
  const actual = Buffer.from(signature, 'utf8');
  // timingSafeEqual throws on unequal lengths; the length of a valid signature is public, so checking it first leaks nothing.
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
