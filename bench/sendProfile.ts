// What each step of a durable send costs, from a CPU profile of the server under the bench's send load: the server
// runs under `node --cpu-prof`, and every sample its threads took while the load ran is given to the innermost frame
// of its stack that belongs to a step (below), so a step's share is its own code and what it calls that no inner step
// claims (JSON.stringify under the log's flush is the append's; AES-GCM under sealing is sealing's). Printed as
// microseconds of CPU per send and as shares, per thread, and written to bench/results/send-profile.json.
//   npm run bench:profile [-- --seconds 20] [--node-args '--max-semi-space-size=64']
// CPU time per send is the figure a busy machine disturbs least (it stretches wall time, not the work), so this table
// can be taken beside other work; its throughput cannot.
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, apiClient, benchGuild, cpuSecondsOf, loader, markdownTable, startParley, stop } from './harness.js';

/** One step of a send: a frame belongs to it when its script's path contains one of `files` (or its name is one of `functions`). */
interface Step {
  name: string;
  files?: string[];
  functions?: string[];
}

// Checked in this order at each frame, from the sample's leaf towards the root: the first step a frame belongs to
// takes the sample. Node's and V8's own frames belong to no step until an outer frame does.
const STEPS: Step[] = [
  { name: 'garbage collection', functions: ['(garbage collector)'] },
  {
    name: 'sealing (seal on append, open on read, keys)',
    files: ['infra/eventStore/sealing.ts', 'infra/keys/', 'ports/keyStore.ts', 'domain/personalData.ts', 'infra/nonces.ts'],
  },
  { name: 'member activity (its projection)', files: ['projections/memberActivity.ts'] },
  { name: 'the projection (read models written)', files: ['projections/', 'infra/readStore/'] },
  { name: 'the append (serialized, group commit, tail kept)', files: ['infra/eventStore/', 'infra/frozen.ts'] },
  { name: 'auto-moderation', files: ['commands/messages/autoModeration.ts', 'domain/autoModeration'] },
  { name: 'slowmode', files: ['commands/slowmode.ts', 'domain/slowmode'] },
  { name: 'nonce', files: ['domain/messageNonce.ts'] },
  { name: 'thread look-ups', files: ['commands/threads.ts', 'domain/thread'] },
  { name: 'access (channel, permissions, timeout)', files: ['commands/access.ts', 'domain/permissions.ts', 'domain/guildState.ts'] },
  { name: 'decide (deciders, cached states, ids)', files: ['commands/handle.ts', 'commands/queue.ts', 'domain/', 'lru-cache'] },
  { name: 'the send use case (content, mentions, attachments)', files: ['commands/'] },
  { name: 'gateway dispatch (no session connected)', files: ['gateway/', 'infra/bus/'] },
  { name: 'the answer (presented, written)', files: ['presenters/', 'http/shared/'] },
  { name: 'validation (ajv)', files: ['http/validation.ts', 'ajv'] },
  { name: 'authentication', files: ['http/auth.ts', 'infra/secrets.ts'] },
  { name: 'body read and parsed', files: ['http/body.ts', 'raw-body', 'co-body'] },
  { name: 'koa, routing, admission, error form', files: ['/koa', 'koa-compose', '@koa/router', 'delegates', 'http/'] },
  {
    name: 'HTTP and TLS (Node)',
    files: ['node:_http', 'node:_tls', 'node:tls', 'node:net', 'node:internal/stream', 'node:internal/streams', 'node:stream', 'node:events'],
    functions: ['writev', 'writeBuffer', 'writeUtf8String'],
  },
];
const OTHER = 'other (V8, microtasks, timers, Node)';

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Each node's step, the innermost frame on its path from the root that belongs to one (computed root first). */
function stepsOf(profile: CpuProfile): Map<number, string> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const own = (id: number): string | null => {
    const { functionName, url } = byId.get(id)!.callFrame;
    const step = STEPS.find((s) => s.functions?.includes(functionName) || s.files?.some((file) => url.includes(file)));
    return step?.name ?? null;
  };
  const steps = new Map<number, string>();
  const visit = (id: number, outer: string) => {
    const step = own(id) ?? outer;
    steps.set(id, step);
    for (const child of byId.get(id)!.children ?? []) visit(child, step);
  };
  visit(profile.nodes[0].id, OTHER);
  return steps;
}

/** Milliseconds per step among the samples taken within [fromUs, toUs] (the monotonic clock, as V8 stamps samples). */
function stepTimes(profile: CpuProfile, fromUs: number, toUs: number): Map<string, number> {
  const steps = stepsOf(profile);
  const idle = new Set(profile.nodes.filter((n) => ['(idle)', '(root)'].includes(n.callFrame.functionName) && !n.children?.length).map((n) => n.id));
  const times = new Map<string, number>();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i];
    // A sample stands for the interval up to the next one.
    const span = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    if (at < fromUs || at > toUs || idle.has(profile.samples[i])) continue;
    const step = steps.get(profile.samples[i])!;
    times.set(step, (times.get(step) ?? 0) + span);
  }
  return times;
}

