// `npm run bench`: Parley measured against its own HTTP stack, side by side, in one run, on loopback.
//  1. the ceiling: a bare koa + @koa/router HTTPS JSON POST echo (bench/ceiling.ts, its own process, same TLS setup);
//  2. durable message sends, POST /channels/:id/messages, against a real server process (`node --import tsx
//     infra/main.ts` on a temporary DATA_DIR), by users registered and joined to a guild through an invite; then the
//     same sends once the guild has 6 auto-moderation keyword rules of 1,000 keywords each and 10 regexes that the
//     message does not match, as a ratio to the sends without rules;
//  3. message page reads, GET /channels/:id/messages?limit=50, and the same bytes served by the koa ceiling;
//  4. idle sessions and the server's resident memory per session (measured first, before any load has grown the
//     heap), and latency from POST /channels/:id/messages to MESSAGE_CREATE, p50/p99, at N connected sessions (with
//     the POST's own round trip, one at a time);
//  5. the server's log grown to BENCH_LOG_EVENTS events (bench/log.ts), every read model rebuilt from it (events/s),
//     the same log read alone, as a server's followers read it, and a cold start on it to the first 200 from
//     /healthz;
//     and the log's last BENCH_CONSUME_EVENTS events (default 100000) through a distributed gateway node's consumer
//     (bench/log.ts consume: the bus port, the gateway projector, read-your-writes on the read store's checkpoints);
//  6. erasure (run after the page reads, before the gateway's messages): BENCH_ERASE (default 5000) of the sent
//     messages deleted, BENCH_CONNECTIONS at a time, each answer after the message's key is destroyed: messages
//     erased per second;
//  7. overload, after the erasure: the same durable sends from BENCH_OVERLOAD_CONNECTIONS connections (default 1000)
//     for BENCH_OVERLOAD_DURATION seconds (default 20), past the server's admission limit (MAX_REQUESTS_IN_FLIGHT at
//     its default): client timeouts (10 s, autocannon's), 503s, the p99 of the admitted (2xx) sends alone, and RSS;
//     and below the table each timeout by where its connection was (connecting, in the TLS handshake, on its first
//     request or a later one), the handshakes' times, the 503s' latency, the messages stored against the sends
//     admitted, the kernel's listen-queue overflows, and the CPU the server and this process (autocannon) took.
// Load is autocannon's, from this process, at BENCH_CONNECTIONS concurrent connections (default 64) for
// BENCH_DURATION seconds (default 8) after a warm-up of BENCH_WARMUP seconds (default 1). Each throughput is also
// printed as a ratio to its ceiling measured in this run. Prints a markdown table and writes bench/results/latest.json.
// Other sizes by environment: BENCH_CLIENTS (default 1000), BENCH_MESSAGES (default 200), BENCH_IDLE (default 10000),
// BENCH_LOG_EVENTS (default 1000000); BENCH_RESULTS names another JSON file.
// Each phase's start is printed on stderr with the seconds elapsed, and its length kept in the JSON (phasesS).
// `npm run bench -- --only overload`: the setup and the overload alone (its row, its details, its JSON).
// `npm run bench -- --pages`: the page reads alone, against their ceiling, on a server seeded for them (pagesAlone).
// `npm run bench -- --quick`: a smoke run for CI (8 connections, 2 s loads, 20 sessions, 20 messages, 100 idle, a
// log of 20000 events, 2000 of them through the consumer, an overload of 50 connections for 2 s;
// test/bench/quick.test.ts runs it).
// Nothing here asserts a figure: it only fails if a step cannot run.
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import autocannon from 'autocannon';
import { Agent, request } from 'undici';
import type WebSocket from 'ws';
import {
  type Load,
  type Process,
  ROOT,
  apiClient,
  benchGuild,
  connectAll,
  gatewaySession,
  loader,
  markdownTable,
  percentiles,
  rssOf,
  spawnListening,
  startCeiling,
  startParley,
  stop,
  benchSize,
  cpuSecondsOf,
  loadSizes,
  SESSIONS_PER_LANE,
} from './harness.js';
import { type EventStreamCost, measureEventStream } from './eventStream.js';

const QUICK = process.argv.includes('--quick');
/** `--only overload`: the setup and that phase alone, its row printed and its figures in the JSON. */
const ONLY = onlyPhases(process.argv);
const size = benchSize(QUICK);
const { connections: CONNECTIONS, duration: DURATION, warmup: WARMUP } = loadSizes(size);
const CLIENTS = size('BENCH_CLIENTS', 1000, 20);
const MESSAGES = size('BENCH_MESSAGES', 200, 20);
const IDLE = size('BENCH_IDLE', 10_000, 100);
const LOG_EVENTS = size('BENCH_LOG_EVENTS', 1_000_000, 20_000);
const ERASE = size('BENCH_ERASE', 5000, 100);
const CONSUME = size('BENCH_CONSUME_EVENTS', 100_000, 2000);
const OVERLOAD_CONNECTIONS = size('BENCH_OVERLOAD_CONNECTIONS', 1000, 50);
const OVERLOAD_DURATION = size('BENCH_OVERLOAD_DURATION', 20, 2);
const SENDERS = 4;
const load = loader({ connections: CONNECTIONS, duration: DURATION, warmup: WARMUP });
/** The moderated sends' guild: the widely used API's most keyword rules, each with its most keywords, and 10 regexes. */
const AUTOMOD_RULES = 6;
const AUTOMOD_KEYWORDS = 1000;
const AUTOMOD_REGEXES = [
  '\\bzz\\d{4}\\b',
  'https?://evil\\.example/',
  '\\w@spam\\.test',
  'free\\s+nitro',
  '\\$\\d+\\s*giveaway',
  'discord\\.gg/[a-z0-9]{6}',
  '(?:buy|sell)\\s+followers',
  '\\b(?:\\d{3}-){2}\\d{4}\\b',
  'x{5}',
  'crypto\\s+airdrop',
];

