// The service's sealing key (the SecretBox port's adapter): a credential the service
// must read back (a webhook token keys interaction signatures) is sealed with AES-256-GCM under the service's key,
// and fingerprints are HMAC-SHA-256 under a key derived from it (HKDF), so neither use can stand in for the other.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { SecretBox as SecretBoxPort } from '../ports/secrets.js';
import { createPrivateFileDurably } from './dataDir.js';

const SEAL_PREFIX = 's1';

/** What the fingerprint key is derived for: another label gives another key. */
const FINGERPRINT_LABEL = 'parley fingerprint v1';

/** Seals and opens secrets with the service's 256-bit key; sealed text is "s1.<iv>.<ciphertext>.<tag>" in base64url. */
export class SecretBox implements SecretBoxPort {
  private readonly fingerprintKey: Buffer;

  private constructor(private readonly key: Buffer) {
    this.fingerprintKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), FINGERPRINT_LABEL, 32));
  }

  static fromKey(key: Buffer): SecretBox {
    if (key.length !== 32) throw new Error('SECRET_KEY must be 32 bytes, base64 or hex encoded');
    return new SecretBox(key);
  }

  /** SECRET_KEY when set (every process of a distributed deployment needs the same one); otherwise a key file generated once. */
  static async load(configured: string | null, keyFile: string): Promise<SecretBox> {
    return SecretBox.fromKey(decodeKey(configured || keyFileText(keyFile)));
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [SEAL_PREFIX, iv, data, cipher.getAuthTag()].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  fingerprint(value: string): string {
    return createHmac('sha256', this.fingerprintKey).update(value).digest('hex');
  }

  open(sealed: string): string {
    const [prefix, iv, data, tag] = sealed.split('.');
    if (prefix !== SEAL_PREFIX || !iv || !data || !tag) throw new Error('Not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/** A key as SECRET_KEY and MASTER_KEY give it: 64 hex digits, or else base64. */
export function decodeKey(text: string): Buffer {
  return /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
}

/** The key in `file`, generated there once (0600, durable before it is used; a process that lost the race reads the winner's). */
export function keyFileText(file: string): string {
  if (!existsSync(file)) {
    try {
      createPrivateFileDurably(file, randomBytes(32).toString('base64'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return readFileSync(file, 'utf8').trim();
}
