// A Kafka broker of the test's own (deploy/kafka/broker.sh, as `npm run kafka` starts one, on free ports with its data
// in a fresh folder), for the tests that stop and start the broker: the machine's broker is shared by the test files
// running beside them, and must never be stopped.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports.js';

const brokerScript = fileURLToPath(new URL('../../deploy/kafka/broker.sh', import.meta.url));

/**
 * A broker of the test's own (deploy/kafka/broker.sh on free ports, with its data in a fresh folder), started: it can
 * be stopped and started again without touching the shared one. `settings`: more of the script's (KAFKA_HEAP).
 */
export async function ownBroker(settings: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-kafka-broker-'));
  const env = { ...process.env, ...settings, KAFKA_DATA_DIR: dataDir, KAFKA_PORT: String(await freePort()), KAFKA_CONTROLLER_PORT: String(await freePort()) };
  const run = (...args: string[]) => script(args, env);
  // A test process ended before `remove` (a crash, a run cut short) must not leave the broker running.
  const orphaned = () => {
    try {
      process.kill(Number(readFileSync(join(dataDir, 'broker.pid'), 'utf8')));
    } catch {
      // Not running.
    }
  };
  process.once('exit', orphaned);
  await run('start', '--daemon');
  return {
    brokers: [`127.0.0.1:${env.KAFKA_PORT}`],
    start: () => run('start', '--daemon'),
    stop: () => run('stop'),
    async remove() {
      process.off('exit', orphaned);
      await run('stop');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs the broker script to its exit (it returns once the broker serves, or has stopped); fails with what it said. */
function script(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    // The script bounds its own waits; this bound is for a script that hangs.
    const child = spawn('bash', [brokerScript, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000 });
    let said = '';
    child.stderr.on('data', (chunk: Buffer) => (said += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`broker.sh ${args.join(' ')} exited with ${code ?? signal}:\n${said}`));
    });
  });
}