/** Rule r's keywords: made-up words of 5-9 letters from a fixed generator, each of the four wildcard forms in turn. */
function benchKeywords(r: number): string[] {
  let seed = 0x9e3779b9 ^ (r + 1);
  const next = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0);
  return Array.from({ length: AUTOMOD_KEYWORDS }, (_, k) => {
    const word = Array.from({ length: 5 + (next() % 5) }, () => String.fromCharCode(97 + (next() % 26))).join('');
    return [word, `${word}*`, `*${word}`, `*${word}*`][k % 4];
  });
}
const RESULTS = process.env.BENCH_RESULTS ?? join(import.meta.dirname, 'results', 'latest.json');
/** The phases `--only a,b` names (null: every phase); only those that run without the others may be named. */
function onlyPhases(argv: string[]): Set<string> | null {
  const at = argv.indexOf('--only');
  if (at === -1) return null;
  const names = new Set((argv[at + 1] ?? '').split(',').filter(Boolean));
  const unknown = [...names].filter((name) => !['overload'].includes(name));
  if (names.size === 0 || unknown.length) throw new Error(`--only takes phases that run alone: overload (not ${[...unknown].join(', ') || 'nothing'})`);
  return names;
}

/** Runs `node --import tsx bench/log.ts …` to its end; its stdout. */
function logTool(args: string[]): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/log.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`bench/log.ts ${args[0]} exited with ${code}`)))),
  );
}

/** Seconds from spawning the server on `dir` to its first 200 from GET /healthz. */
async function coldStart(dir: string): Promise<{ seconds: number; server: Process }> {
  const started = performance.now();
  const running = await spawnListening('infra/main.ts', { DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }, dir);
  const server = { ...running, ca: await readFile(join(dir, 'tls', 'self-signed.crt'), 'utf8') };
  const dispatcher = new Agent({ connect: { ca: server.ca, servername: 'localhost' } });
  try {
    for (;;) {
      const response = await request(`${server.origin}/healthz`, { dispatcher }).catch(() => null);
      await response?.body.text();
      if (response?.statusCode === 200) return { seconds: (performance.now() - started) / 1000, server };
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await dispatcher.close();
  }
}

const machine = (loadavgBefore: number[]) => ({
  cpus: cpus().length,
  model: cpus()[0]?.model,
  node: process.version,
  loadavgBefore,
  loadavgAfter: loadavg(),
});

/**
 * The messages a channel holds after `after`, read a page at a time through `page` (ids newest first). The read
 * models follow the log: a count short of what was answered is read again, for up to 10 s, before it is taken.
 */
async function messagesAfter(page: (after: string) => Promise<{ id: string }[]>, after: string, atLeast = 0): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    let count = 0;
    for (let anchor = after; ;) {
      // Just after the overload a read may still be refused: asked again after its Retry-After.
      const batch = await page(anchor).catch(async (error: Error) => {
        if (!/: 503 /.test(error.message)) throw error;
        await new Promise((r) => setTimeout(r, 1000));
        return null;
      });
      if (batch === null) continue;
      if (batch.length === 0) break;
      count += batch.length;
      anchor = batch[0].id;
    }
    if (count >= atLeast || Date.now() > deadline) return count;
    await new Promise((r) => setTimeout(r, 500));
  }
}

interface Overload {
  connections: number;
  durationS: number;
  /** Answered 2xx, per second. */
  admittedPerS: number;
  admitted: number;
  /** Answered 503: refused by admission. */
  refused: number;
  /** Any other answer. */
  otherNon2xx: number;
  /** Requests that had no answer within autocannon's 10 s. */
  timeouts: number;
  /** The timeouts by where their connection was when autocannon gave up on it. */
  timeoutsBy: TimeoutKinds;
  errors: number;
  admittedP50Ms: number;
  admittedP99Ms: number;
  admittedMaxMs: number;
  /** The admitted sends that were their connection's first request (their latency includes its handshake), and the rest. */
  admittedFirst: ReturnType<typeof percentiles>;
  admittedLater: ReturnType<typeof percentiles>;
  /** The highest p99 of the admitted sends made in any 5 s after the first 5 s (those share the loop with the handshakes). */
  admittedP99After5sMs: number;
  /** The 503s' own latency: how soon a refused client learns it. */
  refusedP50Ms: number;
  refusedP99Ms: number;
  /** From a connection's start to its TLS handshake's end, over every connection made. */
  handshakes: ReturnType<typeof percentiles>;
  /** Messages in the channel after the overload that were not there before it: at least `admitted` when 2xx is durable. */
  stored: number;
  /** Connections the kernel dropped for a full listen queue (/proc/net/netstat's ListenOverflows) during the overload. */
  listenOverflows: number;
  /** CPU seconds a second over the overload: the server's, and the bench's own (autocannon runs in it). */
  serverCpu: number;
  benchCpu: number;
  loadavgBefore: number[];
  loadavgAfter: number[];
  rssBeforeMiB: number;
  rssAfterMiB: number;
}

