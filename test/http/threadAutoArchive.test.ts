// Auto-archiving through the real server: a thread idle for its auto_archive_duration is archived by the service
// (ThreadArchived, no actor, no audit-log entry), its sessions get THREAD_UPDATE, and it reads archived and is listed
// with the archived threads; a message postpones it; a restarted server on the same DATA_DIR still archives. Idle time
// is made by moving the service's clock port, and the sweep runs every 50 ms, so no test waits an hour.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Payload, gatewayClients } from '../support/gateway.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { type TestGuild, createGuild } from './guildSupport.js';

const GUILDS = 1 << 0;
const MINUTE_MS = 60_000;
const SWEEP_MS = 50;
const start = (dir: string) => startTestServer({ THREAD_ARCHIVE_SWEEP_MS: String(SWEEP_MS) }, dir);

let dataDir: string;
let server: TestServer;
const gateway = gatewayClients(() => server);
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'parley-auto-archive-'));
  server = await start(dataDir);
});
afterEach(() => {
  vi.restoreAllMocks();
  gateway.closeAll();
});
afterAll(async () => {
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** The service's clock `minutes` from the real time now on (until the test ends); answers that time. */
function clockAt(minutes: number): number {
  const at = Date.now() + minutes * MINUTE_MS;
  vi.spyOn(server.runtime.clock, 'now').mockReturnValue(at);
  return at;
}

/** A public thread with a one-hour auto_archive_duration, started `minutesAgo` by the service's clock. */
async function hourlyThread(guild: TestGuild, name: string, minutesAgo = 0): Promise<string> {
  if (minutesAgo) clockAt(-minutesAgo);
  const thread = await server.api('POST', `/channels/${guild.channelId}/threads`, {
    token: guild.owner.token,
    body: { name, type: 11, auto_archive_duration: 60 },
  });
  vi.restoreAllMocks();
  expect(thread.status).toBe(201);
  return thread.body.id;
}

const archivedUpdate = (threadId: string) => (p: Payload) => p.t === 'THREAD_UPDATE' && p.d.id === threadId && p.d.thread_metadata.archived === true;

async function expectArchivedBy(guild: TestGuild, threadId: string, at: number) {
  const token = guild.owner.token;
  const thread = await server.api('GET', `/channels/${threadId}`, { token });
  expect(thread.body.thread_metadata).toMatchObject({ archived: true, auto_archive_duration: 60 });
  expect(Date.parse(thread.body.thread_metadata.archive_timestamp)).toBe(at);
  const listed = await server.api('GET', `/channels/${guild.channelId}/threads/archived/public`, { token });
  expect(listed.body.threads.map((t: { id: string }) => t.id)).toContain(threadId);
  // The service's doing: no actor on the event, and no audit-log entry, as the widely used API shows none.
  const log = await server.runtime.store.readStream(`thread-${threadId}`);
  expect(log.filter((e) => e.type === 'ThreadArchived').map((e) => e.metadata.actorId)).toEqual([null]);
  const audit = await server.api('GET', `/guilds/${guild.id}/audit-logs`, { token });
  const entries = audit.body.audit_log_entries.filter((e: { target_id: string }) => e.target_id === threadId);
  expect(entries.map((e: { action_type: number }) => e.action_type)).toEqual([110]);
}

describe('auto-archiving', () => {
  it('archives a thread idle for its auto_archive_duration, telling its sessions; a message postpones it', async () => {
    const guild = await createGuild(server);
    const session = await gateway.session(guild.owner.token, GUILDS);
    const quiet = await hourlyThread(guild, 'Quiet', 59);
    const talked = await hourlyThread(guild, 'Talked in', 59);
    const message = await server.api('POST', `/channels/${talked}/messages`, { token: guild.owner.token, body: { content: 'still here' } });
    expect(message.status).toBe(200);

    // Two minutes on, the quiet thread has been idle an hour; the other's message was less than an hour ago.
    const first = clockAt(2);
    const update = await session.next(archivedUpdate(quiet), 5000);
    expect(update.d).toMatchObject({ id: quiet, parent_id: guild.channelId, thread_metadata: { archived: true, locked: false } });
    await expectArchivedBy(guild, quiet, first);
    await new Promise((resolve) => setTimeout(resolve, 4 * SWEEP_MS));
    expect((await server.api('GET', `/channels/${talked}`, { token: guild.owner.token })).body.thread_metadata.archived).toBe(false);
    expect(session.received.some(archivedUpdate(talked))).toBe(false);

    // An hour after the message it is idle too, and archived once.
    const second = clockAt(61);
    await session.next(archivedUpdate(talked), 5000);
    await expectArchivedBy(guild, talked, second);
    expect(session.received.filter(archivedUpdate(quiet))).toHaveLength(1);
  });

  it('archives after a restart on the same DATA_DIR a thread the new process never saw start', async () => {
    const guild = await createGuild(server);
    const thread = await hourlyThread(guild, 'Across restarts');
    await server.close();
    server = await start(dataDir);

    const session = await gateway.session(guild.owner.token, GUILDS);
    const at = clockAt(61);
    await session.next(archivedUpdate(thread), 5000);
    await expectArchivedBy(guild, thread, at);
  });
});
