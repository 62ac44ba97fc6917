// Crash safety: several clients send messages concurrently over HTTPS to the server running as its own process, the
// server is SIGKILLed while sends are in flight and started again on the same DATA_DIR; every acknowledged message is
// served, and the read models it built across the crash equal a rebuild from the log.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openEmbeddedLog } from '../../infra/roles.js';
import { SqliteReadStore } from '../../infra/readStore/sqlite.js';
import { ProgressBar, rebuildReadModels, snapshotReadModels } from '../../infra/replayTools.js';
import { allProjections } from '../../projections/index.js';
import { callProcess, killServerProcess, okFromProcess, startServerProcess, stopServerProcesses } from '../support/process.js';

const CLIENTS = 4;
/** Sends each client keeps in flight, each on its own connection. */
const LANES = 4;
/** The SIGKILL comes once this many sends were acknowledged… */
const KILL_AFTER = 150;
/** …or after this long, and no lane sends more than this many: the loops end whatever the server does. */
const KILL_DEADLINE_MS = 10_000;
const SENDS_PER_LANE = 100;
const dataDir = mkdtempSync(join(tmpdir(), 'parley-crash-'));

afterAll(async () => {
  await stopServerProcesses();
  rmSync(dataDir, { recursive: true, force: true });
});

const start = () => startServerProcess(dataDir);
const kill = killServerProcess;

const call = callProcess;
const ok = okFromProcess;

describe('crash safety', () => {
  it('serves every acknowledged message after a SIGKILL mid-stream, with read models equal to a rebuild from the log', async () => {
    const first = await start();
    const users: { user_id: string; token: string }[] = [];
    for (let i = 0; i < CLIENTS; i++)
      users.push(await ok(first, 'POST', '/auth/register', undefined, { username: `crash${process.pid}n${i}`, password: 'a long password' }));
    const guild = await ok(first, 'POST', '/guilds', users[0].token, { name: 'crash' });
    const channelId: string = guild.system_channel_id;
    const invite = await ok(first, 'POST', `/guilds/${guild.id}/invites`, users[0].token, { max_age: 0 });
    for (const user of users.slice(1)) await ok(first, 'POST', `/invites/${invite.code}`, user.token);

    const acknowledged: { id: string; content: string }[] = [];
    const refused: string[] = [];
    let inFlight = 0;
    let inFlightAtKill = 0;
    let killed: Promise<void> | null = null;
    const killFirst = () => {
      if (killed) return;
      inFlightAtKill = inFlight;
      killed = kill(first.child);
    };
    const deadline = setTimeout(killFirst, KILL_DEADLINE_MS);
    const lane = async (token: string, name: string) => {
      for (let i = 0; !killed && i < SENDS_PER_LANE; i++) {
        const content = `${name} message ${i}`;
        let response: Awaited<ReturnType<typeof call>>;
        inFlight += 1;
        try {
          response = await call(first, 'POST', `/channels/${channelId}/messages`, token, { content });
        } catch {
          // The connection died with the server: whether this send was stored is unknown, so it is not counted.
          return;
        } finally {
          inFlight -= 1;
        }
        if (response.status !== 200) refused.push(`${response.status} ${JSON.stringify(response.body)}`);
        else {
          acknowledged.push({ id: response.body.id, content });
          if (acknowledged.length >= KILL_AFTER) killFirst();
        }
      }
    };
    await Promise.all(users.flatMap((user, client) => Array.from({ length: LANES }, (_, i) => lane(user.token, `client ${client} lane ${i}`))));
    clearTimeout(deadline);
    killFirst();
    await killed;

    expect(refused).toEqual([]);
    expect(acknowledged.length).toBeGreaterThanOrEqual(KILL_AFTER);
    // The kill came while other sends were still being handled, not between two bursts.
    expect(inFlightAtKill).toBeGreaterThan(0);

    const second = await start();
    const lost: string[] = [];
    for (let i = 0; i < acknowledged.length; i += 16) {
      await Promise.all(
        acknowledged.slice(i, i + 16).map(async ({ id, content }) => {
          const response = await call(second, 'GET', `/channels/${channelId}/messages/${id}`, users[0].token);
          if (response.status !== 200 || response.body.content !== content)
            lost.push(`${id} "${content}": ${response.status} ${JSON.stringify(response.body)}`);
        }),
      );
    }
    expect(lost).toEqual([]);
    // The second server caught up with the whole log before it listened, and handled no write since.
    await kill(second.child);

    const store = await openEmbeddedLog(dataDir);
    const served = new SqliteReadStore(join(dataDir, 'read-models.db'));
    const rebuilt = new SqliteReadStore(join(dataDir, 'rebuilt-read-models.db'));
    try {
      await rebuildReadModels(store, rebuilt, allProjections, new ProgressBar(process.stderr, 'rebuild'));
      const incremental = await snapshotReadModels(served, allProjections);
      expect(incremental.messages.length).toBeGreaterThanOrEqual(acknowledged.length);
      expect(await snapshotReadModels(rebuilt, allProjections)).toEqual(incremental);
    } finally {
      await Promise.all([store.close(), served.close(), rebuilt.close()]);
    }
  });
});