/** Where a timed-out request's connection was: not yet connected, mid-handshake, or with its request written. */
interface TimeoutKinds {
  connecting: number;
  handshaking: number;
  /** The request was the connection's first: the connection had nothing answered yet. */
  firstRequest: number;
  /** The connection had had answers before this request. */
  laterRequest: number;
}

/** The kernel's count of connections dropped for a full listen queue, in this network namespace. */
async function listenOverflows(): Promise<number> {
  const lines = (await readFile('/proc/net/netstat', 'utf8')).split('\n').filter((l) => l.startsWith('TcpExt:'));
  const [names, values] = lines.map((l) => l.split(/\s+/));
  return Number(values[names.indexOf('ListenOverflows')] ?? 0);
}

/** A connection as autocannon made it, watched from outside: when it started, connected, finished its handshake. */
interface Watched {
  started: number;
  connected: boolean;
  secure: boolean;
  answers: number;
}

/**
 * OVERLOAD_CONNECTIONS sending at once, no warm-up: what is admitted, refused or left to time out, and how fast; each
 * timeout classed by where its connection was, each connection's handshake timed, and the messages stored counted.
 */
async function overload(
  server: Process,
  path: string,
  body: string,
  headers: () => Record<string, string>,
  storedSince: (atLeast: number) => Promise<number>,
): Promise<Overload> {
  const rssBefore = await rssOf(server.child.pid!);
  const admittedMs: number[] = [];
  const admittedFirstMs: number[] = [];
  const admittedLaterMs: number[] = [];
  /** The admitted sends' latencies by the 5 s in which each was made. */
  const admittedBy5s: number[][] = [];
  const refusedMs: number[] = [];
  const handshakeMs: number[] = [];
  const timeoutsBy: TimeoutKinds = { connecting: 0, handshaking: 0, firstRequest: 0, laterRequest: 0 };
  const overflowsBefore = await listenOverflows();
  const loadavgBefore = loadavg();
  const serverCpuBefore = (await cpuSecondsOf(server.child.pid!)) ?? 0;
  const benchCpuBefore = process.cpuUsage();
  const started = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${server.origin}${path}`,
        connections: OVERLOAD_CONNECTIONS,
        duration: OVERLOAD_DURATION,
        timeout: 10,
        method: 'POST',
        tlsOptions: { ca: server.ca },
        servername: 'localhost',
        requests: [{ method: 'POST', body, setupRequest: (req) => ({ ...req, headers: { 'content-type': 'application/json', ...headers() } }) }],
        // autocannon's client replaces its connection on a timeout (and then says so): each connection it makes is
        // watched, so the one given up on can be told apart. Its _connect is internal, and stable across 7–9.
        setupClient: (client: any) => {
          let current: Watched | null = null;
          let previous: Watched | null = null;
          const connect = client._connect.bind(client);
          client._connect = () => {
            previous = current;
            const watched: Watched = { started: performance.now(), connected: false, secure: false, answers: 0 };
            current = watched;
            connect();
            client.conn.once('connect', () => (watched.connected = true));
            client.conn.once('secureConnect', () => {
              watched.secure = true;
              handshakeMs.push(performance.now() - watched.started);
            });
          };
          client.on('response', (status: number, _bytes: number, ms: number) => {
            if (!current) return;
            if (status >= 200 && status < 300) {
              (current.answers === 0 ? admittedFirstMs : admittedLaterMs).push(ms);
              const window = Math.floor((performance.now() - ms - started) / 5000);
              (admittedBy5s[window] ??= []).push(ms);
            }
            current.answers += 1;
          });
          client.on('timeout', () => {
            const gaveUp = previous!;
            if (!gaveUp.connected) timeoutsBy.connecting += 1;
            else if (!gaveUp.secure) timeoutsBy.handshaking += 1;
            else if (gaveUp.answers === 0) timeoutsBy.firstRequest += 1;
            else timeoutsBy.laterRequest += 1;
          });
        },
      } as autocannon.Options,
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) admittedMs.push(ms);
      else if (status === 503) refusedMs.push(ms);
    });
  });
  const seconds = (performance.now() - started) / 1000;
  const benchCpu = process.cpuUsage(benchCpuBefore);
  const serverCpu = ((await cpuSecondsOf(server.child.pid!)) ?? 0) - serverCpuBefore;
  const loadavgAfter = loadavg();
  const counts = result.statusCodeStats as Record<string, { count: number } | undefined>;
  const admitted = percentiles(admittedMs);
  const refusals = percentiles(refusedMs);
  const refused = counts['503']?.count ?? 0;
  return {
    connections: OVERLOAD_CONNECTIONS,
    durationS: result.duration,
    admittedPerS: admitted.count / result.duration,
    admitted: admitted.count,
    refused,
    otherNon2xx: result.non2xx - refused,
    timeouts: result.timeouts,
    timeoutsBy,
    errors: result.errors,
    admittedP50Ms: admitted.p50Ms,
    admittedP99Ms: admitted.p99Ms,
    admittedMaxMs: admitted.maxMs,
    admittedFirst: percentiles(admittedFirstMs),
    admittedLater: percentiles(admittedLaterMs),
    admittedP99After5sMs: Math.max(
      ...admittedBy5s
        .slice(1)
        .map((window) => percentiles(window ?? []).p99Ms)
        .filter(Number.isFinite),
    ),
    refusedP50Ms: refusals.p50Ms,
    refusedP99Ms: refusals.p99Ms,
    handshakes: percentiles(handshakeMs),
    stored: await storedSince(admitted.count),
    listenOverflows: (await listenOverflows()) - overflowsBefore,
    serverCpu: serverCpu / seconds,
    benchCpu: (benchCpu.user + benchCpu.system) / 1e6 / seconds,
    loadavgBefore,
    loadavgAfter,
    rssBeforeMiB: rssBefore / 2 ** 20,
    rssAfterMiB: (await rssOf(server.child.pid!)) / 2 ** 20,
  };
}

async function main() {
  const startedAt = new Date();
  const t0 = performance.now();
  const phases: Record<string, number> = {};
  let phaseStarted = t0;
  let phaseName = 'setup';
  /** Ends the phase under way (its seconds go to the results) and announces the next on stderr. */
  const phase = (name: string, detail: string) => {
    const now = performance.now();
    phases[phaseName] = (now - phaseStarted) / 1000;
    [phaseStarted, phaseName] = [now, name];
    console.error(`[${((now - t0) / 1000).toFixed(0)} s] ${name}: ${detail}`);
  };
  const loadBefore = loadavg();
  const parley = await startParley();
  const { api, json, close } = apiClient(parley.origin, parley.ca);

  try {
    // Users, a guild, senders joined through an invite, and bots for the gateway's sessions (spread over bots, each
    // starting its own one after another: see connectAll).
    const { ownerToken, guildId, channelId, senders, bots } = await benchGuild(json, { senders: SENDERS, sessions: CLIENTS });

    const messageBody = JSON.stringify({ content: 'a benchmark message of ordinary length, sent at 64 concurrent' });
    let turn = 0;
    const sendAs = () => ({ authorization: `Bearer ${senders[turn++ % senders.length]}` });
    // 7. Overload: far more senders at once than the server admits; the refused are told so at once (503).
    const overloadPhase = async () => {
      phase('overload', `${OVERLOAD_CONNECTIONS} connections, ${OVERLOAD_DURATION} s…`);
      const [newest] = (await json('GET', `/channels/${channelId}/messages?limit=1`, ownerToken)) as { id: string }[];
      const page = (after: string) => json('GET', `/channels/${channelId}/messages?limit=100&after=${after}`, ownerToken);
      const stored = (atLeast: number) => messagesAfter(page, newest?.id ?? '0', atLeast);
      return overload(parley, `/api/v1/channels/${channelId}/messages`, messageBody, sendAs, stored);
    };
    if (ONLY) {
      const overloaded = await overloadPhase();
      phase('done', `${((performance.now() - t0) / 1000).toFixed(0)} s in all`);
      const results = {
        date: startedAt.toISOString(),
        mode: `only ${[...ONLY].join(',')}`,
        machine: machine(loadBefore),
        overload: overloaded,
        phasesS: phases,
      };
      await mkdir(dirname(RESULTS), { recursive: true });
      await writeFile(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
      console.log(`${markdownTable([TABLE_HEAD, overloadRow(overloaded)])}\n\n${overloadDetail(overloaded)}`);
      return;
    }

    const url = `${parley.origin.replace('https', 'wss')}/gateway?v=10&encoding=json`;
    const connect = (token: string, intents: number, onDispatch?: (t: string, d: any) => void) => gatewaySession(url, token, intents, onDispatch);
    // 4b. Idle sessions and memory per session, first, on a server no load has grown yet (after the loads its heap
    // shrinks while the sessions connect). Each account may start 1000 sessions a day: spread them over accounts.
    phase('idle', `${IDLE} sessions…`);
    const idle: WebSocket[] = [];
    const accounts = await Promise.all(
      Array.from({ length: Math.ceil(IDLE / SESSIONS_PER_LANE) }, (_, i) =>
        json('POST', '/auth/register', undefined, { username: `benchidle${i}`, password: 'a long password' }),
      ),
    );
    const before = await rssOf(parley.child.pid!);
    idle.push(
      ...(await connectAll(
        accounts.map((a) => a.token),
        IDLE,
        (token) => connect(token, 1),
      )),
    );
    await new Promise((r) => setTimeout(r, 1000));
    const after = await rssOf(parley.child.pid!);
    const idleSessions = {
      sessions: idle.length,
      rssBeforeMiB: before / 2 ** 20,
      rssAfterMiB: after / 2 ** 20,
      kibPerSession: (after - before) / idle.length / 1024,
    };
    for (const ws of idle) ws.terminate();
    await new Promise((r) => setTimeout(r, 500));

    // 2. Durable sends, each sender in turn; the same JSON body the echo gets.
    phase('sends', `${CONNECTIONS} connections, ${DURATION} s…`);
    const rssBeforeSends = await rssOf(parley.child.pid!);
    const sends = await load(parley, `/api/v1/channels/${channelId}/messages`, {
      method: 'POST',
      body: messageBody,
      headers: sendAs,
    });
    const sendsMemory = { sends: sends.total, rssBeforeMiB: rssBeforeSends / 2 ** 20, rssAfterMiB: (await rssOf(parley.child.pid!)) / 2 ** 20 };

    // 2b. The same sends once the guild moderates them: 6 keyword rules of 1,000 keywords each (every wildcard form)
    // and 10 regexes, none of which the message matches, so every rule is checked whole on every send.
    phase('moderated sends', `${AUTOMOD_RULES} keyword rules of ${AUTOMOD_KEYWORDS} keywords, ${AUTOMOD_REGEXES.length} regexes…`);
    for (let r = 0; r < AUTOMOD_RULES; r++) {
      await json('POST', `/guilds/${guildId}/auto-moderation/rules`, ownerToken, {
        name: `bench ${r}`,
        event_type: 1,
        trigger_type: 1,
        trigger_metadata: { keyword_filter: benchKeywords(r), regex_patterns: r === 0 ? AUTOMOD_REGEXES : [] },
        actions: [{ type: 1 }],
        enabled: true,
      });
    }
    const moderatedSends = await load(parley, `/api/v1/channels/${channelId}/messages`, {
      method: 'POST',
      body: messageBody,
      headers: sendAs,
    });

    // 3. The page a reader gets, then its ceiling: koa serving those bytes (and the echo, on the same process).
    let echo: Load | undefined;
    const { page, pageCeiling, pages } = await pageLoads(parley, api, channelId, ownerToken, senders, phase, async (ceiling) => {
      echo = await load(ceiling, '/echo', { method: 'POST', body: messageBody });
    });

    // 6. Erasure: the sends' messages deleted one request each, CONNECTIONS at a time; each answer waits for the key
    // shredder to have destroyed the message's key (and the remover its files), so this is erased messages a second.
    // Before the gateway's messages, which stay: the log's growing copies a live message from its end.
    phase('erasure', `${ERASE} messages, ${CONNECTIONS} at a time…`);
    const doomed: string[] = [];
    for (let before = ''; doomed.length < ERASE;) {
      const batch = (await json('GET', `/channels/${channelId}/messages?limit=100${before && `&before=${before}`}`, ownerToken)) as { id: string }[];
      if (batch.length === 0) break;
      doomed.push(...batch.map((m) => m.id));
      before = batch[batch.length - 1].id;
    }
    const toErase = doomed.slice(0, ERASE);
    const erasureStarted = performance.now();
    const deleteTimes: number[] = [];
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async (_, lane) => {
        for (let i = lane; i < toErase.length; i += CONNECTIONS) {
          const at = performance.now();
          await api('DELETE', `/channels/${channelId}/messages/${toErase[i]}`, ownerToken);
          deleteTimes.push(performance.now() - at);
        }
      }),
    );
    const erasureS = (performance.now() - erasureStarted) / 1000;
    const erasure = { messages: toErase.length, connections: CONNECTIONS, seconds: erasureS, perS: toErase.length / erasureS, ...percentiles(deleteTimes) };

    // 7. Overload, after the erasure.
    const overloaded = await overloadPhase();

    // 4a. Latency at CLIENTS connected sessions, all in the guild; and the POST's own round trip, one at a time.
    phase('gateway', `${CLIENTS} sessions, ${MESSAGES} messages…`);
    const arrivals = new Map<string, number[]>();
    const sockets = await connectAll(bots, CLIENTS, (token) =>
      connect(token, (1 << 0) | (1 << 9) | (1 << 15), (t, d) => {
        if (t === 'MESSAGE_CREATE') {
          const list = arrivals.get(d.content) ?? [];
          list.push(performance.now());
          arrivals.set(d.content, list);
        }
      }),
    );
    const deliveries: number[] = [];
    const roundTrips: number[] = [];
    for (let i = 0; i < MESSAGES; i++) {
      const content = `bench ${i}`;
      const sentAt = performance.now();
      await api('POST', `/channels/${channelId}/messages`, ownerToken, { content });
      roundTrips.push(performance.now() - sentAt);
      const deadline = Date.now() + 10_000;
      while ((arrivals.get(content)?.length ?? 0) < CLIENTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
      for (const at of arrivals.get(content) ?? []) deliveries.push(at - sentAt);
    }
    const delivery = { sessions: CLIENTS, messages: MESSAGES, expected: CLIENTS * MESSAGES, ...percentiles(deliveries) };
    const singleSend = { messages: MESSAGES, ...percentiles(roundTrips) };
    for (const ws of sockets) ws.close();
    await new Promise((r) => setTimeout(r, 500));

    // 5. The server's log grown to LOG_EVENTS events (copies of its messages), every read model rebuilt from it, the
    // log read alone (as a server's followers read it, nothing projected or written), and a cold start on it to the
    // first 200 from /healthz.
    await stop(parley, true);
    phase('grow', `the log to ${LOG_EVENTS} events…`);
    await logTool(['grow', parley.dir, String(LOG_EVENTS)]);
    phase('rebuild', 'every read model…');
    const rebuilt = JSON.parse(await logTool(['rebuild', parley.dir])) as { events: number; seconds: number };
    phase('read', 'the log alone…');
    const readAlone = JSON.parse(await logTool(['read', parley.dir])) as { events: number; seconds: number };
    phase('consume', `the log's last ${CONSUME} events through a gateway node's consumer…`);
    const consumed = JSON.parse(await logTool(['consume', parley.dir, String(CONSUME)])) as { events: number; seconds: number };
    phase('event stream', 'sends, then sends while one reader streams a grown guild log (bench/eventStream.ts)…');
    const eventStream = await measureEventStream(QUICK);
    phase('cold start', 'to /healthz…');
    const cold = await coldStart(parley.dir);
    await stop(cold.server);
    phase('done', `${((performance.now() - t0) / 1000).toFixed(0)} s in all`);
    const eventsPerS = rebuilt.events / rebuilt.seconds;
    const readAlonePerS = readAlone.events / readAlone.seconds;
    const log = {
      events: rebuilt.events,
      rebuildS: rebuilt.seconds,
      eventsPerS,
      readAloneS: readAlone.seconds,
      readAlonePerS,
      rebuildRatioToReadAlone: eventsPerS / readAlonePerS,
      coldStartS: cold.seconds,
    };
    const consumer = { ...consumed, eventsPerS: consumed.events / consumed.seconds, ratioToReadAlone: consumed.events / consumed.seconds / readAlonePerS };

    const results = {
      date: startedAt.toISOString(),
      mode: QUICK ? 'quick' : 'default',
      machine: machine(loadBefore),
      options: { connections: CONNECTIONS, durationS: DURATION, warmupS: WARMUP, clients: CLIENTS, messages: MESSAGES, idle: IDLE, senders: SENDERS },
      echoCeiling: echo!,
      sends: { ...sends, ratioToCeiling: sends.reqPerS / echo!.reqPerS, p99RatioToCeiling: sends.p99Ms / echo!.p99Ms },
      moderatedSends: { ...moderatedSends, ratioToSends: moderatedSends.reqPerS / sends.reqPerS, p99RatioToSends: moderatedSends.p99Ms / sends.p99Ms },
      pageCeiling: { ...pageCeiling, pageBytes: page.length },
      pages,
      singleSend,
      delivery: { ...delivery, p99RatioToSingleSend: delivery.p99Ms / singleSend.p99Ms },
      idleSessions,
      sendsMemory,
      erasure,
      overload: overloaded,
      log,
      consumer,
      eventStream,
      phasesS: phases,
      runS: (performance.now() - t0) / 1000,
    };
    await mkdir(dirname(RESULTS), { recursive: true });
    await writeFile(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`${table(results)}\n\n${overloadDetail(overloaded)}`);
    console.log(
      `\n${results.mode} run, ${results.runS.toFixed(0)} s; load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${results.machine.loadavgAfter.map((l) => l.toFixed(2)).join(' ')} after (${results.machine.cpus} CPUs); JSON in ${RESULTS}`,
    );
  } finally {
    await stop(parley);
    await close();
  }
}

/**
 * The channel's page as the owner reads it, its ceiling (koa serving those bytes; `onCeiling` loads that process too
 * while it runs), then the page read from Parley by the readers in turn.
 */
async function pageLoads(
  parley: Process,
  api: ReturnType<typeof apiClient>['api'],
  channelId: string,
  ownerToken: string,
  readers: string[],
  phase: (name: string, detail: string) => void,
  onCeiling: (ceiling: Process) => Promise<void> = async () => {},
) {
  const pagePath = `/channels/${channelId}/messages?limit=50`;
  const page = Buffer.from(await api('GET', pagePath, ownerToken));
  const ceiling = await startCeiling(page);
  // CPU ms per request of each process (its warm-up's requests counted at the measured rate): a machine loaded by other
  // work moves it less than the rates.
  const cpuMsPerRequest = async (server: Process, measure: () => Promise<Load>): Promise<[Load, number]> => {
    const before = await cpuSecondsOf(server.child.pid!);
    const measured = await measure();
    const cpu = (await cpuSecondsOf(server.child.pid!))! - before!;
    return [measured, (cpu * 1000) / (measured.reqPerS * (DURATION + WARMUP))];
  };
  let pageCeiling: Load;
  let ceilingCpuMs: number;
  try {
    phase('ceilings', `page (${page.length} bytes)…`);
    await onCeiling(ceiling);
    [pageCeiling, ceilingCpuMs] = await cpuMsPerRequest(ceiling, () => load(ceiling, pagePath, { headers: () => ({ authorization: `Bearer ${ownerToken}` }) }));
  } finally {
    await stop(ceiling);
  }
  phase('pages', `${CONNECTIONS} connections, ${DURATION} s…`);
  let turn = 0;
  const [pages, pagesCpuMs] = await cpuMsPerRequest(parley, () =>
    load(parley, `/api/v1${pagePath}`, { headers: () => ({ authorization: `Bearer ${readers[turn++ % readers.length]}` }) }),
  );
  return {
    page,
    pageCeiling,
    pages: { ...pages, ratioToCeiling: pages.reqPerS / pageCeiling.reqPerS, p99RatioToCeiling: pages.p99Ms / pageCeiling.p99Ms },
    cpuMsPerRequest: { ceiling: ceilingCpuMs, pages: pagesCpuMs },
  };
}

/**
 * `--pages`: the page reads alone, BENCH_ROUNDS times (default 3) on one server, each against its own ceiling, after
 * BENCH_PAGE_SEED sends (default 12000, about the full run's) from the senders; one JSON line per round on stdout, with each process's CPU
 * per request.
 */
async function pagesAlone() {
  const parley = await startParley();
  const { api, json, close } = apiClient(parley.origin, parley.ca);
  const phase = (name: string, detail: string) => console.error(`${name}: ${detail}`);
  try {
    const { ownerToken, channelId, senders } = await benchGuild(json, { senders: SENDERS });
    const seed = Number(process.env.BENCH_PAGE_SEED ?? 12_000);
    const body = { content: 'a benchmark message of ordinary length, sent at 64 concurrent' };
    // 16 at a time: 64 have been refused by admission (503) on a loaded machine.
    phase('seed', `${seed} sends, 16 at a time…`);
    await Promise.all(
      Array.from({ length: 16 }, async (_, lane) => {
        for (let i = lane; i < seed; i += 16) await api('POST', `/channels/${channelId}/messages`, senders[i % senders.length], body);
      }),
    );
    for (let round = 0; round < Number(process.env.BENCH_ROUNDS ?? 3); round++) {
      const { page, pageCeiling, pages, cpuMsPerRequest } = await pageLoads(parley, api, channelId, ownerToken, senders, phase);
      const figures = { round, pageBytes: page.length, ceilingReqPerS: pageCeiling.reqPerS, reqPerS: pages.reqPerS, ratio: pages.ratioToCeiling };
      console.log(JSON.stringify({ ...figures, p99Ms: pages.p99Ms, non2xx: pages.non2xx, cpuMsPerRequest, loadavg: loadavg() }));
    }
  } finally {
    await stop(parley);
    await close();
  }
}

type Results = {
  echoCeiling: Load;
  sends: Load & { ratioToCeiling: number; p99RatioToCeiling: number };
  moderatedSends: Load & { ratioToSends: number; p99RatioToSends: number };
  pageCeiling: Load & { pageBytes: number };
  pages: Load & { ratioToCeiling: number; p99RatioToCeiling: number };
  singleSend: ReturnType<typeof percentiles>;
  delivery: ReturnType<typeof percentiles> & { sessions: number; expected: number; p99RatioToSingleSend: number };
  idleSessions: { sessions: number; rssBeforeMiB: number; rssAfterMiB: number; kibPerSession: number };
  sendsMemory: { sends: number; rssBeforeMiB: number; rssAfterMiB: number };
  erasure: ReturnType<typeof percentiles> & { messages: number; connections: number; seconds: number; perS: number };
  overload: Overload;
  log: { events: number; rebuildS: number; eventsPerS: number; readAloneS: number; readAlonePerS: number; rebuildRatioToReadAlone: number; coldStartS: number };
  consumer: { events: number; seconds: number; eventsPerS: number; ratioToReadAlone: number };
  eventStream: EventStreamCost;
};

const TABLE_HEAD = ['figure', 'conc.', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'non-2xx', 'vs ceiling (same run)'];
const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(v < 10 ? 1 : 0) : '–');

function overloadRow(o: Overload): string[] {
  return [
    `overload: durable sends past admission, ${o.refused} refused (503), ${o.timeouts} client timeouts, RSS ${o.rssBeforeMiB.toFixed(0)} → ${o.rssAfterMiB.toFixed(0)} MiB`,
    `${o.connections}`,
    o.admittedPerS.toFixed(0),
    ms(o.admittedP50Ms),
    ms(o.admittedP99Ms),
    ms(o.admittedMaxMs),
    `${o.refused + o.otherNon2xx}`,
    'req/s and latencies of the admitted (2xx) sends',
  ];
}

/** What the overload row leaves out: where the timeouts were, the handshakes, the refusals' speed, who took the CPU. */
function overloadDetail(o: Overload): string {
  const t = o.timeoutsBy;
  const load = (l: number[]) => l.map((v) => v.toFixed(2)).join(' ');
  return [
    `overload: ${o.timeouts} client timeouts (${t.connecting} connecting, ${t.handshaking} in the TLS handshake, ${t.firstRequest} on a connection's first request, ${t.laterRequest} on a later one), ${o.listenOverflows} listen-queue overflows, ${o.errors} errors;`,
    `  admitted p99 ${ms(o.admittedP99Ms)} ms: a connection's first request p50 ${ms(o.admittedFirst.p50Ms)} ms, p99 ${ms(o.admittedFirst.p99Ms)} ms (${o.admittedFirst.count}), a later one p50 ${ms(o.admittedLater.p50Ms)} ms, p99 ${ms(o.admittedLater.p99Ms)} ms (${o.admittedLater.count}); sent after the first 5 s, the worst 5 s p99 ${ms(o.admittedP99After5sMs)} ms;`,
    `  ${o.handshakes.count} handshakes, p50 ${ms(o.handshakes.p50Ms)} ms, p99 ${ms(o.handshakes.p99Ms)} ms, max ${ms(o.handshakes.maxMs)} ms; 503 p50 ${ms(o.refusedP50Ms)} ms, p99 ${ms(o.refusedP99Ms)} ms;`,
    `  ${o.stored} messages stored for ${o.admitted} sends admitted; CPU a second: the server ${o.serverCpu.toFixed(2)}, the bench (autocannon) ${o.benchCpu.toFixed(2)}; load average ${load(o.loadavgBefore)} before, ${load(o.loadavgAfter)} after`,
  ].join('\n');
}

