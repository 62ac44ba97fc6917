// Uploads cut off at any byte, or aborted mid-file, on every route that reads a multipart body. `npm start`'s
// process runs in a child, as the issue's reporter ran it: an unhandled stream error ends that process, which this
// file sees as refused connections and a /healthz that no longer answers. Each cut upload is answered with a 4xx (or its
// connection closes), changes nothing, and the same valid upload succeeds afterwards on the same process.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { gatewayClients } from '../support/gateway.js';
import { startServerProcess, stopServerProcesses } from '../support/process.js';
import { apiClient, registerUser } from '../support/server.js';
import { interactionWorld, invoked } from './commandInteractionSupport.js';
import { stillImage } from './expressionSupport.js';
import { createGuild } from './guildSupport.js';

const dataDir = await mkdtemp(join(tmpdir(), 'parley-cut-'));
const METRICS_TOKEN = 'cut-uploads-metrics';
const child = await startServerProcess(dataDir, { METRICS_TOKEN });
const server = { origin: child.origin, cert: child.cert, ...apiClient(child.origin, child.dispatcher) };
const clients = gatewayClients(() => server);
afterAll(async () => {
  clients.closeAll();
  await stopServerProcesses();
  await rm(dataDir, { recursive: true, force: true });
});

const BOUNDARY = 'cutboundary';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;

interface Part {
  name: string;
  value: string | Buffer;
  /** Makes the part a file. */
  filename?: string;
}

function multipart(parts: Part[]): Buffer {
  const encoded = parts.flatMap(({ name, value, filename }) => [
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"\r\nContent-Type: application/octet-stream` : ''}\r\n\r\n`,
    ),
    Buffer.from(value),
    Buffer.from('\r\n'),
  ]);
  return Buffer.concat([...encoded, Buffer.from(`--${BOUNDARY}--\r\n`)]);
}

const payload = (value: object): Part => ({ name: 'payload_json', value: JSON.stringify(value) });
const file = (index: number, size: number): Part => ({ name: `files[${index}]`, value: Buffer.alloc(size, 97 + index), filename: `f${index}.txt` });

/**
 * Where to cut a body: every twentieth of it, and inside each boundary line, each part's headers, just past them and
 * inside each part's data, up to the closing delimiter's last "-" (the CRLF after it is optional: without it the body
 * is whole).
 */
function cutOffsets(body: Buffer): number[] {
  const last = body.length - '-\r\n'.length;
  const offsets = new Set<number>([1, last]);
  for (let k = 1; k < 20; k += 1) offsets.add(Math.floor((body.length * k) / 20));
  for (let at = body.indexOf(`--${BOUNDARY}`); at !== -1; at = body.indexOf(`--${BOUNDARY}`, at + 1)) {
    offsets.add(at + 4);
    const headersEnd = body.indexOf('\r\n\r\n', at);
    if (headersEnd === -1) continue;
    offsets.add(at + BOUNDARY.length + 20);
    offsets.add(headersEnd + 4);
    offsets.add(headersEnd + 10);
  }
  return [...offsets].filter((offset) => offset > 0 && offset <= last).sort((a, b) => a - b);
}

