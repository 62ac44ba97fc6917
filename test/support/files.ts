// Byte searches of a DATA_DIR, for the tests of what erasure leaves behind.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * Every file under `dir` that holds `text` as UTF-8 bytes (paths relative to it, sorted). Searched by another process:
 * closing a file descriptor of an SQLite file in a process that has it open drops SQLite's POSIX locks on it.
 */
export async function filesHolding(dir: string, text: string): Promise<string[]> {
  const found = await promisify(execFile)('grep', ['-rlaF', '--', text, dir]).catch((error: { code?: number }) => {
    if (error.code === 1) return { stdout: '' };
    throw error;
  });
  return found.stdout
    .split('\n')
    .filter(Boolean)
    .map((path) => path.slice(dir.length + 1))
    .sort();
}
