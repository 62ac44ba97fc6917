// Admission (http/admission.ts): past its limit a request is answered 503 with Retry-After at once, in its API
// version's error form, before its body is read; the operator's endpoints are never refused; what was admitted and
// answered 2xx is in the log, and a refused send appended nothing. The limit adapts: under an overload whose admitted
// requests wait longer than ADMISSION_TARGET_MS it falls from MAX_REQUESTS_IN_FLIGHT towards ADMISSION_MIN_IN_FLIGHT.
import { type Socket, connect as connectTcp } from 'node:net';
import { Duplex } from 'node:stream';
import { type TLSSocket, connect } from 'node:tls';
import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { type ApiResponse, type TestServer, apiClient, appendedByRequestsSince, fileServer } from '../support/server.js';
import { createGuild } from './guildSupport.js';
import { openEvents } from './guildEventsSupport.js';

const server = await fileServer({ MAX_REQUESTS_IN_FLIGHT: '2', ADMISSION_TARGET_MS: '0' });
const guild = await createGuild(server);
// Every request of the burst on a connection of its own, as many clients would send them.
const many = new Agent({ connect: { ca: server.cert, servername: 'localhost', timeout: 60_000 }, pipelining: 1 });
afterAll(() => many.close());
const client = apiClient(server.origin, many);

describe('a process over its admission limit', () => {
  it('refuses what is over it with 503 and Retry-After in each version’s error form, and keeps every send it answered', async () => {
    const before = await server.runtime.store.headPosition();
    const send = async (prefix: string, i: number) => ({
      prefix,
      response: await client.call('POST', `${prefix}/channels/${guild.channelId}/messages`, {
        token: guild.owner.token,
        body: { content: `burst ${prefix} ${i}` },
      }),
    });
    const [sends, health] = await Promise.all([
      Promise.all(Array.from({ length: 120 }, (_, i) => send(i % 2 ? '/api/v10' : '/api/v1', i))),
      Promise.all(Array.from({ length: 20 }, () => client.call('GET', '/healthz'))),
    ]);

    expect(new Set(health.map((h) => h.status))).toEqual(new Set([200]));
    expect(new Set(sends.map((s) => s.response.status))).toEqual(new Set([200, 503]));
    for (const { prefix, response } of sends.filter((s) => s.response.status === 503)) {
      expect(response.headers['retry-after']).toBe('1');
      expect(response.body).toEqual({ code: prefix === '/api/v10' ? 0 : 'SERVICE_UNAVAILABLE', message: expect.any(String) });
    }

    // Every send answered 200 reads back; the refused ones appended nothing.
    const admitted = sends.map((s) => s.response).filter((r) => r.status === 200);
    for (const message of admitted) {
      const read = await server.api('GET', `/channels/${guild.channelId}/messages/${message.body.id}`, { token: guild.owner.token });
      expect(read.body.content).toBe(message.body.content);
    }
    const created = (await appendedByRequestsSince(server, before)).filter((event) => event.type === 'MessageCreated');
    expect(created).toHaveLength(admitted.length);
  });

  it('answers over the limit before reading the body, while the operator’s endpoints are still answered', async () => {
    // Two requests admitted whose bodies never come fill the limit of 2.
    const held = [openRequest(server, postHead('/api/v1/auth/register', 100)), openRequest(server, postHead('/api/v1/auth/register', 100))];
    for (const request of held) request.socket.write('{"username":');
    // GET /gateway: no bucket of its own, so probes are refused by admission alone.
    const probeUntil = async (status: number) => {
      let probe: ApiResponse;
      let probes = 0;
      do probe = await client.api('GET', '/gateway');
      while (probe.status !== status && ++probes < 200);
      return probe;
    };
    const probe = await probeUntil(503);
    expect(probe.status).toBe(503);

    // Its headers alone: the answer comes though the 1000 bytes it announces never do.
    const refused = openRequest(server, postHead(`/api/v10/channels/${guild.channelId}/messages`, 1000, guild.owner.token));
    const answer = await refused.answer;
    expect(answer.head).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer.head).toMatch(/\r\nRetry-After: 1\r\n/i);
    expect(JSON.parse(answer.body)).toEqual({ code: 0, message: expect.any(String) });
    expect((await client.call('GET', '/healthz')).status).toBe(200);
    // Once the held requests go, their places are free again.
    for (const request of [...held, refused]) request.socket.destroy();
    expect((await probeUntil(200)).status).toBe(200);
  });

  it('gives back the place of an event stream once it streams: readers following a guild never fill the limit', async () => {
    const streams = await Promise.all(Array.from({ length: 2 }, () => openEvents(server, guild.id, { token: guild.owner.token, query: '?follow=true' })));
    try {
      for (const stream of streams) {
        expect(stream.status).toBe(200);
        await stream.until((item) => item.type === 'CaughtUp');
      }
      // Two streams following the log, on a limit of 2: requests are still admitted.
      expect((await client.api('GET', '/gateway')).status).toBe(200);
    } finally {
      for (const stream of streams) stream.close();
    }
  });
});

