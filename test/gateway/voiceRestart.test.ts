// Voice states do not outlive the sessions that hold them, and sessions do not outlive their process: after a crash
// (SIGKILL) the embedded default starts by ending the voice states its previous run left, so nobody shows as sitting
// in a voice channel that no client is connected to.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectGateway } from '../support/gateway.js';
import { callProcess, killServerProcess, startServerProcess, stopServerProcesses } from '../support/process.js';
import type { TestServer } from '../support/server.js';

const dataDir = await mkdtemp(join(tmpdir(), 'parley-voice-restart-'));
afterAll(async () => {
  await stopServerProcesses();
  await rm(dataDir, { recursive: true, force: true });
});

const GUILDS = 1 << 0;
const GUILD_VOICE_STATES = 1 << 7;

describe('voice states across a crash', () => {
  it('ends, on the next start, the voice states the killed process left', async () => {
    const first = await startServerProcess(dataDir);
    const owner = (await callProcess(first, 'POST', '/auth/register', undefined, { username: 'voiceowner', password: 'correct horse battery' })).body;
    const guild = (await callProcess(first, 'POST', '/guilds', owner.token, { name: 'Restarts' })).body;
    const lounge = (await callProcess(first, 'POST', `/guilds/${guild.id}/channels`, owner.token, { name: 'Lounge', type: 2 })).body;
    const client = await connectGateway(first as unknown as TestServer);
    await client.identify(owner.token, GUILDS);
    client.send({ op: 4, d: { guild_id: guild.id, channel_id: lounge.id, self_mute: false, self_deaf: false } });
    expect((await client.dispatch('VOICE_STATE_UPDATE')).d.channel_id).toBe(lounge.id);
    await killServerProcess(first.child);

    const second = await startServerProcess(dataDir);
    const watcher = await connectGateway(second as unknown as TestServer);
    await watcher.identify(owner.token, GUILDS | GUILD_VOICE_STATES);
    expect((await watcher.dispatch('GUILD_CREATE')).d.voice_states).toEqual([]);
    watcher.close();
  });
});
