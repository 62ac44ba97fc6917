// `npm run bench`: the gateway's numbers, measured against a real server process on loopback.
//  1. latency from POST /channels/:id/messages to MESSAGE_CREATE, p50/p99, at N connected clients;
//  2. idle sessions one process holds, and the server's resident memory per session.
// Sizes by environment: BENCH_CLIENTS (default 200), BENCH_MESSAGES (default 200), BENCH_IDLE (default 2000).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import WebSocket from 'ws';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 200);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 200);
const IDLE = Number(process.env.BENCH_IDLE ?? 2000);

interface Server {
  child: ChildProcess;
  origin: string;
  ca: string;
  dataDir: string;
}

async function startServer(): Promise<Server> {
  const dataDir = await mkdtemp(join(tmpdir(), 'parley-bench-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/main.ts'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', GATEWAY_HEARTBEAT_MS: '600000' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const origin = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const match = /"listening":"(https:\/\/[^"]+)"/.exec(output);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { child, origin, ca: await readFile(join(dataDir, 'tls', 'self-signed.crt'), 'utf8'), dataDir };
}

function rssOf(pid: number): Promise<number> {
  return readFile(`/proc/${pid}/status`, 'utf8').then((s) => Number(/VmRSS:\s+(\d+)/.exec(s)![1]) * 1024);
}

async function main() {
  const server = await startServer();
  const dispatcher = new Agent({ connect: { ca: server.ca, servername: 'localhost' }, connections: 64 });
  const api = async (method: string, path: string, token?: string, body?: unknown, scheme = 'Bearer') => {
    const response = await request(`${server.origin}/api/v1${path}`, {
      method: method as 'GET',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `${scheme} ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher,
    });
    const text = await response.body.text();
    if (response.statusCode >= 300) throw new Error(`${method} ${path}: ${response.statusCode} ${text}`);
    return text ? JSON.parse(text) : null;
  };

  const owner = await api('POST', '/auth/register', undefined, { username: 'benchowner', password: 'a long password' });
  const app = await api('POST', '/applications', owner.token, { name: 'benchbot' });
  const bot = await api('POST', `/applications/${app.id}/bot`, owner.token);
  const guild = await api('POST', '/guilds', owner.token, { name: 'bench' });
  const channels = await api('GET', `/guilds/${guild.id}/channels`, owner.token);
  const channelId = channels.find((c: { type: number }) => c.type === 0).id;
  const invite = await api('POST', `/channels/${channelId}/invites`, owner.token, { max_age: 0 });
  await api('POST', `/invites/${invite.code}`, bot.token, undefined, 'Bot');

  const url = `${server.origin.replace('https', 'wss')}/gateway?v=10&encoding=json`;
  const connect = (token: string, intents: number, onDispatch?: (t: string, d: any) => void) =>
    new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(url, { ca: server.ca });
      ws.on('message', (data) => {
        const payload = JSON.parse(data.toString());
        if (payload.op === 10) ws.send(JSON.stringify({ op: 2, d: { token, intents, properties: {} } }));
        else if (payload.op === 0 && payload.t === 'READY') resolve(ws);
        else if (payload.op === 0) onDispatch?.(payload.t, payload.d);
      });
      ws.once('error', reject);
    });

  // 1. Latency at CLIENTS connected sessions, all in the guild.
  const arrivals = new Map<string, number[]>();
  const sockets: WebSocket[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    sockets.push(
      await connect(bot.token, (1 << 0) | (1 << 9) | (1 << 15), (t, d) => {
        if (t === 'MESSAGE_CREATE') {
          const list = arrivals.get(d.content) ?? [];
          list.push(performance.now());
          arrivals.set(d.content, list);
        }
      }),
    );
  }
  const latencies: number[] = [];
  for (let i = 0; i < MESSAGES; i++) {
    const content = `bench ${i}`;
    const sentAt = performance.now();
    await api('POST', `/channels/${channelId}/messages`, owner.token, { content });
    const deadline = Date.now() + 10_000;
    while ((arrivals.get(content)?.length ?? 0) < CLIENTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
    for (const at of arrivals.get(content) ?? []) latencies.push(at - sentAt);
  }
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  console.log(`POST message → MESSAGE_CREATE at ${CLIENTS} clients, ${MESSAGES} messages (${latencies.length} deliveries):`);
  console.log(`  p50 ${pct(50).toFixed(1)} ms   p99 ${pct(99).toFixed(1)} ms   max ${latencies[latencies.length - 1].toFixed(1)} ms`);
  for (const ws of sockets) ws.close();
  await new Promise((r) => setTimeout(r, 500));

  // 2. Idle sessions and memory per session.
  const before = await rssOf(server.child.pid!);
  const idle: WebSocket[] = [];
  // Each account may start 1000 sessions a day: spread the idle sessions over enough accounts.
  const accounts = await Promise.all(
    Array.from({ length: Math.ceil(IDLE / 900) }, (_, i) => api('POST', '/auth/register', undefined, { username: `benchidle${i}`, password: 'a long password' })),
  );
  for (let i = 0; i < IDLE; i++) idle.push(await connect(accounts[i % accounts.length].token, 1));
  await new Promise((r) => setTimeout(r, 1000));
  const after = await rssOf(server.child.pid!);
  console.log(`Idle sessions held: ${idle.length}; server RSS ${(before / 2 ** 20).toFixed(0)} → ${(after / 2 ** 20).toFixed(0)} MiB, ${((after - before) / idle.length / 1024).toFixed(1)} KiB per session`);
  for (const ws of idle) ws.terminate();

  server.child.kill('SIGTERM');
  await dispatcher.close();
  await rm(server.dataDir, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