// A target of 1 ms that no send meets: every window of an overload shrinks the limit, down to the floor of 4.
const adaptive = await fileServer({ MAX_REQUESTS_IN_FLIGHT: '64', ADMISSION_MIN_IN_FLIGHT: '4', ADMISSION_TARGET_MS: '1' });
const room = await createGuild(adaptive);
// Each sender on a connection of its own. A client gives up after a minute (generous: a loaded machine takes seconds
// for a hundred handshakes), and a timeout fails the test.
const senders = new Agent({
  connect: { ca: adaptive.cert, servername: 'localhost', timeout: 60_000 },
  pipelining: 1,
  headersTimeout: 60_000,
  bodyTimeout: 60_000,
});
afterAll(() => senders.close());

describe('a process overloaded past what it serves within its target', () => {
  it('lowers its limit from the ceiling towards the floor, refusing the rest at once, and keeps every send it answered', async () => {
    const overloaded = apiClient(adaptive.origin, senders);
    const before = await adaptive.runtime.store.headPosition();
    // 100 senders at once, each sending its next as soon as it is answered, as the bench's overload does.
    const answers = (
      await Promise.all(
        Array.from({ length: 100 }, async (_, sender) => {
          const mine: { prefix: string; response: ApiResponse }[] = [];
          for (let i = 0; i < 3; i++) {
            const prefix = (sender + i) % 2 ? '/api/v10' : '/api/v1';
            const path = `${prefix}/channels/${room.channelId}/messages`;
            mine.push({ prefix, response: await overloaded.call('POST', path, { token: room.owner.token, body: { content: `load ${sender}.${i}` } }) });
          }
          return mine;
        }),
      )
    ).flat();

    expect(new Set(answers.map((a) => a.response.status))).toEqual(new Set([200, 503]));
    for (const { prefix, response } of answers.filter((a) => a.response.status === 503)) {
      expect(response.headers['retry-after']).toBe('1');
      expect(response.body).toEqual({ code: prefix === '/api/v10' ? 0 : 'SERVICE_UNAVAILABLE', message: expect.any(String) });
    }
    const admitted = answers.map((a) => a.response).filter((r) => r.status === 200);
    for (const message of admitted) {
      const read = await adaptive.api('GET', `/channels/${room.channelId}/messages/${message.body.id}`, { token: room.owner.token });
      expect(read.body.content).toBe(message.body.content);
    }
    const created = (await appendedByRequestsSince(adaptive, before)).filter((event) => event.type === 'MessageCreated');
    expect(created).toHaveLength(admitted.length);

    // The limit fell from the ceiling of 64 to the floor: of five requests held open at once, one is refused.
    const held = Array.from({ length: 5 }, () => openRequest(adaptive, postHead(`/api/v10/channels/${room.channelId}/messages`, 1000, room.owner.token)));
    const refused = await Promise.race(held.map((request) => request.answer));
    expect(refused.head).toMatch(/^HTTP\/1\.1 503 /);
    for (const request of held) request.socket.destroy();
  });
});