/** The thread a profile is of, by what it ran most: the main thread answers requests. */
function threadOf(profile: CpuProfile): string {
  const urls = profile.nodes.map((n) => n.callFrame.url);
  if (urls.some((u) => u.includes('http/app.ts'))) return 'main';
  if (urls.some((u) => u.includes('sqliteCommit.ts'))) return 'log writer';
  if (urls.some((u) => u.includes('keyWriter.ts'))) return 'key writer';
  return 'other';
}

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

async function main() {
  const option = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
  const seconds = Number(option('--seconds') ?? 15);
  const nodeArgs = option('--node-args')?.split(' ').filter(Boolean) ?? [];
  const profiles = await mkdtemp(join(tmpdir(), 'parley-send-profile-'));
  const parley = await startParley([...nodeArgs, '--cpu-prof', `--cpu-prof-dir=${profiles}`]);
  const { json, close } = apiClient(parley.origin, parley.ca);
  let window: { fromUs: number; toUs: number; sends: number; cpuS: number; reqPerS: number };
  try {
    // The bench's own set-up: four senders joined to a guild through an invite, the same body, 64 connections.
    const { channelId, senders } = await benchGuild(json, { senders: 4 });
    const body = JSON.stringify({ content: 'a benchmark message of ordinary length, sent at 64 concurrent' });
    let next = 0;
    const options = { method: 'POST' as const, body, headers: () => ({ authorization: `Bearer ${senders[next++ % senders.length]}` }) };
    await loader({ connections: 64, duration: 2, warmup: 0 })(parley, `/api/v1/channels/${channelId}/messages`, options);
    const cpuBefore = (await cpuSecondsOf(parley.child.pid!))!;
    const fromUs = monotonicUs();
    const load = await loader({ connections: 64, duration: seconds, warmup: 0 })(parley, `/api/v1/channels/${channelId}/messages`, options);
    const toUs = monotonicUs();
    if (load.non2xx > 0) throw new Error(`${load.non2xx} sends were refused: ${JSON.stringify(load.statuses)}`);
    window = { fromUs, toUs, sends: load.total, cpuS: (await cpuSecondsOf(parley.child.pid!))! - cpuBefore, reqPerS: load.reqPerS };
  } finally {
    await close();
    // SIGTERM: the server exits by itself, and --cpu-prof writes each thread's profile as it ends.
    await stop(parley);
  }

  const threads = new Map<string, Map<string, number>>();
  for (const file of (await readdir(profiles)).filter((f) => f.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(await readFile(join(profiles, file), 'utf8')) as CpuProfile;
    const thread = threadOf(profile);
    const times = threads.get(thread) ?? new Map<string, number>();
    for (const [step, ms] of stepTimes(profile, window.fromUs, window.toUs)) times.set(step, (times.get(step) ?? 0) + ms);
    threads.set(thread, times);
  }
  const perSendUs = (ms: number) => (ms * 1000) / window.sends;
  const rows: string[][] = [];
  let profiledMs = 0;
  for (const [thread, times] of [...threads].sort(([a], [b]) => (a === 'main' ? -1 : b === 'main' ? 1 : a.localeCompare(b)))) {
    const total = [...times.values()].reduce((sum, ms) => sum + ms, 0);
    profiledMs += total;
    for (const [step, ms] of [...times].sort(([, a], [, b]) => b - a)) {
      if (perSendUs(ms) < 1) continue;
      rows.push([thread, step, perSendUs(ms).toFixed(0), `${((100 * ms) / total).toFixed(1)} %`]);
    }
    rows.push([thread, '**all of the thread**', `**${perSendUs(total).toFixed(0)}**`, '100 %']);
  }
  console.log(
    `${window.sends} sends in ${((window.toUs - window.fromUs) / 1e6).toFixed(1)} s (${window.reqPerS.toFixed(0)}/s, 64 connections), ` +
      `the process's CPU ${((window.cpuS * 1e6) / window.sends).toFixed(0)} µs a send (profiled: ${perSendUs(profiledMs).toFixed(0)}), ` +
      `load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}\n`,
  );
  console.log(markdownTable([['thread', 'step of a send', 'µs of CPU a send', 'share of the thread'], ...rows]));
  await mkdir(join(ROOT, 'bench', 'results'), { recursive: true });
  const result = {
    ...window,
    threads: Object.fromEntries([...threads].map(([t, times]) => [t, Object.fromEntries([...times].map(([s, ms]) => [s, perSendUs(ms)]))])),
  };
  await writeFile(join(ROOT, 'bench', 'results', 'send-profile.json'), JSON.stringify(result, null, 2));
}

await main();
