// Hostile request bodies and connections: deeply nested JSON, bodies over the limits (declared or chunked) and clients
// that drip their headers. Each is refused on its own, in the spec's error format; other clients are not affected and
// the data directory starts again with every acknowledged message.
import { connect } from 'node:tls';
import { Readable } from 'node:stream';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../http/body.js';
import { type TestServer, createBot, startTestServer, expectNothingAppendedSince } from '../support/server.js';
import { type TestGuild, createGuild, expectError, expectRefusedWithoutEvents, join as joinGuild } from './guildSupport.js';

const JSON_LIMIT = 64 * 1024;

/** `{"a":{"a":…}}` nested `depth` levels, written as text: JSON.stringify itself would overflow the stack. */
const nestedObject = (depth: number, leaf = '1') => `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;
const nestedArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

let dataDir: string;
let server: TestServer;
let guild: TestGuild;
let bot: { token: string; id: string };
let webhookUrl: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'parley-hostile-'));
  server = await startTestServer({ JSON_BODY_LIMIT: String(JSON_LIMIT), HEADERS_TIMEOUT_MS: '1500' }, dataDir);
  guild = await createGuild(server);
  const created = await createBot(server);
  await joinGuild(server, guild, created, 'Bot');
  bot = created;
  const webhook = await server.api('POST', `/channels/${guild.channelId}/webhooks`, { token: guild.owner.token, body: { name: 'hook' } });
  webhookUrl = `/webhooks/${webhook.body.id}/${webhook.body.token}`;
});
afterAll(async () => {
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
});

const messages = () => `/channels/${guild.channelId}/messages`;
const rawJson = (method: string, path: string, text: string, token = guild.owner.token) =>
  server.api(method, path, { token, rawBody: text, headers: { 'content-type': 'application/json' } });

function multipart(payloadJson: string, files: { name: string; data: Buffer }[] = []) {
  const boundary = 'hostileboundary';
  const parts: Buffer[] = [
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="payload_json"\r\nContent-Type: application/json\r\n\r\n${payloadJson}\r\n`),
  ];
  files.forEach((file, i) => {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="files[${i}]"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
    );
    parts.push(file.data, Buffer.from('\r\n'));
  });
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { rawBody: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe('deeply nested JSON', () => {
  const deepEmbed = `{"content":"x","embeds":[{"title":"t","extra":${nestedObject(5000)}}]}`;

  it('refuses a body nested thousands of levels deep with INVALID_FORM_BODY naming where, appending nothing', async () => {
    const before = await server.runtime.store.headPosition();
    const response = await rawJson('POST', messages(), deepEmbed);
    expectError(response, 400, 'INVALID_FORM_BODY');
    expect(response.body.errors[0].path).toMatch(/^embeds\.0\.extra(\.a)+$/);
    expectError(await rawJson('POST', messages(), nestedArray(10_000)), 400, 'INVALID_FORM_BODY');
    await expectNothingAppendedSince(server, before);
  });

  it('refuses it on every JSON route, and in a multipart payload_json', async () => {
    const routes: [string, string][] = [
      ['PATCH', '/users/@me'],
      ['POST', '/guilds'],
      ['PATCH', `/guilds/${guild.id}`],
      ['POST', `/guilds/${guild.id}/channels`],
      ['POST', `/guilds/${guild.id}/roles`],
      ['PATCH', `/channels/${guild.channelId}`],
      ['POST', `/channels/${guild.channelId}/invites`],
      ['POST', '/users/@me/channels'],
      ['POST', '/interactions/click'],
      ['POST', '/auth/register'],
    ];
    for (const [method, path] of routes) {
      await expectRefusedWithoutEvents(server, () => rawJson(method, path, `{"name":"x","extra":${nestedObject(3000)}}`), 400, 'INVALID_FORM_BODY');
    }
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', webhookUrl, { rawBody: deepEmbed, headers: { 'content-type': 'application/json' } }),
      400,
      'INVALID_FORM_BODY',
    );
    await expectRefusedWithoutEvents(
      server,
      () =>
        server.api('POST', `${webhookUrl}/github`, { rawBody: nestedArray(5000), headers: { 'content-type': 'application/json', 'x-codehost-event': 'push' } }),
      400,
      'INVALID_FORM_BODY',
    );
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', messages(), { token: guild.owner.token, ...multipart(deepEmbed) }),
      400,
      'INVALID_FORM_BODY',
    );
  });

  it('stores and serves nesting within the limit, and a deep send in the same instant as good ones fails alone', async () => {
    const shallow = await rawJson('POST', messages(), `{"content":"x","embeds":[{"title":"t","extra":${nestedObject(MAX_JSON_DEPTH - 4, '"leaf"')}}]}`);
    expect(shallow.status).toBe(200);
    const fetched = await server.api('GET', `${messages()}/${shallow.body.id}`, { token: guild.owner.token });
    let node = fetched.body.embeds[0].extra;
    for (let i = 1; i < MAX_JSON_DEPTH - 4; i++) node = node.a;
    expect(node.a).toBe('leaf');

    const sends = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => server.api('POST', messages(), { token: guild.owner.token, body: { content: `good ${i}` } })),
      rawJson('POST', messages(), deepEmbed),
      ...Array.from({ length: 10 }, (_, i) => server.api('POST', messages(), { token: bot.token, scheme: 'Bot', body: { content: `bot ${i}` } })),
    ]);
    expect(sends.map((s) => s.status)).toEqual([...Array(10).fill(200), 400, ...Array(10).fill(200)]);
  });
});

