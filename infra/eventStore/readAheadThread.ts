// A rebuild's read-ahead thread (readAhead.ts starts one per subscription): on connections of its own to events.db
// and keys.db, it reads the log a page at a time, decrypts each event's sealed fields, and hands the main thread the
// rows with what they decrypted to. Reading the rows and decrypting (AES-GCM, the data keys unwrapped) run on the
// other core, a few pages ahead; the main thread parses, puts the values in place, and projects. (A page sent as one
// JSON text, parsed once, cost the two threads 1.4 times the CPU.)
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { type Envelope, SEALED } from '../../ports/keyStore.js';
import { loadKeys } from '../keys/sqlite.js';
import { MasterKeys } from '../masterKeys.js';
import { SecretBox } from '../secrets.js';
import type { FromReadAhead, ReadAheadRow, ReadAheadSource, ToReadAhead } from './readAhead.js';
import { decryptText, openOnce } from './sealing.js';
import { CATCH_UP_PAGE, forwardsFrom } from './sqlite.js';

/** Keys kept unwrapped: a profile's key serves every message its owner sent; a message's own is used once. */
const CACHED_KEYS = 10_000;

const source = workerData as ReadAheadSource;
const secrets = await SecretBox.load(source.secretKey, join(source.dataDir, 'secret.key'));
const masterKeys = MasterKeys.load(source, secrets);
const log = new Database(join(source.dataDir, 'events.db'), { readonly: true, fileMustExist: true });
const keysDb = new Database(join(source.dataDir, 'keys.db'), { readonly: true, fileMustExist: true });
const page = forwardsFrom(log);
const cache = new LRUCache<string, Buffer>({ max: CACHED_KEYS });
const profiles = new Map<string, string>();

let generation = 0;
/** The last position handed on (0: none yet), and how many more pages the main thread has room for. */
let after = 0;
let credit = 0;

function read(): void {
  while (credit > 0) {
    const rows = opened(page.all(after + 1, CATCH_UP_PAGE));
    parentPort!.postMessage({ generation, rows } satisfies FromReadAhead);
    // Caught up: the main thread asks again from where it is when it wants more.
    credit = rows.length === 0 ? 0 : credit - 1;
    if (rows.length > 0) after = rows[rows.length - 1][0];
  }
}

/**
 * The rows, a sealed one with its data's text cut short of its envelopes and followed by their paths (as JSON text,
 * which the main thread parses once for all the events sealed alike) and what each decrypted to (null: its key is gone).
 */
function opened(rows: ReadAheadRow[]): ReadAheadRow[] {
  const sealed: { row: ReadAheadRow; envelopes: Envelope[] }[] = [];
  const needed = new Set<string>();
  for (const row of rows) {
    const cut = cutEnvelopes(row[5]);
    if (!cut) continue;
    row[5] = cut.data;
    for (const envelope of cut.envelopes) needed.add(envelope.k);
    sealed.push({ row, envelopes: cut.envelopes });
  }
  const keys = loadKeys(keysDb, [...needed], cache, masterKeys);
  for (const { row, envelopes } of sealed) {
    row[8] = JSON.stringify(envelopes.map((envelope) => envelope.p));
    row[9] = envelopes.map((envelope) => {
      const key = keys.get(envelope.k);
      // A profile's text is decrypted once for every message that repeats it, as the sealing store opens it.
      return key ? openOnce(key, envelope, profiles, decryptText) : null;
    });
  }
  return rows;
}

const MEMBER = `"${SEALED}":`;

/**
 * Sealed data's text without its envelopes, and the envelopes, or null for data without them. Sealing adds the
 * envelopes last (SealingEventStore.sealNow), so JSON.stringify wrote them last: they are cut off the end; data where
 * they are not last is parsed whole.
 */
function cutEnvelopes(text: string): { data: string; envelopes: Envelope[] } | null {
  const at = text.lastIndexOf(MEMBER);
  if (at < 0) return null;
  const before = text[at - 1];
  if (text.endsWith(']}') && (before === ',' || before === '{')) {
    try {
      const envelopes = JSON.parse(text.slice(at + MEMBER.length, -1)) as unknown;
      if (Array.isArray(envelopes)) return { data: `${text.slice(0, before === ',' ? at - 1 : at)}}`, envelopes: envelopes as Envelope[] };
    } catch {
      // Not the envelopes' array after all: parsed whole below.
    }
  }
  const { [SEALED]: envelopes, ...data } = JSON.parse(text) as Record<string, unknown>;
  return Array.isArray(envelopes) ? { data: JSON.stringify(data), envelopes: envelopes as Envelope[] } : null;
}

parentPort!.on('message', (message: ToReadAhead) => {
  if ('after' in message) {
    generation = message.generation;
    after = message.after;
    credit = message.pages;
  } else if (message.generation === generation) {
    credit += message.pages;
  }
  read();
});
