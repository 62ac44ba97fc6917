// Credentials never enter the log or the read models in clear: passwords as scrypt hashes (slow, salted), tokens
// and client secrets as SHA-256 (they are 256-bit random values, so a fast hash is enough). These are pure functions
// the core owns; the key that seals secrets the service must read back is an adapter's (infra/secrets.ts).
import { createPrivateKey, generateKeyPairSync, hash, randomBytes, scrypt, sign as cryptoSign, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;
const PARAMS = { N: 16384, r: 8, p: 1 };
const KEY_LENGTH = 32;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, KEY_LENGTH, { ...PARAMS, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt') return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 64 * 1024 * 1024,
  });
  return timingSafeEqual(actual, expected);
}

export function sha256(value: string): string {
  // The one-shot form: every authenticated request hashes its token, and a Hash object costs several times as much.
  return hash('sha256', value, 'hex');
}

/** Whether `secret` hashes to `hash` (a SHA-256 in hex), compared in constant time. */
export function matchesHash(secret: string, hash: string): boolean {
  const actual = Buffer.from(sha256(secret), 'hex');
  const expected = Buffer.from(hash, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A bearer credential in the shape clients of the widely used API expect: base64(user id) "." random. */
export function newToken(userId: string): string {
  return `${Buffer.from(userId).toString('base64url')}.${randomBytes(32).toString('base64url')}`;
}

/** The id a newToken carries before its dot (null for anything else): it names the stream that holds the token's hash. */
export function tokenSubject(token: string): string | null {
  const dot = token.indexOf('.');
  const subject = dot > 0 && dot <= 40 ? Buffer.from(token.slice(0, dot), 'base64url').toString() : '';
  return /^[0-9]{1,20}$/.test(subject) ? subject : null;
}

export function newSecret(): string {
  return randomBytes(24).toString('base64url');
}

/** Seals and opens secrets the service must read back (a webhook token keys interaction signatures). */
export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
  /**
   * A keyed hash of `value` (hex): the same for the same value under the same service key, and, unlike a plain hash,
   * not found again by hashing guesses without that key. It names streams after personal data (commands/streams.ts).
   */
  fingerprint(value: string): string;
}

/**
 * An application's Ed25519 key pair for signing its interaction deliveries, as the widely used API gives each
 * application: the public key as its raw 32 bytes in hex (the `verify_key` bots check with), the private key as PKCS#8
 * PEM, to be sealed before it is stored.
 */
export function newSigningKeyPair(): { verifyKey: string; privateKeyPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  // The SPKI encoding of an Ed25519 key ends with the raw 32-byte key.
  const verifyKey = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('hex');
  return { verifyKey, privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString() };
}

/** The Ed25519 signature (hex) of timestamp + body, as X-Signature-Ed25519 carries it. */
export function signWithKey(privateKeyPem: string, timestamp: string, body: string): string {
  return cryptoSign(null, Buffer.from(timestamp + body), createPrivateKey(privateKeyPem)).toString('hex');
}
