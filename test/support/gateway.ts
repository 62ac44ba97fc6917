// A raw WebSocket client of the gateway for protocol tests: collects every payload and waits for the ones asked for.
import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { inflateSync } from 'node:zlib';
import { afterAll } from 'vitest';
import WebSocket from 'ws';
import { type TestServer, fileServer } from './server.js';

export interface Payload {
  op: number;
  d: any;
  s?: number | null;
  t?: string | null;
}

export interface GatewayClient {
  received: Payload[];
  /** With zlib-stream: every binary message as it came. */
  frames: Buffer[];
  send(payload: unknown): void;
  /** Sends a text frame as is. */
  sendRaw(text: string): void;
  /** Sends the payloads as text frames in a single write to the socket: the server reads them in one chunk. */
  sendInOneWrite(payloads: unknown[]): void;
  /** Stops reading the socket, as a client stuck elsewhere does; returns what starts reading it again. */
  stopReading(): () => void;
  /** Resolves with the first payload (already received or to come) matching the predicate. */
  next(predicate: (p: Payload) => boolean, timeoutMs?: number): Promise<Payload>;
  dispatch(t: string, timeoutMs?: number): Promise<Payload>;
  closed: Promise<{ code: number; reason: string }>;
  /** Closes with 1000, which ends the session. */
  close(): void;
  /** Closes with 4000, as clients do when they mean to RESUME. */
  drop(): void;
  /** IDENTIFY with the token and intents (and a presence when given); resolves with READY. */
  identify(token: string, intents: number, presence?: object): Promise<Payload>;
  lastSeq(): number;
}

/** A client frame (up to 64 KiB): FIN, the opcode, a mask and the masked payload, with `first` overriding the first byte. */
export function maskedFrame(payload: Buffer, first = 0x81): Buffer {
  const mask = randomBytes(4);
  const masked = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]));
  const length = payload.length < 126 ? Buffer.from([0x80 | payload.length]) : Buffer.from([0x80 | 126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([Buffer.from([first]), length, mask, masked]);
}

export async function connectGateway(server: Pick<TestServer, 'origin' | 'cert'>, query = 'v=10&encoding=json'): Promise<GatewayClient> {
  const url = `${server.origin.replace('https', 'wss')}/gateway?${query}`;
  const ws = new WebSocket(url, { ca: server.cert });
  const received: Payload[] = [];
  const waiters: { predicate: (p: Payload) => boolean; resolve: (p: Payload) => void }[] = [];
  const zlibChunks: Buffer[] = [];
  const frames: Buffer[] = [];
  let inflated = 0;
  ws.on('message', (data: Buffer, isBinary) => {
    let text: string;
    if (isBinary) {
      // zlib-stream: one deflate stream for the connection, each message ending in a sync flush. Inflating all that
      // came so far and keeping what is new yields this message's frame.
      zlibChunks.push(data);
      frames.push(data);
      const all = inflateSync(Buffer.concat(zlibChunks), { finishFlush: 2 }).toString();
      text = all.slice(inflated);
      inflated = all.length;
    } else text = data.toString();
    const payload = JSON.parse(text) as Payload;
    received.push(payload);
    for (const waiter of [...waiters]) {
      if (waiter.predicate(payload)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(payload);
      }
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const client: GatewayClient = {
    received,
    frames,
    send: (payload) => ws.send(JSON.stringify(payload)),
    sendRaw: (text) => ws.send(text),
    // ws writes each frame on its own; its socket (private, but the one the frames travel on) takes them all at once.
    sendInOneWrite: (payloads) =>
      (ws as unknown as { _socket: Duplex })._socket.write(Buffer.concat(payloads.map((p) => maskedFrame(Buffer.from(JSON.stringify(p)))))),
    stopReading() {
      const socket = (ws as unknown as { _socket: Duplex })._socket;
      socket.pause();
      return () => socket.resume();
    },
    next(predicate, timeoutMs = 5000) {
      const found = received.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting; received: ${received.map((p) => p.t ?? p.op).join(', ')}`)), timeoutMs);
        waiters.push({
          predicate,
          resolve: (p) => {
            clearTimeout(timer);
            resolve(p);
          },
        });
      });
    },
    dispatch: (t, timeoutMs) => client.next((p) => p.op === 0 && p.t === t, timeoutMs),
    closed,
    close: () => ws.close(1000),
    drop: () => ws.close(4000),
    async identify(token, intents, presence) {
      await client.next((p) => p.op === 10);
      client.send({
        op: 2,
        d: { token, intents, properties: { os: 'linux', browser: 'test', device: 'test' }, shard: [0, 1], ...(presence ? { presence } : {}) },
      });
      return client.dispatch('READY');
    },
    lastSeq: () => Math.max(0, ...received.map((p) => p.s ?? 0)),
  };
  return client;
}

/** The gateway clients one test file opens, all closed by closeAll when it ends. */
export function gatewayClients(server: () => Pick<TestServer, 'origin' | 'cert'>) {
  const opened: GatewayClient[] = [];
  const connect = async () => {
    const client = await connectGateway(server());
    opened.push(client);
    return client;
  };
  return {
    connect,
    /** A client identified with the token and intents (and an IDENTIFY presence when given), past its READY. */
    async session(token: string, intents: number, presence?: object) {
      const client = await connect();
      await client.identify(token, intents, presence);
      return client;
    },
    closeAll() {
      for (const client of opened.splice(0)) client.close();
    },
  };
}

/**
 * The real server for one test file (fileServer) and the gateway clients its tests open: the clients are closed after
 * the file's tests, before the server (vitest runs after-hooks last registered first).
 */
export async function fileGateway(env: Record<string, string> = {}) {
  const server = await fileServer(env);
  const gateway = gatewayClients(() => server);
  afterAll(() => gateway.closeAll());
  return { server, gateway };
}