/** Offsets inside each file part's data. */
const midFileOffsets = (body: Buffer) =>
  [...body.toString('latin1').matchAll(/filename="[^"]*"\r\n[^\r]*\r\n\r\n/g)].map((match) => match.index! + match[0].length + 100);

interface Upload {
  method: 'POST' | 'PATCH';
  /** The route's template, as /metrics names it. */
  route: string;
  /** The path of each attempt (stickers spread theirs over guilds: each takes 5 creates per 10 s). */
  path: () => string;
  authorization?: string;
  body: Buffer;
  /** What the route changes, read before and after the cut uploads. */
  observe(): Promise<unknown>;
}

const { port } = new URL(child.origin);

/**
 * Sends the upload's headers and the first `sent` bytes of its body over a raw TLS connection: as a whole request of
 * that length ('complete'), or declaring the whole length and then ending ('ended') or resetting ('aborted') the
 * connection. Resolves with the answer's status, or null when the connection closed without one.
 */
function sendCut(upload: Upload, sent: number, how: 'complete' | 'ended' | 'aborted'): Promise<number | null> {
  const length = how === 'complete' ? sent : upload.body.length;
  const path = upload.path();
  const auth = upload.authorization ? `Authorization: ${upload.authorization}\r\n` : '';
  const head = `${upload.method} /api/v1${path} HTTP/1.1\r\nHost: localhost\r\n${auth}Content-Type: ${MULTIPART}\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: Number(port), ca: child.cert, servername: 'localhost' });
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`${upload.method} ${path} cut at ${sent} (${how}): neither answered nor closed`));
    }, 10_000);
    socket.on('secureConnect', () => {
      socket.write(head);
      socket.write(upload.body.subarray(0, sent));
      if (how === 'ended') socket.end();
      // Long enough for the server to be reading the file when the connection goes.
      if (how === 'aborted') setTimeout(() => socket.destroy(), 100);
    });
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer);
      resolve(status ? Number(status[1]) : null);
    });
  });
}

const isClientError = (status: number | null) => status !== null && status >= 400 && status < 500;

/** Every cut of the upload: whole requests of each cut length answer 4xx; ended or aborted connections never 5xx. */
async function sendEveryCut(upload: Upload) {
  const offsets = cutOffsets(upload.body);
  const [complete, ended, aborted] = await Promise.all([
    Promise.all(offsets.map((offset) => sendCut(upload, offset, 'complete'))),
    Promise.all(offsets.map((offset) => sendCut(upload, offset, 'ended'))),
    Promise.all(midFileOffsets(upload.body).map((offset) => sendCut(upload, offset, 'aborted'))),
  ]);
  expect(offsets.map((offset, i) => ({ offset, status: complete[i] })).filter(({ status }) => !isClientError(status))).toEqual([]);
  expect([...ended, ...aborted].filter((status) => status !== null && !isClientError(status))).toEqual([]);
  return complete.length + ended.length + aborted.length;
}

/** How many requests the process has finished with on the upload's route, answered or not. */
async function finishedOn(upload: Upload): Promise<number> {
  const metrics = await server.call('GET', '/metrics', { token: METRICS_TOKEN });
  const counts = [...metrics.text.matchAll(/^parley_http_request_duration_seconds_count\{(.*)\} (\d+)$/gm)];
  return counts
    .filter(([, labels]) => labels.includes(`method="${upload.method}"`) && labels.includes(`route="${upload.route}"`))
    .reduce((sum, [, , count]) => sum + Number(count), 0);
}

/** Cuts the upload everywhere, checks that nothing changed and the process is up, then sends it whole. */
async function survivesCuts(upload: Upload) {
  const [before, finished] = await Promise.all([upload.observe(), finishedOn(upload)]);
  const sent = await sendEveryCut(upload);
  // Each request ends, the aborted ones too: none is left waiting for the rest of its body, holding what came of it.
  await expect.poll(() => finishedOn(upload), { timeout: 5000 }).toBe(finished + sent);
  expect((await server.call('GET', '/healthz')).status).toBe(200);
  expect(await upload.observe()).toEqual(before);
  const whole = await server.api(upload.method, upload.path(), {
    rawBody: upload.body,
    headers: { 'content-type': MULTIPART, ...(upload.authorization ? { authorization: upload.authorization } : {}) },
  });
  expect(whole.status, whole.text).toBeLessThan(300);
  return whole;
}

const owner = await registerUser(server);
const guild = await createGuild(server, owner);
const history =
  (channelId: string, token = owner.token) =>
  async () =>
    (await server.api('GET', `/channels/${channelId}/messages`, { token })).body;
const twoFiles = (content: string) => [payload({ content, attachments: [{ id: 0 }, { id: 1 }] }), file(0, 1500), file(1, 700)];

describe('multipart uploads cut off at every point', () => {
  it('a message send and edit', async () => {
    const send: Upload = {
      method: 'POST',
      route: '/channels/:channelId/messages',
      path: () => `/channels/${guild.channelId}/messages`,
      authorization: `Bearer ${owner.token}`,
      body: multipart(twoFiles('sent whole')),
      observe: history(guild.channelId),
    };
    const sent = await survivesCuts(send);
    expect(sent.body).toMatchObject({
      content: 'sent whole',
      attachments: [
        { filename: 'f0.txt', size: 1500 },
        { filename: 'f1.txt', size: 700 },
      ],
    });
    const edit: Upload = {
      ...send,
      method: 'PATCH',
      route: '/channels/:channelId/messages/:messageId',
      path: () => `/channels/${guild.channelId}/messages/${sent.body.id}`,
      body: multipart([payload({ content: 'edited whole', attachments: [{ id: 0 }] }), file(0, 2000)]),
    };
    expect((await survivesCuts(edit)).body).toMatchObject({ content: 'edited whole', attachments: [{ filename: 'f0.txt', size: 2000 }] });
  });

  it('a webhook execution', async () => {
    const webhook = await server.api('POST', `/channels/${guild.channelId}/webhooks`, { token: owner.token, body: { name: 'hook' } });
    const execute: Upload = {
      method: 'POST',
      route: '/webhooks/:webhookId/:token',
      path: () => `/webhooks/${webhook.body.id}/${webhook.body.token}?wait=true`,
      body: multipart(twoFiles('executed whole')),
      observe: history(guild.channelId),
    };
    expect((await survivesCuts(execute)).body).toMatchObject({ content: 'executed whole', webhook_id: webhook.body.id });
  });

  it("an interaction's response, follow-up and response edit", async () => {
    const world = await interactionWorld(server, clients, [{ name: 'ping', description: 'Pong' }]);
    const d = await invoked(server, world, 'ping');
    const observe = history(world.guild.channelId, world.member.token);
    const respond: Upload = {
      method: 'POST',
      route: '/interactions/:interactionId/:token/callback',
      path: () => `/interactions/${d.id}/${d.token}/callback`,
      body: multipart([payload({ type: 4, data: { content: 'responded whole', attachments: [{ id: 0 }] } }), file(0, 1200)]),
      observe,
    };
    expect((await survivesCuts(respond)).status).toBe(204);
    const webhookPath = `/webhooks/${world.bot.applicationId}/${d.token}`;
    const followUp: Upload = {
      method: 'POST',
      route: '/webhooks/:webhookId/:token',
      path: () => `${webhookPath}?wait=true`,
      body: multipart(twoFiles('followed up whole')),
      observe,
    };
    expect((await survivesCuts(followUp)).body).toMatchObject({ content: 'followed up whole' });
    const edit: Upload = {
      method: 'PATCH',
      route: '/webhooks/:applicationId/:token/messages/:message',
      path: () => `${webhookPath}/messages/@original`,
      body: multipart([payload({ content: 'response edited whole', attachments: [{ id: 0 }] }), file(0, 900)]),
      observe,
    };
    expect((await survivesCuts(edit)).body).toMatchObject({ content: 'response edited whole' });
  });

  it('a sticker created from a form', async () => {
    const png = await stillImage(64, 64, 'png');
    const fields: Part[] = [
      { name: 'name', value: 'cut' },
      { name: 'description', value: 'Cut short' },
      { name: 'tags', value: 'cut' },
      { name: 'file', value: png, filename: 'cut.png' },
    ];
    const body = multipart(fields);
    // Each guild takes 5 creates per 10 s: enough guilds for every attempt sendEveryCut and survivesCuts make.
    const attempts = cutOffsets(body).length * 2 + midFileOffsets(body).length + 1;
    const guilds = await Promise.all(Array.from({ length: Math.ceil(attempts / 5) }, () => createGuild(server, owner)));
    let attempt = 0;
    const path = () => `/guilds/${guilds[Math.floor(attempt++ / 5)].id}/stickers`;
    const stickers = async () => Promise.all(guilds.map(async (g) => (await server.api('GET', `/guilds/${g.id}/stickers`, { token: owner.token })).body));
    const create: Upload = { method: 'POST', route: '/guilds/:guildId/stickers', path, authorization: `Bearer ${owner.token}`, body, observe: stickers };
    expect((await survivesCuts(create)).body).toMatchObject({ name: 'cut', format_type: 1 });
  });
});

describe("the issue's upload, cut inside a file part, sent without credentials", () => {
  const reported = Buffer.from('--x\r\nContent-Disposition: form-data; name="files[0]"; filename="a.txt"\r\n\r\nhi');

  it('is refused on every multipart route, and the process stays up', async () => {
    const routes: [Upload['method'], string, number][] = [
      ['POST', '/interactions/1/not-a-token/callback', 404],
      ['POST', '/webhooks/1/not-a-token?wait=true', 404],
      ['PATCH', '/webhooks/1/not-a-token/messages/@original', 404],
      ['POST', `/channels/${guild.channelId}/messages`, 401],
      ['PATCH', `/channels/${guild.channelId}/messages/1`, 401],
      ['POST', `/guilds/${guild.id}/stickers`, 401],
    ];
    const headers = { 'content-type': 'multipart/form-data; boundary=x' };
    const answers = await Promise.all(
      routes.map(async ([method, path]) => [method, path, (await server.api(method, path, { rawBody: reported, headers })).status]),
    );
    // Each is refused for its missing or wrong credentials, before its body is read: not 400 for the body.
    expect(answers).toEqual(routes);
    expect((await server.call('GET', '/healthz')).status).toBe(200);
  });
});
