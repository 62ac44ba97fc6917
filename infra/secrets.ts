// The service's sealing key (the SecretBox port's adapter): a credential the service
// must read back (a webhook token keys interaction signatures) is sealed with AES-256-GCM under the service's key,
// and fingerprints are HMAC-SHA-256 under a key derived from it (HKDF), so neither use can stand in for the other.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SecretBox as SecretBoxPort } from '../ports/secrets.js';
import { PRIVATE_DIR, PRIVATE_FILE } from './dataDir.js';

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
    if (configured) return SecretBox.fromKey(decodeKey(configured));
    if (existsSync(keyFile)) return SecretBox.fromKey(decodeKey((await readFile(keyFile, 'utf8')).trim()));
    const key = randomBytes(32);
    await mkdir(dirname(keyFile), { recursive: true, mode: PRIVATE_DIR });
    await writeFile(keyFile, key.toString('base64'), { mode: PRIVATE_FILE, flag: 'wx' }).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    return SecretBox.fromKey(decodeKey((await readFile(keyFile, 'utf8')).trim()));
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

function decodeKey(text: string): Buffer {
  return /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
}
