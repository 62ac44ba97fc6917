// What the benches share (bench/run.ts, bench/cluster.ts): processes started and stopped, the koa ceiling, an HTTPS
// API client, gateway sessions, autocannon loads, percentiles, and what /proc says of a process.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Agent, request } from 'undici';
import WebSocket from 'ws';

export const ROOT = join(import.meta.dirname, '..');
/** npm start's launcher: node with the server's allocator (infra/launch.sh). */
export const LAUNCHER = join(ROOT, 'infra', 'launch.sh');

export interface Process {
  child: ChildProcess;
  origin: string;
  ca: string;
  dir: string;
}

const LISTEN_TIMEOUT_MS = 120_000;

/** Spawns `node [nodeArgs] --import tsx <entry>` (Parley's entry through LAUNCHER) and waits for its {"listening":"https://…"} log line; drains its output. */
export async function spawnListening(entry: string, env: Record<string, string>, dir: string, nodeArgs: string[] = []): Promise<Omit<Process, 'ca'>> {
  // Parley as npm start runs it, through its launcher (infra/launch.sh: its allocator); a ceiling as the bare node
  // process the targets measure against, the same as in every earlier run.
  const command = entry === 'infra/main.ts' ? LAUNCHER : process.execPath;
  const child = spawn(command, [...nodeArgs, '--import', 'tsx', entry], {
    cwd: ROOT,
    env: { ...process.env, NODE: process.execPath, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const origin = await new Promise<string>((resolve, reject) => {
    let output = '';
    // An outer bound: on a 2-core machine loaded by other work a start has taken over 30 s.
    const timer = setTimeout(() => {
      // Not left running behind a bench that gives up on it.
      child.kill('SIGKILL');
      reject(new Error(`${entry} did not listen within ${LISTEN_TIMEOUT_MS / 1000} s: ${output}`));
    }, LISTEN_TIMEOUT_MS);
    // Keep reading for as long as it runs: a full pipe would block its logging.
    child.stdout!.on('data', (chunk) => {
      if (output.length < 1 << 16) output += chunk;
      const match = /"listening":"(https:\/\/[^"]+)"/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code} before listening: ${output}`)));
  });
  return { child, origin, dir };
}

/** The embedded default: `infra/main.ts` on a temporary DATA_DIR, Node given `nodeArgs` (a profiler's, say). */
export async function startParley(nodeArgs: string[] = []): Promise<Process> {
  const dir = await mkdtemp(join(tmpdir(), 'parley-bench-'));
  const started = await spawnListening(
    'infra/main.ts',
    { DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', GATEWAY_HEARTBEAT_MS: '600000' },
    dir,
    nodeArgs,
  );
  return { ...started, ca: await readFile(join(dir, 'tls', 'self-signed.crt'), 'utf8') };
}

/** The ceiling, bench/ceiling.ts, serving `page` as its message page. */
export async function startCeiling(page: Buffer): Promise<Process> {
  const dir = await mkdtemp(join(tmpdir(), 'parley-bench-ceiling-'));
  await writeFile(join(dir, 'page.json'), page);
  const started = await spawnListening('bench/ceiling.ts', { CEILING_DIR: dir, CEILING_PAGE: join(dir, 'page.json') }, dir);
  return { ...started, ca: await readFile(join(dir, 'tls', 'self-signed.crt'), 'utf8') };
}

/** Stops the process; its DATA_DIR stays when `keep` is set. */
export async function stop(server: Process, keep = false): Promise<void> {
  if (server.child.exitCode === null) {
    const exited = new Promise((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
  }
  if (!keep) await rm(server.dir, { recursive: true, force: true });
}

export function rssOf(pid: number): Promise<number> {
  return readFile(`/proc/${pid}/status`, 'utf8').then((s) => Number(/VmRSS:\s+(\d+)/.exec(s)![1]) * 1024);
}

/** The process's CPU time so far (user + system, /proc/<pid>/stat's utime and stime), in seconds; null once it is gone. */
export async function cpuSecondsOf(pid: number): Promise<number | null> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (stat === null) return null;
  // The fields after the command name, which may hold spaces and parentheses: state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}
/** USER_HZ: 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS = 100;

/** An HTTPS client of the API at `origin` (…/api/v1): text or parsed JSON, any status ≥ 300 thrown. */
export function apiClient(origin: string, ca: string) {
  const dispatcher = new Agent({ connect: { ca, servername: 'localhost' }, connections: 64 });
  const api = async (method: string, path: string, token?: string, body?: unknown, scheme = 'Bearer') => {
    const response = await request(`${origin}/api/v1${path}`, {
      method: method as 'GET',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `${scheme} ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher,
    });
    const text = await response.body.text();
    if (response.statusCode >= 300) throw new Error(`${method} ${path}: ${response.statusCode} ${text}`);
    return text;
  };
  const json = async (method: string, path: string, token?: string, body?: unknown, scheme = 'Bearer') => {
    const text = await api(method, path, token, body, scheme);
    return text ? JSON.parse(text) : null;
  };
  return { api, json, close: () => dispatcher.close() };
}

/**
 * The benches' guild, made through the API: its owner, its first text channel, an invite, `senders` members joined
 * through it, and bots enough for `sessions` gateway sessions (SESSIONS_PER_LANE each). `suffix` keeps the names of a
 * second guild on the same server unique.
 */
export async function benchGuild(json: ReturnType<typeof apiClient>['json'], options: { senders: number; sessions?: number; suffix?: string }) {
  const suffix = options.suffix ?? '';
  const owner = await json('POST', '/auth/register', undefined, { username: `benchowner${suffix}`, password: 'a long password' });
  const guild = await json('POST', '/guilds', owner.token, { name: 'bench' });
  const channels = await json('GET', `/guilds/${guild.id}/channels`, owner.token);
  const channelId: string = channels.find((c: { type: number }) => c.type === 0).id;
  const invite = await json('POST', `/channels/${channelId}/invites`, owner.token, { max_age: 0 });
  const senders: string[] = [];
  for (let i = 0; i < options.senders; i++) {
    const sender = await json('POST', '/auth/register', undefined, { username: `benchsender${i}${suffix}`, password: 'a long password' });
    await json('POST', `/invites/${invite.code}`, sender.token);
    senders.push(sender.token);
  }
  const bots: string[] = [];
  for (let i = 0; i < Math.ceil((options.sessions ?? 0) / SESSIONS_PER_LANE); i++) {
    const app = await json('POST', '/applications', owner.token, { name: `benchbot${i}` });
    const bot = await json('POST', `/applications/${app.id}/bot`, owner.token);
    await json('POST', `/invites/${invite.code}`, bot.token, undefined, 'Bot');
    bots.push(bot.token);
  }
  return { ownerToken: owner.token as string, guildId: guild.id as string, channelId, inviteCode: invite.code as string, senders, bots };
}

/** A gateway session at `url` (wss://…/gateway?v=10&encoding=json), resolved at its READY; dispatches after it to `onDispatch`. */
export function gatewaySession(url: string, token: string, intents: number, onDispatch?: (t: string, d: any) => void): Promise<WebSocket> {
  return new Promise<WebSocket>((resolve, reject) => {
    // Not verifying the bench's own certificate on loopback (as autocannon does not): the check costs the bench's
    // process about a fifth of each connect, and with 10,000 sessions on two cores the bench is then the bottleneck.
    const ws = new WebSocket(url, { rejectUnauthorized: false });
    ws.on('message', (data) => {
      const payload = JSON.parse(data.toString());
      if (payload.op === 10) ws.send(JSON.stringify({ op: 2, d: { token, intents, properties: {} } }));
      else if (payload.op === 0 && payload.t === 'READY') resolve(ws);
      else if (payload.op === 0) onDispatch?.(payload.t, payload.d);
    });
    ws.once('error', reject);
  });
}

/** Sequential sessions for each token (an account may start one session at a time), the tokens side by side. */
export async function connectAll<T>(tokens: string[], total: number, connectOne: (token: string, index: number) => Promise<T>): Promise<T[]> {
  const lanes = tokens.map(async (token, lane) => {
    const mine: T[] = [];
    for (let i = lane; i < total; i += tokens.length) mine.push(await connectOne(token, i));
    return mine;
  });
  return (await Promise.all(lanes)).flat();
}

/** A size read from the environment, else the full run's or the quick run's (`--quick`) default. */
export const benchSize = (quick: boolean) => (name: string, normal: number, small: number) => Number(process.env[name] ?? (quick ? small : normal));

/** Every bench's loads: BENCH_CONNECTIONS connections (64) for BENCH_DURATION s (8) after BENCH_WARMUP s (1). */
export function loadSizes(size: ReturnType<typeof benchSize>) {
  return { connections: size('BENCH_CONNECTIONS', 64, 8), duration: size('BENCH_DURATION', 8, 2), warmup: size('BENCH_WARMUP', 1, 1) };
}

/**
 * Sessions connected per account: an account starts one session at a time (max_concurrency 1), so the accounts'
 * lanes connect side by side and each waits only for its own session starts to be committed.
 */
export const SESSIONS_PER_LANE = 250;

export interface Load {
  connections: number;
  durationS: number;
  reqPerS: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  total: number;
  non2xx: number;
  /** Answers by status code, e.g. {"200": 1200, "503": 40}. */
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  bytesPerResponse: number;
}

export interface LoadOptions {
  method?: 'GET' | 'POST';
  body?: string;
  /** May vary per request (e.g. several senders' tokens). */
  headers?: () => Record<string, string>;
}

/** `load(server, path, options)`: a warm-up of `warmup` s, then the measured autocannon run of `duration` s. */
export function loader(sizes: { connections: number; duration: number; warmup: number }) {
  return async function load(server: Pick<Process, 'origin' | 'ca'>, path: string, options: LoadOptions): Promise<Load> {
    const run = (duration: number) =>
      autocannon({
        url: `${server.origin}${path}`,
        connections: sizes.connections,
        duration,
        method: options.method ?? 'GET',
        // autocannon connects with rejectUnauthorized: false whatever it is given; the CA and name are given all the same.
        tlsOptions: { ca: server.ca },
        servername: 'localhost',
        requests: [
          {
            method: options.method ?? 'GET',
            body: options.body,
            setupRequest: (req) => ({
              ...req,
              headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers?.() },
            }),
          },
        ],
      });
    if (sizes.warmup > 0) await run(sizes.warmup);
    const result = await run(sizes.duration);
    return {
      connections: sizes.connections,
      durationS: result.duration,
      reqPerS: result.requests.total / result.duration,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      maxMs: result.latency.max,
      total: result.requests.total,
      non2xx: result.non2xx,
      statuses: Object.fromEntries(Object.entries(result.statusCodeStats as Record<string, { count: number }>).map(([code, { count }]) => [code, count])),
      errors: result.errors,
      timeouts: result.timeouts,
      bytesPerResponse: result.requests.total ? Math.round(result.throughput.total / result.requests.total) : 0,
    };
  };
}

export function percentiles(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
  return { count: sorted.length, p50Ms: at(50), p99Ms: at(99), maxMs: sorted[sorted.length - 1] ?? NaN };
}

/** Rows as a markdown table, each column as wide as its widest cell. */
export function markdownTable(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  const line = (row: string[]) => `| ${row.map((cell, c) => cell.padEnd(widths[c])).join(' | ')} |`;
  return [line(rows[0]), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...rows.slice(1).map(line)].join('\n');
}
