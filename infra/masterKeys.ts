// The master keys that wrap the data keys in the key store (docs/privacy.md: "Rotating the master key"). They are kept
// apart from SECRET_KEY, which names claim streams and seals webhook tokens and so can never change: a master key
// can. Each wrapped value names the master key that wrapped it by a short id (an HMAC of the key under a fixed label,
// which tells nothing of the key), so the current key, retired ones and the next one of an interrupted rotation can
// all be open at once, and a rotation knows which values it still has to re-wrap.
import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../ports/config.js';
import type { SecretBox } from '../ports/secrets.js';
import { nextNonce } from './nonces.js';
import { decodeKey, keyFileText } from './secrets.js';

const WRAP_PREFIX = 'm1';
/** What SecretBox.seal wrote: data keys wrapped before master keys existed, opened with SECRET_KEY. */
const SECRET_BOX_PREFIX = 's1.';
/** What a key id is the HMAC of: another label gives other ids. */
const KEY_ID_LABEL = 'parley master key id v1';

/** DATA_DIR's master key files: the current key, the next one while a rotation is under way, and retired ones (a key a line). */
export const masterKeyFiles = (dataDir: string) => ({
  current: join(dataDir, 'master.key'),
  next: join(dataDir, 'master.key.next'),
  retired: join(dataDir, 'master.key.retired'),
});

/** A master key as MASTER_KEY, MASTER_KEYS_RETIRED or a key file gives it; `source` names it in the refusal. */
export function parseMasterKey(text: string, source: string): Buffer {
  const key = decodeKey(text.trim());
  if (key.length !== 32) throw new Error(`${source} must hold 32-byte master keys, base64 or hex encoded`);
  return key;
}

/** The id wrapped values name a master key by: 64 bits of an HMAC under the key, never the key. */
export function masterKeyId(key: Buffer): string {
  return createHmac('sha256', key).update(KEY_ID_LABEL).digest('hex').slice(0, 16);
}

/** The id of the master key that wrapped `wrapped` (null: wrapped by the SecretBox, before master keys). */
export function wrappingKeyId(wrapped: string): string | null {
  const [prefix, id] = wrapped.split('.');
  if (prefix === WRAP_PREFIX && id) return id;
  if (wrapped.startsWith(SECRET_BOX_PREFIX)) return null;
  throw new Error('Not a wrapped data key');
}

/** The lines of a key file that lists keys (absent: none). */
export function keyLines(file: string): string[] {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean)
    : [];
}

/** Wraps with the current master key (AES-256-GCM); opens with any key it holds: "m1.<key id>.<iv>.<ciphertext>.<tag>". */
export class MasterKeys {
  private constructor(
    private readonly current: Buffer,
    /** Every key that opens, the current one included, by id. */
    private readonly opening: Map<string, Buffer>,
    private readonly secretBox: Pick<SecretBox, 'open'>,
    /** A rotation left master.key.next behind: its key opens, and `replay rotate-master-key` finishes the rotation. */
    readonly rotationPending: boolean,
  ) {
    this.id = masterKeyId(current);
  }

  /** `current` wraps; it and `others` open; what the SecretBox wrapped before master keys existed opens with it. */
  static of(current: Buffer, others: Buffer[], secretBox: Pick<SecretBox, 'open'>, rotationPending = false): MasterKeys {
    return new MasterKeys(current, new Map([...others, current].map((key) => [masterKeyId(key), key])), secretBox, rotationPending);
  }

  /**
   * MASTER_KEY when set (every process of a distributed deployment needs the same one), else DATA_DIR/master.key,
   * generated once; the retired keys of MASTER_KEYS_RETIRED and DATA_DIR/master.key.retired, and the key of an
   * interrupted rotation (DATA_DIR/master.key.next), open only.
   */
  static load(settings: Pick<Config, 'dataDir' | 'masterKey' | 'masterKeysRetired'>, secretBox: Pick<SecretBox, 'open'>): MasterKeys {
    const files = masterKeyFiles(settings.dataDir);
    const current = settings.masterKey ? parseMasterKey(settings.masterKey, 'MASTER_KEY') : parseMasterKey(keyFileText(files.current), files.current);
    const retired = [
      ...settings.masterKeysRetired.map((text) => parseMasterKey(text, 'MASTER_KEYS_RETIRED')),
      ...keyLines(files.retired).map((text) => parseMasterKey(text, files.retired)),
    ];
    const next = keyLines(files.next).map((text) => parseMasterKey(text, files.next));
    return MasterKeys.of(current, [...retired, ...next], secretBox, next.length > 0);
  }

  /** The key that wraps, for the thread that wraps keys as they are made (infra/keys/keyWriter.ts). */
  get wrappingKey(): Buffer {
    return this.current;
  }

  /** The id of the key that wraps (an HMAC, computed once rather than with every key wrapped). */
  readonly id: string;

  /** Keys that wrap with `next` and open all this opens: what a rotation re-wraps with. */
  rotatedTo(next: Buffer): MasterKeys {
    return MasterKeys.of(next, [...this.opening.values()], this.secretBox);
  }

  seal(plain: string): string {
    const iv = nextNonce();
    const cipher = createCipheriv('aes-256-gcm', this.current, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [WRAP_PREFIX, this.id, ...[iv, data, cipher.getAuthTag()].map((part) => part.toString('base64url'))].join('.');
  }

  open(wrapped: string): string {
    const id = wrappingKeyId(wrapped);
    if (id === null) return this.secretBox.open(wrapped);
    const key = this.opening.get(id);
    if (!key) {
      throw new Error(
        `a data key is wrapped by master key ${id}, which is neither the current master key (${this.id}) nor a retired one: give it in MASTER_KEYS_RETIRED (or a line of DATA_DIR/master.key.retired)`,
      );
    }
    const [, , iv, data, tag] = wrapped.split('.');
    if (!iv || !data || !tag) throw new Error('Not a wrapped data key');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** Whether `wrapped` is wrapped by the current key already (a rotation leaves it as it is). */
  wraps(wrapped: string): boolean {
    return wrappingKeyId(wrapped) === this.id;
  }
}
