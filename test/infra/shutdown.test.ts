// SIGTERM, as a supervisor or a rolling deploy sends it: the process stops accepting connections, lets the request in
// flight finish (its 2xx is durable), tells gateway clients to reconnect with a code they resume after, and exits 0
// by itself (SHUTDOWN_GRACE_MS bounds the wait for requests in flight); the data directory starts again with the
// finished request's message.
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { connectGateway } from '../support/gateway.js';
import { okFromProcess, startServerProcess, stopServerProcesses } from '../support/process.js';
import type { TestServer } from '../support/server.js';

const dataDir = mkdtempSync(join(tmpdir(), 'parley-shutdown-'));
afterAll(async () => {
  await stopServerProcesses();
  rmSync(dataDir, { recursive: true, force: true });
});

const api = okFromProcess;

describe('graceful shutdown', () => {
  it('finishes the request in flight, sends gateway clients off to resume, and exits 0', async () => {
    const server = await startServerProcess(dataDir, { SHUTDOWN_GRACE_MS: '5000' });
    const user = await api(server, 'POST', '/auth/register', undefined, { username: `term${process.pid}`, password: 'a long password' });
    const guild = await api(server, 'POST', '/guilds', user.token, { name: 'shutdown' });
    const gateway = await connectGateway({ origin: server.origin, cert: server.cert } as TestServer);
    await gateway.identify(user.token, 1 << 9);

    // A send whose body has not fully arrived when SIGTERM comes.
    const body = JSON.stringify({ content: 'sent across a SIGTERM' });
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(server.origin).port), ca: server.cert, servername: 'localhost' });
    await once(socket, 'secureConnect');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    const answered = once(socket, 'close');
    socket.write(
      `POST /api/v1/channels/${guild.system_channel_id}/messages HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${user.token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));

    const exited = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    const closed = await gateway.closed;
    expect(closed.code).toBe(4000);
    expect(gateway.received.some((p) => p.op === 7)).toBe(true);
    // No new connection is taken any more.
    await expect(request(`${server.origin}/api/v1/gateway`, { dispatcher: server.dispatcher })).rejects.toThrow();

    socket.write(body.slice(10));
    await answered;
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    const sent = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(sent.content).toBe('sent across a SIGTERM');

    const [code] = await exited;
    expect(code).toBe(0);
    expect(server.output()).toContain('"msg":"stopped"');

    const again = await startServerProcess(dataDir);
    const fetched = await api(again, 'GET', `/channels/${guild.system_channel_id}/messages/${sent.id}`, user.token);
    expect(fetched.content).toBe('sent across a SIGTERM');
  });

  it('exits on SIGTERM when whatever read its logs has gone (a broken stdout pipe)', async () => {
    const server = await startServerProcess(mkdtempSync(join(tmpdir(), 'parley-shutdown-pipe-')));
    server.child.stdout!.destroy();
    server.child.stderr!.destroy();
    const exited = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    const outcome = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('still running after 90 s'), 90_000))]);
    expect(outcome).toEqual([0, null]);
  });
});