// One place, held by a request whose body never comes: everything else but the operator's endpoints is refused, on
// the server's 'request' event, before koa.
const METRICS_TOKEN = 'metrics-token-for-admission-tests-0123';
const full = await fileServer({ MAX_REQUESTS_IN_FLIGHT: '1', ADMISSION_TARGET_MS: '0', METRICS_TOKEN });
const fullRoom = await createGuild(full);

describe('a refusal made before koa', () => {
  it('answers in each version’s error form with Retry-After, appends nothing, is counted, and spares the operator’s endpoints', async () => {
    const held = await holdThePlace();
    const before = await full.runtime.store.headPosition();
    const send = (prefix: string) => openRequest(full, postHead(`${prefix}/channels/${fullRoom.channelId}/messages`, 2, fullRoom.owner.token));
    const forms = { '/api/v1': 'SERVICE_UNAVAILABLE', '/api': 'SERVICE_UNAVAILABLE', '/api/v9': 0, '/api/v10': 0 };
    const sends = Object.keys(forms).map(send);
    const answers = await Promise.all(sends.map((request) => request.answer));
    for (const [i, [prefix, code]] of Object.entries(forms).entries()) {
      const { head, body } = answers[i];
      expect(head, prefix).toMatch(/^HTTP\/1\.1 503 /);
      expect(head).toMatch(/\r\nRetry-After: 1\r\n/i);
      expect(head).toMatch(/\r\nContent-Type: application\/json\r\n/i);
      expect(head).not.toMatch(/\r\nConnection: close\r\n/i);
      expect(JSON.parse(body)).toEqual({ code, message: 'The server is busy: try again in 1 second' });
    }
    // A body too large to read on to keep the connection: the answer comes all the same, and then the connection ends.
    const large = openRequest(full, postHead(`/api/v1/channels/${fullRoom.channelId}/messages`, 1 << 20, fullRoom.owner.token));
    large.socket.write('x'.repeat(1000));
    const ended = new Promise((resolve) => large.socket.once('end', resolve));
    expect((await large.answer).head).toMatch(/^HTTP\/1\.1 503 [^]*\r\nConnection: close\r\n/i);
    await ended;

    // The operator's endpoints, the absolute form of a target among them, are still answered; the refusals are counted.
    const health = openRequest(full, 'GET https://localhost/healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect((await health.answer).head).toMatch(/^HTTP\/1\.1 200 /);
    const metrics = await full.call('GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    const counted = /parley_http_request_duration_seconds_count\{method="POST",route="unmatched",status="503"\} (\d+)/.exec(metrics.text);
    expect(Number(counted?.[1])).toBeGreaterThanOrEqual(answers.length + 1);
    expect(await appendedByRequestsSince(full, before)).toEqual([]);
    for (const request of [held, ...sends, large, health]) request.socket.destroy();
  });

  it('answers a connection refused again within Retry-After no sooner than that after its last refusal', async () => {
    const held = await holdThePlace();
    const { port } = new URL(full.origin);
    const socket = connect({ host: '127.0.0.1', port: Number(port), ca: full.cert, servername: 'localhost' });
    socket.on('error', () => {});
    // Each answer on the connection, as it completes, and when.
    const answered: { head: string; at: number }[] = [];
    let received = '';
    const next = () => new Promise<void>((resolve) => socket.once('answer', resolve));
    socket.on('data', (chunk) => {
      received += chunk;
      const end = received.indexOf('\r\n\r\n');
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(received)?.[1] ?? NaN);
      if (end < 0 || Buffer.byteLength(received.slice(end + 4)) < length) return;
      answered.push({ head: received.slice(0, end), at: performance.now() });
      received = '';
      socket.emit('answer');
    });
    const get = `GET /api/v10/gateway HTTP/1.1\r\nHost: localhost\r\n\r\n`;
    // The server runs in this process: its refusal of the first comes after `sent` on the same clock.
    const sent = performance.now();
    socket.write(get);
    await next();
    socket.write(get);
    await next();
    expect(answered.map((a) => a.head.split('\r\n')[0])).toEqual(['HTTP/1.1 503 Service Unavailable', 'HTTP/1.1 503 Service Unavailable']);
    // A second from the first refusal, less the loop's millisecond clock's rounding.
    expect(answered[1].at - sent).toBeGreaterThanOrEqual(990);
    socket.destroy();
    held.socket.destroy();
  });
});

// The adaptive limit at its default target, with room for one request: a handshake's wait decides while the limit has
// refused lately.
const handshaking = await fileServer({ ADMISSION_TARGET_MS: '200', MAX_REQUESTS_IN_FLIGHT: '1' });

describe('a connection whose TLS handshake waited on a saturated loop', () => {
  /** A connection whose handshake ends once the process's loop was held for 700 ms, as a flood of handshakes holds it. */
  const lateOnABusyLoop = () =>
    slowHandshake(handshaking, (deliver) => {
      const until = performance.now() + 700;
      while (performance.now() < until);
      deliver();
    });

  it('has its first request served while the process has not been over its limit: a busy start is not an overload', async () => {
    const socket = await lateOnABusyLoop();
    const answers = answersOn(socket);
    socket.write('GET /api/v10/gateway HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect((await answers.next()).head).toMatch(/^HTTP\/1\.1 200 /);
    socket.destroy();
  });

  it('has its first request served when the wait was the network’s and the loop was idle', async () => {
    // A slow link: the server's handshake answer reaches the client as late, while the process has nothing to do.
    const socket = await slowHandshake(handshaking, (deliver) => setTimeout(deliver, 700));
    const answers = answersOn(socket);
    socket.write('GET /api/v10/gateway HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect((await answers.next()).head).toMatch(/^HTTP\/1\.1 200 /);
    socket.destroy();
  });

  it('overtaken by a flood of handshakes, has its first request refused though the limit has not refused yet', async () => {
    let flood: Socket[] = [];
    // Accepted with none ahead of it; the flood comes while its handshake waits.
    const socket = await slowHandshake(handshaking, (deliver) => {
      void handshakeFlood(handshaking).then((opened) => {
        flood = opened;
        const until = performance.now() + 700;
        while (performance.now() < until);
        deliver();
      });
    });
    await expectFirstRefusedThenServed(socket);
    for (const tcp of flood) tcp.destroy();
  });

  it('accepted behind a flood of handshakes, has its first request refused though the limit has not refused yet', async () => {
    const flood = await handshakeFlood(handshaking);
    await expectFirstRefusedThenServed(await lateOnABusyLoop());
    for (const tcp of flood) tcp.destroy();
  });

  it('while the process is overloaded, has its first request refused at once with 503 and Retry-After, and its next one served', async () => {
    // The limit refuses a request (the held one has the only place), and the place is given back.
    const held = await holdThePlace(handshaking);
    held.socket.destroy();
    for (let probes = 0; (await handshaking.api('GET', '/gateway')).status !== 200 && probes < 200; probes++);
    await expectFirstRefusedThenServed(await lateOnABusyLoop());
  });
});

/**
 * 128 connections `target` has accepted and that never say hello: handshakes under way, a flood by admission's
 * measure. A plain HTTP request after them is the barrier: its answer (400) means the server has accepted it, and the
 * kernel queued them before it.
 */
async function handshakeFlood(target: TestServer): Promise<Socket[]> {
  const port = Number(new URL(target.origin).port);
  const flood = await Promise.all(
    Array.from({ length: 128 }, () => {
      const tcp = connectTcp({ host: '127.0.0.1', port });
      return new Promise<Socket>((resolve) => tcp.once('connect', () => resolve(tcp)));
    }),
  );
  const barrier = connectTcp({ host: '127.0.0.1', port });
  barrier.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n');
  await new Promise((resolve) => barrier.once('data', resolve));
  barrier.destroy();
  return flood;
}

/** A late handshake's first request is refused with 503 and Retry-After, and its next one served. */
async function expectFirstRefusedThenServed(socket: TLSSocket): Promise<void> {
  const answers = answersOn(socket);
  socket.write('GET /api/v10/gateway HTTP/1.1\r\nHost: localhost\r\n\r\n');
  const refused = await answers.next();
  expect(refused.head).toMatch(/^HTTP\/1\.1 503 /);
  expect(refused.head).toMatch(/\r\nRetry-After: 1\r\n/i);
  expect(JSON.parse(refused.body)).toEqual({ code: 0, message: 'The server is busy: try again in 1 second' });
  socket.write('GET /api/v10/gateway HTTP/1.1\r\nHost: localhost\r\n\r\n');
  expect((await answers.next()).head).toMatch(/^HTTP\/1\.1 200 /);
  socket.destroy();
}

/**
 * A TLS connection to `target` whose server's first answer (its handshake's) reaches the client only once `hold` calls
 * `deliver`: the server has accepted the connection and waits for the handshake's end meanwhile. Resolved when secure.
 */
function slowHandshake(target: TestServer, hold: (deliver: () => void) => void): Promise<TLSSocket> {
  const { port } = new URL(target.origin);
  const tcp = connectTcp({ host: '127.0.0.1', port: Number(port) });
  // A stream between TLS and the TCP connection, so what the server sends can be held on its way.
  let held = true;
  const link = new Duplex({
    read() {},
    write(chunk, _encoding, done) {
      tcp.write(chunk, done);
    },
    final(done) {
      tcp.end(done);
    },
  });
  tcp.on('data', (chunk: Buffer) => {
    if (!held) link.push(chunk);
    else {
      held = false;
      hold(() => link.push(chunk));
    }
  });
  tcp.on('end', () => link.push(null));
  tcp.on('error', () => link.destroy());
  const socket = connect({ socket: link, ca: target.cert, servername: 'localhost' });
  socket.on('error', () => {});
  return new Promise((resolve) => socket.once('secureConnect', () => resolve(socket)));
}

/** The answers on a connection, each once it has come whole, in order. */
function answersOn(socket: TLSSocket) {
  const waiting: ((answer: { head: string; body: string }) => void)[] = [];
  let received = '';
  socket.on('data', (chunk) => {
    received += chunk;
    const end = received.indexOf('\r\n\r\n');
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(received)?.[1] ?? NaN);
    if (end < 0 || Buffer.byteLength(received.slice(end + 4)) < length) return;
    const body = received.slice(end + 4, end + 4 + length);
    const head = received.slice(0, end + 2);
    received = received.slice(end + 4 + length);
    waiting.shift()?.({ head, body });
  });
  return { next: () => new Promise<{ head: string; body: string }>((resolve) => waiting.push(resolve)) };
}

/** The one place of `full` taken by a request whose body never comes; resolved once it holds it. */
async function holdThePlace(target: TestServer = full) {
  const held = openRequest(target, postHead('/api/v1/auth/register', 100));
  held.socket.write('{"username":');
  // Until its head is read the held request has no place: probe with a request that needs no body until refused.
  for (let probes = 0; (await target.api('GET', '/gateway')).status !== 503 && probes < 200; probes++);
  return held;
}

const postHead = (path: string, length: number, token?: string) =>
  `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${token ? `Authorization: Bearer ${token}\r\n` : ''}\r\n`;

/** A request whose head is sent at once and whose body is left to the caller; its answer once it has come whole. */
function openRequest(target: TestServer, head: string) {
  const { port } = new URL(target.origin);
  const socket = connect({ host: '127.0.0.1', port: Number(port), ca: target.cert, servername: 'localhost' });
  socket.on('error', () => {});
  socket.write(head);
  let received = '';
  const answer = new Promise<{ head: string; body: string }>((resolve) =>
    socket.on('data', (chunk) => {
      received += chunk;
      const end = received.indexOf('\r\n\r\n');
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(received)?.[1] ?? NaN);
      if (end >= 0 && Buffer.byteLength(received.slice(end + 4)) >= length) resolve({ head: received.slice(0, end + 2), body: received.slice(end + 4) });
    }),
  );
  return { socket, answer };
}
