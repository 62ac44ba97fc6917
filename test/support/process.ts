// `npm start`'s process (its launcher, then its entry point) as a child process on a DATA_DIR, on loopback, for tests
// of what only a real process shows (SIGKILL, SIGTERM, restarts). Ready once it logs where it listens; stopped with it
// by stopServerProcesses().
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Agent, request } from 'undici';

/** An outer bound only: under load, tsx's first start of the server can take well over the usual two seconds. */
const START_TIMEOUT_MS = 90_000;
/** npm start's launcher: node with the server's allocator (infra/launch.sh). */
export const LAUNCHER = join(import.meta.dirname, '../../infra/launch.sh');
const running = new Set<ChildProcess>();
const agents: Agent[] = [];

export interface ServerProcess {
  child: ChildProcess;
  origin: string;
  /** The server's self-signed certificate, for WebSocket clients. */
  cert: string;
  /** An HTTPS client that trusts it. */
  dispatcher: Agent;
  /** Everything the process wrote so far (its log lines). */
  output(): string;
}

export async function startServerProcess(dataDir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  // As `npm start` runs it: through the launcher that gives it its allocator (infra/launch.sh).
  const child = spawn(LAUNCHER, ['--import', 'tsx', 'infra/main.ts'], {
    cwd: join(import.meta.dirname, '../..'),
    env: { PATH: process.env.PATH, NODE: process.execPath, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  // Read its output for as long as it runs: a full pipe would block its logging.
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not listen within ${START_TIMEOUT_MS} ms: ${output}`)), START_TIMEOUT_MS);
    const listening = () => {
      const match = /"listening":"(https:\/\/127\.0\.0\.1:\d+)"/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off('data', listening);
      resolve(match[1]);
    };
    child.stdout!.on('data', listening);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code ?? signal}) before listening: ${output}`));
    });
  });
  const cert = readFileSync(join(dataDir, 'tls', 'self-signed.crt'), 'utf8');
  const dispatcher = new Agent({ connect: { ca: cert, servername: 'localhost' }, headersTimeout: 60_000, bodyTimeout: 60_000 });
  agents.push(dispatcher);
  return { child, origin, cert, dispatcher, output: () => output };
}

/** SIGKILLs the process and waits for it to be gone. */
export async function killServerProcess(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

/** For afterAll: kills whatever is still running and closes the clients. */
export async function stopServerProcesses(): Promise<void> {
  await Promise.all([...running].map((child) => killServerProcess(child)));
  await Promise.all(agents.splice(0).map((agent) => agent.destroy()));
}

/** An API call to the process with a session token (or none); the answer's status and parsed body. */
export async function callProcess(
  server: Pick<ServerProcess, 'origin' | 'dispatcher'>,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await request(`${server.origin}/api/v1${path}`, {
    method: method as 'GET',
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
    dispatcher: server.dispatcher,
  });
  const text = await response.body.text();
  return { status: response.statusCode, body: text ? JSON.parse(text) : null };
}

/** callProcess, throwing unless it succeeded; the parsed body. */
export async function okFromProcess(
  server: Pick<ServerProcess, 'origin' | 'dispatcher'>,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
): Promise<any> {
  const response = await callProcess(server, method, path, token, body);
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** Runs the replay tool (`npm run replay -- …`) as its own process on `dataDir`, as an operator would. */
export function replayIn(dataDir: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return replayWith({}, dataDir, ...args);
}

/** replayIn, with more of the environment set (MASTER_KEY…). */
export function replayWith(env: Record<string, string>, dataDir: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/replay.ts', ...args], {
    cwd: join(import.meta.dirname, '../..'),
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

/**
 * The files under `dir` that hold `text` as UTF-8 bytes, relative to it. Searched by another process: closing a file
 * descriptor of an SQLite file in a process that has it open drops SQLite's POSIX locks on it.
 */
export async function filesHolding(text: string, dir: string): Promise<string[]> {
  const found = await promisify(execFile)('grep', ['-rlaF', '--', text, dir]).catch((error: { code?: number; stdout?: string }) => {
    if (error.code === 1) return { stdout: '' };
    throw error;
  });
  return found.stdout
    .split('\n')
    .filter(Boolean)
    .map((path) => path.slice(dir.length + 1))
    .sort();
}
