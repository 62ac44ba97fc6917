// The key writer thread (keyWriter.ts starts it, one per key store of a server): its own connection to keys.db, on
// which keys are made, wrapped and committed, and the shredder's changes applied, with their fsyncs, while the main
// thread goes on.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { MasterKeys } from '../masterKeys.js';
import { type ToKeyWriter, threadWork } from './keyWriter.js';

const { file, masterKey } = workerData as { file: string; masterKey: Uint8Array };
// It only wraps: nothing it reads was wrapped by anything else.
const master = MasterKeys.of(Buffer.from(masterKey), [], {
  open: () => {
    throw new Error('the key writer thread opens nothing');
  },
});
const db = new Database(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('secure_delete = ON');
db.pragma('busy_timeout = 5000');
const work = threadWork(db, (plain) => master.seal(plain));

parentPort!.on('message', (request: ToKeyWriter) => parentPort!.postMessage(work(request)));
