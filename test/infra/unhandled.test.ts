// What a process does with a promise nobody awaited that fails: a real rejection left unhandled in a child process
// running the handler as main.ts installs it.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** Runs a process that installs the handler for `role`, then rejects a promise nobody waits for. */
function rejectIn(role: string): Promise<{ code: number | null; output: string }> {
  const script = `
    import { onUnhandledRejection } from './infra/unhandled.ts';
    const log = { error: (fields, message) => console.log(JSON.stringify({ message, err: String(fields.err) })) };
    const stop = (signal, code) => { console.log(JSON.stringify({ stopped: signal, code })); process.exit(code); };
    process.on('unhandledRejection', onUnhandledRejection(log, ${JSON.stringify(role)}, stop));
    void Promise.reject(new Error('the read store went away'));
    setTimeout(() => { console.log(JSON.stringify({ stillServing: true })); process.exit(0); }, 300);
  `;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('a rejection nobody waited for', () => {
  it('is logged, and the single process keeps serving', async () => {
    const { code, output } = await rejectIn('all');
    expect(code).toBe(0);
    expect(
      output
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([{ message: 'a failure nobody waited for', err: 'Error: the read store went away' }, { stillServing: true }]);
  });

  it('is logged, and a distributed role ends through the graceful stop, for its supervisor to restart it', async () => {
    const { code, output } = await rejectIn('gateway');
    expect(code).toBe(1);
    expect(
      output
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([
      { message: 'a failure nobody waited for', err: 'Error: the read store went away' },
      { stopped: 'unhandledRejection', code: 1 },
    ]);
  });
});
