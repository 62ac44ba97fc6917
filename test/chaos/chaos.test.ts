// Chaos: one server process under a mixed load of well-formed work (sends, edits, reactions, guild edits,
// gateway sessions) while hostile clients send truncated multipart bodies, abort bodies, drip headers and send
// malformed gateway frames. No well-formed request may get a 5xx, the process must stay up, and every write it
// acknowledged must be readable afterwards, and again after a SIGKILL and a restart on the same DATA_DIR.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { connectGateway } from '../support/gateway.js';
import { type ServerProcess, callProcess, killServerProcess, okFromProcess, startServerProcess, stopServerProcesses } from '../support/process.js';

const LOAD_MS = 8_000;
/** What the load must have done, however long a loaded machine takes, up to LOAD_BOUND_MS. */
const MIN_HOSTILE_ROUNDS = 10;
const MIN_ACKED = 20;
const LOAD_BOUND_MS = 60_000;
const dataDir = await mkdtemp(join(tmpdir(), 'parley-chaos-'));
afterAll(async () => {
  await stopServerProcesses();
  await rm(dataDir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface World {
  owner: { id: string; token: string };
  member: { id: string; token: string };
  guildId: string;
  channelId: string;
  webhook: { id: string; token: string };
  target: string;
}

async function setUp(server: ServerProcess): Promise<World> {
  const account = async (name: string) => {
    const { user_id, token } = await okFromProcess(server, 'POST', '/auth/register', undefined, {
      username: `${name}${process.pid}`,
      password: 'correct horse battery',
    });
    return { id: user_id as string, token: token as string };
  };
  const [owner, member] = await Promise.all([account('owner'), account('member')]);
  const guild = await okFromProcess(server, 'POST', '/guilds', owner.token, { name: 'Chaos' });
  const invite = await okFromProcess(server, 'POST', `/channels/${guild.system_channel_id}/invites`, owner.token, { max_age: 0 });
  await okFromProcess(server, 'POST', `/invites/${invite.code}`, member.token);
  const webhook = await okFromProcess(server, 'POST', `/channels/${guild.system_channel_id}/webhooks`, owner.token, { name: 'hook' });
  const target = await okFromProcess(server, 'POST', `/channels/${guild.system_channel_id}/messages`, owner.token, { content: 'react here' });
  return { owner, member, guildId: guild.id, channelId: guild.system_channel_id, webhook: { id: webhook.id, token: webhook.token }, target: target.id };
}

/** What the server acknowledged, to be read back later. */
interface Acknowledged {
  /** Message id → its content as last acknowledged. */
  messages: Map<string, string>;
  roles: Set<string>;
  guildNames: string[];
  reactors: Set<string>;
}

const multipart = (boundary: string, payload: object) =>
  Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="payload_json"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(payload)}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="files[0]"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n${'x'.repeat(4096)}\r\n--${boundary}--\r\n`,
  );

/** Sends the head and the first `cut` bytes of a body that declares its whole length, then ends or destroys the socket. */
function rawRequest(server: ServerProcess, head: string, body: Buffer, cut: number, how: 'end' | 'destroy' | 'drip'): Promise<void> {
  const { port } = new URL(server.origin);
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: Number(port), ca: server.cert, servername: 'localhost' });
    const done = () => resolve();
    socket.on('error', done);
    socket.on('close', done);
    socket.on('data', () => undefined);
    const send = async () => {
      if (how === 'drip') {
        // Headers a byte at a time, then gone: the server's header timeout, or this, ends it.
        for (const byte of head.slice(0, 40)) {
          if (socket.destroyed) return;
          socket.write(byte);
          await sleep(50);
        }
        socket.destroy();
        return;
      }
      socket.write(head);
      socket.write(body.subarray(0, cut));
      if (how === 'end') socket.end();
      else setTimeout(() => socket.destroy(), 20);
    };
    // Writes to a closed socket fail through its 'error' event, never as a rejection.
    socket.once('secureConnect', () => void send());
  });
}

async function hostile(server: ServerProcess, world: World, going: () => boolean, rounds: { hostile: number }): Promise<number> {
  let sent = 0;
  const boundary = 'chaosboundary';
  const body = multipart(boundary, { content: 'hostile' });
  const heads = [
    `POST /api/v1/channels/${world.channelId}/messages HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${world.member.token}\r\n`,
    `POST /api/v1/webhooks/${world.webhook.id}/${world.webhook.token}?wait=true HTTP/1.1\r\nHost: localhost\r\n`,
    `POST /api/v1/webhooks/1/not-a-token?wait=true HTTP/1.1\r\nHost: localhost\r\n`,
    `POST /api/v1/interactions/1/not-a-token/callback HTTP/1.1\r\nHost: localhost\r\n`,
  ];
  // A body cut short either says so (its declared length is what was sent: a whole request of a broken multipart
  // body) or not (the connection ends before the declared length).
  const head = (round: number, length: number) =>
    `${heads[round % heads.length]}Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${length}\r\n\r\n`;
  const json = Buffer.from(JSON.stringify({ content: 'never finished' }));
  const jsonHead = `POST /api/v1/channels/${world.channelId}/messages HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${world.member.token}\r\nContent-Type: application/json\r\nContent-Length: ${json.length + 100}\r\n\r\n`;
  const frames = ['not json', '{"op":2,"d":null}', '{"op":99}', JSON.stringify({ op: 2, d: { token: 'x'.repeat(5000) } }), '[]', '{"op":1,"d":"seq"}'];
  while (going()) {
    const round = sent++;
    rounds.hostile = sent;
    const cut = Math.floor((body.length * ((round * 7) % 20)) / 20);
    await Promise.all([
      rawRequest(server, head(round, round % 2 === 0 ? cut : body.length), body, cut, round % 3 === 0 ? 'destroy' : 'end'),
      rawRequest(server, jsonHead, json, Math.floor(json.length / 2), 'destroy'),
      round % 10 === 0 ? rawRequest(server, jsonHead, json, 0, 'drip') : Promise.resolve(),
      new Promise<void>((resolve) => {
        const ws = new WebSocket(`${server.origin.replace('https', 'wss')}/gateway?v=10&encoding=json`, { ca: server.cert });
        ws.on('error', () => resolve());
        ws.on('close', () => resolve());
        ws.on('open', () => {
          ws.send(frames[round % frames.length]);
          if (round % 4 === 0) ws.send(Buffer.from([0xff, 0x00, 0x13]));
          setTimeout(() => ws.terminate(), 100);
        });
      }),
    ]);
  }
  return sent;
}

/** Well-formed work; every status is kept, and what was acknowledged is recorded. */
async function load(server: ServerProcess, world: World, going: () => boolean, statuses: number[], acked: Acknowledged): Promise<void> {
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const response = await callProcess(server, method, path, token, body);
    statuses.push(response.status);
    return response;
  };
  const sender = async (user: { token: string }, lane: number) => {
    for (let i = 0; going(); i++) {
      const sent = await call('POST', `/channels/${world.channelId}/messages`, user.token, { content: `lane ${lane} message ${i}` });
      if (sent.status !== 200) continue;
      acked.messages.set(sent.body.id, sent.body.content);
      const edited = await call('PATCH', `/channels/${world.channelId}/messages/${sent.body.id}`, user.token, { content: `lane ${lane} message ${i} edited` });
      if (edited.status === 200) acked.messages.set(sent.body.id, edited.body.content);
    }
  };
  const reactor = async () => {
    const emojis = ['👍', '🎉', '🔥', '✅', '👀', '🚀'];
    for (let i = 0; going(); i++) {
      const emoji = emojis[i % emojis.length];
      const user = i % 2 === 0 ? world.owner : world.member;
      const put = await call('PUT', `/channels/${world.channelId}/messages/${world.target}/reactions/${encodeURIComponent(emoji)}/@me`, user.token);
      if (put.status === 204) acked.reactors.add(`${emoji}:${user.id}`);
    }
  };
  const guildEditor = async () => {
    for (let i = 0; going(); i++) {
      if (i % 2 === 0) {
        const role = await call('POST', `/guilds/${world.guildId}/roles`, world.owner.token, { name: `role ${i}` });
        if (role.status === 200) acked.roles.add(role.body.id);
      } else {
        const edited = await call('PATCH', `/guilds/${world.guildId}`, world.owner.token, { name: `Chaos ${i}` });
        if (edited.status === 200) acked.guildNames.push(edited.body.name);
      }
    }
  };
  const sessions = async (user: { token: string }) => {
    while (going()) {
      const gateway = await connectGateway(server);
      await gateway.identify(user.token, 513);
      await gateway.dispatch('GUILD_CREATE');
      gateway.close();
      await gateway.closed;
    }
  };
  await Promise.all([
    sender(world.owner, 1),
    sender(world.member, 2),
    sender(world.member, 3),
    reactor(),
    guildEditor(),
    sessions(world.owner),
    sessions(world.member),
  ]);
}

async function expectAcknowledgedReadable(server: ServerProcess, world: World, acked: Acknowledged): Promise<void> {
  const token = world.owner.token;
  for (const [id, content] of acked.messages) {
    const read = await callProcess(server, 'GET', `/channels/${world.channelId}/messages/${id}`, token);
    expect({ id, status: read.status, content: read.body?.content }).toEqual({ id, status: 200, content });
  }
  const roles = (await okFromProcess(server, 'GET', `/guilds/${world.guildId}/roles`, token)) as { id: string }[];
  expect(roles.map((r) => r.id)).toEqual(expect.arrayContaining([...acked.roles]));
  if (acked.guildNames.length) expect((await okFromProcess(server, 'GET', `/guilds/${world.guildId}`, token)).name).toBe(acked.guildNames.at(-1));
  for (const key of acked.reactors) {
    const [emoji, userId] = key.split(':');
    const users = (await okFromProcess(
      server,
      'GET',
      `/channels/${world.channelId}/messages/${world.target}/reactions/${encodeURIComponent(emoji)}`,
      token,
    )) as { id: string }[];
    expect(users.map((u) => u.id)).toContain(userId);
  }
}

describe('chaos', () => {
  it('serves well-formed work without a 5xx among hostile clients, and keeps every acknowledged write across a SIGKILL', async () => {
    const server = await startServerProcess(dataDir);
    const world = await setUp(server);
    const statuses: number[] = [];
    const acked: Acknowledged = { messages: new Map(), roles: new Set(), guildNames: [], reactors: new Set() };
    // The load lasts LOAD_MS, and on a loaded machine until enough of each kind was done, within an outer bound.
    const started = Date.now();
    const rounds = { hostile: 0 };
    const going = () =>
      Date.now() - started < LOAD_MS || ((rounds.hostile <= MIN_HOSTILE_ROUNDS || acked.messages.size <= MIN_ACKED) && Date.now() - started < LOAD_BOUND_MS);
    const [hostileRequests] = await Promise.all([hostile(server, world, going, rounds), load(server, world, going, statuses, acked)]);

    expect(server.child.exitCode).toBeNull();
    expect((await request(`${server.origin}/healthz`, { dispatcher: server.dispatcher })).statusCode).toBe(200);
    expect(hostileRequests).toBeGreaterThan(MIN_HOSTILE_ROUNDS);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.filter((s) => s >= 300 && s !== 429)).toEqual([]);
    expect(acked.messages.size).toBeGreaterThan(MIN_ACKED);
    await expectAcknowledgedReadable(server, world, acked);

    await killServerProcess(server.child);
    const restarted = await startServerProcess(dataDir);
    await expectAcknowledgedReadable(restarted, world, acked);
  });
});
