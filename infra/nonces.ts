// AES-GCM nonces drawn from the random source in bulk: one call to it per 1024 nonces, where a call per encryption
// was a measurable share of a send's sealing and of a key's wrapping. Random 96-bit nonces, as NIST SP 800-38D allows.
import { randomBytes } from 'node:crypto';

let nonces = Buffer.alloc(0);

export function nextNonce(): Buffer {
  if (nonces.length < 12) nonces = randomBytes(12 * 1024);
  const nonce = nonces.subarray(0, 12);
  nonces = nonces.subarray(12);
  return nonce;
}
