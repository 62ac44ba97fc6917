// A body over JSON_BODY_LIMIT is answered 413 before it is read, and the connection closes after the answer; the
// server reads on (and discards) what the client is still sending, for a bounded time and size, so the client reads
// the 413 instead of a reset (http/lingeringClose.ts). Node's fetch and discord.js's REST keep writing their body
// until they see the answer: both must see the 413 and its JSON.
import { createRequire } from 'node:module';
import { connect } from 'node:tls';
import { DiscordAPIError, REST } from '@discordjs/rest';
import { afterAll, describe, expect, it } from 'vitest';
import { LINGER } from '../../http/lingeringClose.js';
import { type TestServer, fileServer } from '../support/server.js';

const server: TestServer = await fileServer();

/** 30 MiB of JSON: well over the default JSON_BODY_LIMIT of 8 MiB. */
const hugeRegistration = JSON.stringify({ username: 'huge', password: 'x'.repeat(30 * 1024 * 1024) });

// discord.js's REST brings its own undici, whose Agent must trust the server's self-signed certificate.
type RestDispatcher = Parameters<REST['setAgent']>[0];
const { Agent } = createRequire(createRequire(import.meta.url).resolve('@discordjs/rest'))('undici') as {
  Agent: new (options: { connect: { ca: string; servername: string } }) => RestDispatcher & { close(): Promise<void> };
};
const agent = new Agent({ connect: { ca: server.cert, servername: 'localhost' } });
afterAll(() => agent.close());

describe('a body over the limit', () => {
  it('answers 413 to a client that writes on before it reads, and reads on what it sends', async () => {
    const { port } = new URL(server.origin);
    const socket = connect({ host: '127.0.0.1', port: Number(port), ca: server.cert, servername: 'localhost' });
    await new Promise((resolve) => socket.once('secureConnect', resolve));
    // The client reads nothing until its writes are done: the answer waits, unread, while the body goes on.
    socket.pause();
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    const closed = new Promise<Error | null>((resolve) => {
      socket.on('error', resolve);
      socket.on('close', () => resolve(null));
    });
    socket.write(`POST /api/v1/auth/register HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${30 * 1024 * 1024}\r\n\r\n`);
    // Half of what the server reads on after its answer: all of it is taken, none of it meets a closed socket.
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    for (let sent = 0; sent < LINGER.bytes / 2 && !socket.destroyed; sent += chunk.length) {
      if (!socket.write(chunk)) await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), closed]);
    }
    socket.resume();
    expect(await closed).toBeNull();
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ code: 'REQUEST_ENTITY_TOO_LARGE', message: expect.any(String) });
  });

  it('reaches Node’s fetch as the 413 and its JSON, each time', async () => {
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${server.origin}/api/v1/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: hugeRegistration,
        // Node's fetch takes the tests' undici Agent, whose types are another copy of its own.
        dispatcher: server.dispatcher as unknown as RequestInit['dispatcher'],
      });
      expect(response.status).toBe(413);
      expect(await response.json()).toEqual({ code: 'REQUEST_ENTITY_TOO_LARGE', message: expect.any(String) });
    }
  });

  it('reaches discord.js’s REST as a DiscordAPIError with status 413', async () => {
    const rest = new REST({ api: `${server.origin}/api`, retries: 0 }).setAgent(agent);
    for (let i = 0; i < 3; i++) {
      const error = await rest
        .post('/auth/register', { body: hugeRegistration, passThroughBody: true, auth: false, headers: { 'content-type': 'application/json' } })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DiscordAPIError);
      expect((error as DiscordAPIError).status).toBe(413);
      expect((error as DiscordAPIError).rawError).toMatchObject({ code: 40005, message: expect.any(String) });
    }
  });
});
