// `npm run -s replay -- rotate-master-key`: every data key is re-wrapped with a new master key, after which the old one
// opens nothing and is dropped (docs/privacy.md: "Rotating the master key").
// Embedded (no MASTER_KEY): the replay tool holds DATA_DIR's lock, as for a rebuild. The new key is written to
// master.key.next (durably) before anything is wrapped with it; the key store re-wraps every key with it (keys.db: one
// transaction, then its WAL truncated); then master.key.next is renamed over master.key. Each step leaves a DATA_DIR
// whose every wrapped key opens: a start that finds master.key.next opens with it too, and the next run of this command
// finishes with that same key instead of making another.
// With MASTER_KEY (the distributed mode, keys in MongoDB): the operator gives the new key as MASTER_KEY and the old one
// in MASTER_KEYS_RETIRED, to this command and to every process first; the command re-wraps every key with MASTER_KEY,
// and once a second pass finds nothing left (no process still wraps with the old key) the retired key may go.
import { randomBytes } from 'node:crypto';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { basename } from 'node:path';
import type { Config } from '../ports/config.js';
import type { KeyStore, Wrapping } from '../ports/keyStore.js';
import { syncDirectory, createPrivateFileDurably } from './dataDir.js';
import { type MasterKeys, keyLines, masterKeyFiles, masterKeyId, parseMasterKey } from './masterKeys.js';

type Settings = Pick<Config, 'dataDir' | 'masterKey' | 'masterKeysRetired'>;

/** Rotates the master key of `keys` (opened with `masterKeys`), writing what it did to `out`. */
export async function rotateMasterKey(
  { config, keys, masterKeys }: { config: Settings; keys: KeyStore; masterKeys: MasterKeys },
  out: NodeJS.WritableStream,
): Promise<void> {
  if (!keys.rewrap) throw new Error('this key store cannot re-wrap its keys');
  const rewrap = (target: Wrapping) => keys.rewrap!(target);
  const files = masterKeyFiles(config.dataDir);
  const inEnvironment = config.masterKeysRetired.map((text) => masterKeyId(parseMasterKey(text, 'MASTER_KEYS_RETIRED')));

  if (config.masterKey) {
    const rewrapped = await rewrap(masterKeys);
    out.write(`re-wrapped ${rewrapped} data keys with master key ${masterKeys.id} (MASTER_KEY)\n`);
    const late = await rewrap(masterKeys);
    if (late > 0) {
      throw new Error(
        `${late} more data keys were wrapped with a retired master key while this ran (re-wrapped now): a process still runs with the old MASTER_KEY; give every process the new one, then run this again before removing the retired key`,
      );
    }
    // The key files DATA_DIR may hold from before MASTER_KEY was set (its own key, retired ones, the next one of an
    // interrupted rotation) wrap nothing any more.
    const leftovers = [files.current, files.retired, files.next].filter((file) => existsSync(file));
    for (const file of leftovers) rmSync(file);
    if (leftovers.length) {
      syncDirectory(config.dataDir);
      out.write(`dropped DATA_DIR's key files, which wrap nothing any more: ${leftovers.map((file) => basename(file)).join(', ')}\n`);
    }
  } else {
    // An interrupted run wrapped some keys with its master.key.next already: finish with that key.
    const [pending] = keyLines(files.next);
    const nextText = pending ?? randomBytes(32).toString('base64');
    if (!pending) createPrivateFileDurably(files.next, nextText);
    const next = masterKeys.rotatedTo(parseMasterKey(nextText, files.next));
    const rewrapped = await rewrap(next);
    out.write(`re-wrapped ${rewrapped} data keys with master key ${next.id}${pending ? ' (finishing an interrupted rotation)' : ''}\n`);
    // Every key is wrapped with the new one now: it takes the old one's place in one rename, and the retired keys go.
    const retired = keyLines(files.retired).map((text) => masterKeyId(parseMasterKey(text, files.retired)));
    renameSync(files.next, files.current);
    rmSync(files.retired, { force: true });
    syncDirectory(config.dataDir);
    out.write(`dropped master key ${[masterKeys.id, ...retired].join(', ')}: DATA_DIR/master.key holds ${next.id}\n`);
  }
  if (inEnvironment.length) out.write(`no data key is wrapped by ${inEnvironment.join(', ')} any more: remove it from MASTER_KEYS_RETIRED\n`);
  out.write('done\n');
}
