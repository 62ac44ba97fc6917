// Malformed WebSocket frames close only the connection that sent them, with the protocol's close code; the process
// stays up and sessions already connected keep receiving their dispatches.
import { randomBytes } from 'node:crypto';
import { type TLSSocket, connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuild } from '../http/guildSupport.js';
import { type GatewayClient, connectGateway, maskedFrame } from '../support/gateway.js';
import { type TestServer, startTestServer } from '../support/server.js';

const GUILDS = 1 << 0;
const GUILD_MESSAGES = 1 << 9;

let server: TestServer;
let watcher: GatewayClient;
let channelId: string;
let ownerToken: string;
beforeAll(async () => {
  server = await startTestServer();
  const guild = await createGuild(server);
  channelId = guild.channelId;
  ownerToken = guild.owner.token;
  watcher = await connectGateway(server);
  await watcher.identify(ownerToken, GUILDS | GUILD_MESSAGES);
});
afterAll(async () => {
  watcher.close();
  await server.close();
});

/** A TLS socket past the WebSocket handshake, with every byte the server sent after its 101 answer. */
async function rawGateway(): Promise<{ socket: TLSSocket; received: () => Buffer; ended: Promise<void> }> {
  const { port } = new URL(server.origin);
  const socket = connect({ host: '127.0.0.1', port: Number(port), ca: server.cert, servername: 'localhost' });
  let buffered = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => (buffered = Buffer.concat([buffered, chunk])));
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  socket.write(
    `GET /gateway?v=10&encoding=json HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  await until(() => buffered.includes('\r\n\r\n'));
  expect(buffered.toString('latin1')).toMatch(/^HTTP\/1\.1 101/);
  const headerEnd = buffered.indexOf('\r\n\r\n') + 4;
  return { socket, received: () => buffered.subarray(headerEnd), ended };
}

async function until(condition: () => boolean, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The close code of the first close frame (opcode 8) among the server's frames (which are never masked). */
function closeCodeIn(data: Buffer): number | null {
  let offset = 0;
  while (offset + 2 <= data.length) {
    const opcode = data[offset] & 0x0f;
    let length = data[offset + 1] & 0x7f;
    let header = 2;
    if (length === 126) {
      length = data.readUInt16BE(offset + 2);
      header = 4;
    } else if (length === 127) {
      length = Number(data.readBigUInt64BE(offset + 2));
      header = 10;
    }
    if (offset + header + length > data.length) return null;
    if (opcode === 8) return data.readUInt16BE(offset + header);
    offset += header + length;
  }
  return null;
}

const hostile: [string, () => Buffer, number][] = [
  ['reserved bits set', () => maskedFrame(Buffer.from('{"op":1,"d":null}'), 0xf1), 1002],
  ['an unmasked client frame', () => Buffer.concat([Buffer.from([0x81, 2]), Buffer.from('{}')]), 1002],
  ['invalid UTF-8 in a text frame', () => maskedFrame(Buffer.from([0x7b, 0xff, 0xfe, 0x7d])), 1007],
  // 127 announces a 64-bit length: a gigabyte, of which nothing follows.
  ['a frame that declares a gigabyte', () => Buffer.concat([Buffer.from([0x82, 0xff]), bigLength(2 ** 30), randomBytes(4)]), 1009],
  [
    'a text frame over the inbound limit',
    () => Buffer.concat([Buffer.from([0x81, 0xff]), bigLength(16 * 1024 * 1024), randomBytes(4), Buffer.alloc(70_000)]),
    1009,
  ],
];

function bigLength(n: number): Buffer {
  const length = Buffer.alloc(8);
  length.writeBigUInt64BE(BigInt(n));
  return length;
}

describe('hostile gateway frames', () => {
  it.each(hostile)('closes only the connection that sent %s, with its close code', async (_name, frame, code) => {
    const raw = await rawGateway();
    await until(() => raw.received().length > 0); // HELLO
    raw.socket.write(frame());
    await until(() => closeCodeIn(raw.received()) !== null);
    expect(closeCodeIn(raw.received())).toBe(code);
    raw.socket.end();
    await raw.ended;

    // The process is up and the session already connected still gets its dispatches.
    const sent = await server.api('POST', `/channels/${channelId}/messages`, { token: ownerToken, body: { content: `after ${code}` } });
    expect(sent.status).toBe(200);
    const dispatch = await watcher.next((p) => p.t === 'MESSAGE_CREATE' && p.d.id === sent.body.id);
    expect(dispatch.d.content).toBe(`after ${code}`);
  });

  it('survives a connection reset in the middle of a frame', async () => {
    const raw = await rawGateway();
    await until(() => raw.received().length > 0);
    raw.socket.write(Buffer.from([0x81, 0xfe, 0x40]));
    raw.socket.destroy();
    await raw.ended;
    expect((await server.api('GET', '/gateway')).status).toBe(200);
  });

  it('refuses a deeply nested IDENTIFY as one without a token (4004) and keeps serving', async () => {
    const raw = await rawGateway();
    await until(() => raw.received().length > 0);
    raw.socket.write(maskedFrame(Buffer.from(`{"op":2,"d":${'['.repeat(20_000)}${']'.repeat(20_000)}}`)));
    await until(() => closeCodeIn(raw.received()) !== null);
    expect(closeCodeIn(raw.received())).toBe(4004);
    raw.socket.end();
    expect((await server.api('GET', '/gateway')).status).toBe(200);
  });
});