describe('bodies over the limits', () => {
  it('answers 413 to a declared Content-Length over the limit without waiting for the body', async () => {
    const { port } = new URL(server.origin);
    const socket = connect({ host: '127.0.0.1', port: Number(port), ca: server.cert, servername: 'localhost' });
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    await new Promise((resolve) => socket.once('secureConnect', resolve));
    socket.write(
      `POST /api/v1${messages()} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${guild.owner.token}\r\nContent-Type: application/json\r\nContent-Length: ${2 ** 30}\r\n\r\n{"content":"`,
    );
    await closed; // the server answers and ends the connection though a gigabyte was announced
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).code).toBe('REQUEST_ENTITY_TOO_LARGE');
  });

  it('cuts off a chunked JSON body once it passes the limit', async () => {
    let sent = 0;
    const endless = new Readable({
      read() {
        sent += 16 * 1024;
        // Bounded: a server that never stops reading fails the test instead of running forever.
        this.push(sent > 64 * 1024 * 1024 ? null : Buffer.alloc(16 * 1024, 0x20));
      },
    });
    const response = await request(`${server.origin}/api/v1${messages()}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${guild.owner.token}`, 'content-type': 'application/json' },
      body: endless,
      dispatcher: server.dispatcher,
    }).catch((error: Error) => error);
    if (response instanceof Error) throw response;
    expect(response.statusCode).toBe(413);
    expect(((await response.body.json()) as { code: string }).code).toBe('REQUEST_ENTITY_TOO_LARGE');
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });

  it('refuses a payload_json over the limit and a file over 25 MiB, and keeps serving', async () => {
    const bigPayload = JSON.stringify({ content: 'x', nonce: 'n'.repeat(JSON_LIMIT) });
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', messages(), { token: guild.owner.token, ...multipart(bigPayload) }),
      413,
      'REQUEST_ENTITY_TOO_LARGE',
    );
    const bigFile = { name: 'big.bin', data: Buffer.alloc(25 * 1024 * 1024 + 1) };
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', messages(), { token: guild.owner.token, ...multipart('{"content":"file"}', [bigFile]) }),
      413,
      'FILE_TOO_LARGE',
    );
    const after = await server.api('POST', messages(), { token: guild.owner.token, body: { content: 'still here' } });
    expect(after.status).toBe(200);
  });
});

describe('slow clients', () => {
  it('disconnects a client that drips its request headers, while others are served', async () => {
    const { port } = new URL(server.origin);
    const socket = connect({ host: '127.0.0.1', port: Number(port), ca: server.cert, servername: 'localhost' });
    const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now())));
    socket.on('error', () => {});
    await new Promise((resolve) => socket.once('secureConnect', resolve));
    const started = Date.now();
    const header = 'GET /api/v1/gateway HTTP/1.1\r\nHost: localhost\r\nX-Slow: ' + 'a'.repeat(1000);
    let i = 0;
    const drip = setInterval(() => socket.writable && socket.write(header[i++ % header.length]), 200);
    try {
      const other = await server.api('GET', '/gateway');
      expect(other.status).toBe(200);
      const end = await closed;
      // HEADERS_TIMEOUT_MS is 1.5 s here; Node checks it every 2 s.
      expect(end - started).toBeLessThan(10_000);
    } finally {
      clearInterval(drip);
    }
  });
});

describe('restart', () => {
  it('starts again on the same data directory and serves every acknowledged message', async () => {
    const acknowledged = await Promise.all(
      Array.from({ length: 20 }, (_, i) => server.api('POST', messages(), { token: guild.owner.token, body: { content: `kept ${i}` } })),
    );
    expect(acknowledged.every((r) => r.status === 200)).toBe(true);
    await server.close();
    server = await startTestServer({ JSON_BODY_LIMIT: String(JSON_LIMIT) }, dataDir);
    for (const sent of acknowledged) {
      const fetched = await server.api('GET', `${messages()}/${sent.body.id}`, { token: guild.owner.token });
      expect(fetched.body.content).toBe(sent.body.content);
    }
  });
});