/** One markdown table: every figure, and beside each its ceiling's ratio. */
function table(r: Results): string {
  const x = (v: number) => `${v.toFixed(2)}×`;
  // A load's row: its figures, and how it compares.
  const load = (figure: string, l: Pick<Load, 'connections' | 'reqPerS' | 'p50Ms' | 'p99Ms' | 'maxMs' | 'non2xx'>, comparison: string) => [
    figure,
    `${l.connections}`,
    l.reqPerS.toFixed(0),
    ms(l.p50Ms),
    ms(l.p99Ms),
    ms(l.maxMs),
    `${l.non2xx}`,
    comparison,
  ];
  const rows: string[][] = [
    TABLE_HEAD,
    load('koa echo `POST /echo` (ceiling)', r.echoCeiling, 'ceiling'),
    load('durable sends `POST /channels/:id/messages`', r.sends, `${x(r.sends.ratioToCeiling)} req/s, p99 ${x(r.sends.p99RatioToCeiling)}`),
    load(
      `the same sends under auto-moderation (${AUTOMOD_RULES}×${AUTOMOD_KEYWORDS} keywords, ${AUTOMOD_REGEXES.length} regexes)`,
      r.moderatedSends,
      `${x(r.moderatedSends.ratioToSends)} req/s, p99 ${x(r.moderatedSends.p99RatioToSends)} of the sends above`,
    ),
    load(`koa serving the same page, ${r.pageCeiling.pageBytes} B (ceiling)`, r.pageCeiling, 'ceiling'),
    load('message pages `GET /channels/:id/messages?limit=50`', r.pages, `${x(r.pages.ratioToCeiling)} req/s, p99 ${x(r.pages.p99RatioToCeiling)}`),
    load(
      `durable sends while one reader streams a guild's ${r.eventStream.events} events (\`GET /guilds/:id/events\`)`,
      r.eventStream.streaming,
      `${x(r.eventStream.ratio)} req/s of the same sends alone (${r.eventStream.alone.reqPerS.toFixed(0)}); ${r.eventStream.streamed} lines streamed`,
    ),
    ['single send, one at a time (POST round trip)', '1', '–', ms(r.singleSend.p50Ms), ms(r.singleSend.p99Ms), ms(r.singleSend.maxMs), '0', '–'],
    [
      `POST → MESSAGE_CREATE at ${r.delivery.sessions} sessions (${r.delivery.count}/${r.delivery.expected} deliveries)`,
      '1',
      '–',
      ms(r.delivery.p50Ms),
      ms(r.delivery.p99Ms),
      ms(r.delivery.maxMs),
      '–',
      `p99 ${x(r.delivery.p99RatioToSingleSend)} a single send's`,
    ],
    [
      `idle sessions: ${r.idleSessions.sessions}, RSS ${r.idleSessions.rssBeforeMiB.toFixed(0)} → ${r.idleSessions.rssAfterMiB.toFixed(0)} MiB`,
      '–',
      '–',
      '–',
      '–',
      '–',
      '–',
      `${r.idleSessions.kibPerSession.toFixed(1)} KiB per session`,
    ],
    [
      `RSS over ${r.sendsMemory.sends} durable sends`,
      '–',
      '–',
      '–',
      '–',
      '–',
      '–',
      `${r.sendsMemory.rssBeforeMiB.toFixed(0)} → ${r.sendsMemory.rssAfterMiB.toFixed(0)} MiB`,
    ],
    [
      `erasure: ${r.erasure.messages} messages deleted, keys destroyed \`DELETE /channels/:id/messages/:id\``,
      `${r.erasure.connections}`,
      r.erasure.perS.toFixed(0),
      ms(r.erasure.p50Ms),
      ms(r.erasure.p99Ms),
      ms(r.erasure.maxMs),
      '0',
      `${r.erasure.seconds.toFixed(1)} s (messages erased/s)`,
    ],
    overloadRow(r.overload),
    [
      `read the log alone, ${r.log.events} events (as a server's followers read it)`,
      '–',
      r.log.readAlonePerS.toFixed(0),
      '–',
      '–',
      '–',
      '–',
      `${r.log.readAloneS.toFixed(1)} s (events/s)`,
    ],
    [
      `rebuild every read model from ${r.log.events} events`,
      '–',
      r.log.eventsPerS.toFixed(0),
      '–',
      '–',
      '–',
      '–',
      `${r.log.rebuildS.toFixed(1)} s, ${x(r.log.rebuildRatioToReadAlone)} reading alone`,
    ],
    [
      `gateway node's consumer, the log's last ${r.consumer.events} events through the bus port (no sessions)`,
      '–',
      r.consumer.eventsPerS.toFixed(0),
      '–',
      '–',
      '–',
      '–',
      `${r.consumer.seconds.toFixed(1)} s, ${x(r.consumer.ratioToReadAlone)} reading alone`,
    ],
    [`cold start to /healthz on ${r.log.events} events`, '–', '–', '–', '–', '–', '–', `${r.log.coldStartS.toFixed(1)} s`],
  ];
  return markdownTable(rows);
}

(process.argv.includes('--pages') ? pagesAlone() : main()).catch((error) => {
  console.error(error);
  process.exit(1);
});
