// A real discord.js Client logs in with a bot token, gets ready with its guild cached, and receives messageCreate for
// a message another account posts over HTTP.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, createBot, startTestServer } from '../support/server.js';

let server: TestServer;
let bot: ChildProcess | null = null;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  bot?.kill('SIGKILL');
  await server.close();
});

interface Report {
  event: string;
  data: any;
}

function startBot(token: string) {
  const reports: Report[] = [];
  const waiters: { event: string; resolve: (r: Report) => void }[] = [];
  let stderr = '';
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'discordBot.ts')], {
    env: { ...process.env, PARLEY_ORIGIN: server.origin, BOT_TOKEN: token, NODE_EXTRA_CA_CERTS: join(server.dataDir, 'tls', 'self-signed.crt') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let buffered = '';
  child.stdout!.on('data', (chunk) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      const report = JSON.parse(line) as Report;
      reports.push(report);
      for (const waiter of waiters.filter((w) => w.event === report.event)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(report);
      }
    }
  });
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const next = (event: string, timeoutMs = 20_000) =>
    new Promise<Report>((resolve, reject) => {
      const found = reports.find((r) => r.event === event);
      if (found) return resolve(found);
      const timer = setTimeout(() => reject(new Error(`no ${event} from the bot; reports ${JSON.stringify(reports)}; stderr ${stderr}`)), timeoutMs);
      waiters.push({
        event,
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
      });
    });
  return { child, next };
}

describe('discord.js compatibility', () => {
  it('logs in, is ready with its guild cached, and receives messageCreate for a message posted over HTTP', async () => {
    const app = await createBot(server);
    const owner = app.owner;
    const guild = await server.api('POST', '/guilds', { token: owner.token, body: { name: 'Compat' } });
    expect(guild.status).toBe(201);
    const channels = await server.api('GET', `/guilds/${guild.body.id}/channels`, { token: owner.token });
    const text = channels.body.find((c: { type: number }) => c.type === 0);
    const invite = await server.api('POST', `/channels/${text.id}/invites`, { token: owner.token, body: {} });
    expect(invite.status).toBe(200);
    const joined = await server.api('POST', `/invites/${invite.body.code}`, { token: app.token, scheme: 'Bot' });
    expect(joined.status).toBe(200);

    const running = startBot(app.token);
    bot = running.child;
    const ready = await running.next('ready');
    expect(ready.data.userId).toBe(app.id);
    expect(ready.data.guilds).toEqual([expect.objectContaining({ id: guild.body.id, name: 'Compat', me: app.id })]);
    expect(ready.data.guilds[0].channels).toContain(text.id);

    const sent = await server.api('POST', `/channels/${text.id}/messages`, { token: owner.token, body: { content: 'hello bot' } });
    expect(sent.status).toBe(200);
    const received = await running.next('messageCreate');
    expect(received.data).toEqual({ id: sent.body.id, content: 'hello bot', authorId: owner.id, channelId: text.id, guildId: guild.body.id });
  });
});
