// What an analyst's event stream costs the senders: `tsx bench/eventStream.ts [--quick]` starts a server, grows its
// guild's log to BENCH_STREAM_EVENTS events (default 100000; bench/log.ts grow: copies of a message), then measures
// durable sends (POST /channels/:id/messages from BENCH_CONNECTIONS connections, default 64, for BENCH_DURATION s)
// alone (after a warm-up load, and again after the stream), and while one reader streams the guild's whole log from
// the start (GET /api/v10/guilds/:id/events, NDJSON, following) as fast as it takes it. Prints
// {"alone":…,"streaming":…,"ratio":…,"streamed":…,"streamS":…} on stdout; bench/run.ts runs measureEventStream as its
// "event stream" phase.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Agent, request } from 'undici';
import { type Load, type Process, ROOT, apiClient, benchSize, loadSizes, loader, spawnListening, startParley, stop } from './harness.js';

const SENDERS = 4;

export interface EventStreamCost {
  events: number;
  /** The sends without a stream, before it and after it; reqPerS: their mean. */
  alone: { before: Load; after: Load; reqPerS: number };
  streaming: Load;
  /** The senders' req/s while the stream is read, as a share of theirs without it (the mean of before and after). */
  ratio: number;
  streamed: number;
  streamS: number;
  caughtUpS: number | null;
}

export async function measureEventStream(quick: boolean): Promise<EventStreamCost> {
  const size = benchSize(quick);
  const STREAM_EVENTS = size('BENCH_STREAM_EVENTS', 100_000, 5000);
  const load = loader(loadSizes(size));
  const first = await startParley();
  let parley: Process = first;
  try {
    const { json } = apiClient(first.origin, first.ca);
    const owner = await json('POST', '/auth/register', undefined, { username: 'streamowner', password: 'a long password' });
    const guild = await json('POST', '/guilds', owner.token, { name: 'streamed' });
    const channelId = guild.system_channel_id as string;
    const invite = await json('POST', `/channels/${channelId}/invites`, owner.token, { max_age: 0 });
    const senders: string[] = [];
    for (let i = 0; i < SENDERS; i++) {
      const sender = await json('POST', '/auth/register', undefined, { username: `streamsender${i}`, password: 'a long password' });
      await json('POST', `/invites/${invite.code}`, sender.token);
      senders.push(sender.token);
    }
    await json('POST', `/channels/${channelId}/messages`, owner.token, { content: 'the message the log is grown with' });
    // The guild's log grown in SQL (bench/log.ts grow), then the server started again on it.
    await stop(first, true);
    await tool(['grow', first.dir, String(STREAM_EVENTS)]);
    const again = await spawnListening('infra/main.ts', { DATA_DIR: first.dir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }, first.dir);
    parley = { ...again, ca: await readFile(join(first.dir, 'tls', 'self-signed.crt'), 'utf8') };

    let turn = 0;
    const sends = () =>
      load(parley, `/api/v1/channels/${channelId}/messages`, {
        method: 'POST',
        body: JSON.stringify({ content: 'a message of a usual length, sent while an analyst reads the log' }),
        headers: () => ({ authorization: `Bearer ${senders[turn++ % senders.length]}` }),
      });
    // The server was just started: a first load warms it up and is not counted (measured first, the sends alone ran
    // slower than the same sends later, and a stream that cost them a third showed as costing nothing). The sends
    // alone are measured before and after the stream, and the stream is compared with their mean.
    await sends();
    const before = await sends();
    const reader = streamWhole(parley, guild.id, owner.token);
    const streaming = await sends();
    const streamed = await reader.stop();
    const after = await sends();
    const aloneReqPerS = (before.reqPerS + after.reqPerS) / 2;
    return { events: STREAM_EVENTS, alone: { before, after, reqPerS: aloneReqPerS }, streaming, ratio: streaming.reqPerS / aloneReqPerS, ...streamed };
  } finally {
    await stop(parley);
  }
}

/** Reads the guild's stream from the start as fast as it comes, counting lines, until stopped. */
function streamWhole(server: Process, guildId: string, token: string) {
  const dispatcher = new Agent({ connect: { ca: server.ca, servername: 'localhost' } });
  const abort = new AbortController();
  const started = performance.now();
  let lines = 0;
  let caughtUpS: number | null = null;
  const reading = (async () => {
    const response = await request(`${server.origin}/api/v10/guilds/${guildId}/events?follow=true`, {
      dispatcher,
      signal: abort.signal,
      headers: { authorization: `Bearer ${token}`, accept: 'application/x-ndjson' },
    });
    let rest = '';
    for await (const chunk of response.body) {
      const text = rest + (chunk as Buffer).toString('utf8');
      const parts = text.split('\n');
      rest = parts.pop()!;
      for (const line of parts) {
        if (!line) continue;
        lines += 1;
        if (caughtUpS === null && line.startsWith('{"type":"CaughtUp"')) caughtUpS = (performance.now() - started) / 1000;
      }
    }
  })().catch((error: unknown) => {
    if (!abort.signal.aborted) throw error;
  });
  return {
    async stop() {
      abort.abort();
      await reading;
      await dispatcher.close();
      return { streamed: lines, streamS: (performance.now() - started) / 1000, caughtUpS };
    },
  };
}

function tool(args: string[]): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/log.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`bench/log.ts ${args[0]} exited with ${code}`)))),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${JSON.stringify(await measureEventStream(process.argv.includes('--quick')))}\n`);
  process.exit(0);
}
