// Outbound delivery against a real local HTTPS server: with allowPrivate it is reached exactly as asked; without it,
// every private, loopback or metadata address is refused before any connection is made.
import { lookup } from 'node:dns/promises';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getDefaultAutoSelectFamily, setDefaultAutoSelectFamily } from 'node:net';
import selfsigned from 'selfsigned';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { checkOutboundUrl, OutboundUrlError, postForAnswer, postJson, type OutboundRefusal } from '../../infra/outbound.js';

/** Names under .dns.test answer what `answers` holds for them: a DNS the test controls, without the network. */
const answers = new Map<string, string[]>();
vi.mock('node:dns', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:dns')>();
  const lookup = (hostname: string, options: unknown, callback: (...args: unknown[]) => void) => {
    if (!hostname.endsWith('.dns.test')) return real.lookup(hostname, options as never, callback as never);
    const addresses = (answers.get(hostname) ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    process.nextTick(() => callback(null, addresses));
  };
  return { ...real, lookup };
});

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let tls: { cert: string; key: string };
let server: Server;
let port: number;
let received: Received[] = [];
let connections = 0;

async function startServer(host: string): Promise<{ server: Server; port: number }> {
  const instance = createServer(tls, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (req.url === '/hang') return;
      if (req.url === '/redirect') {
        res.writeHead(302, { location: `https://127.0.0.1:${port}/elsewhere` }).end();
        return;
      }
      if (req.url === '/declared-huge') {
        // Declares more than any limit, sends a little of it, and waits.
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 ** 40) }).write('{"type": 4');
        return;
      }
      if (req.url === '/endless') {
        // Never ends: only a client that stops reading after a bounded amount gets its status back.
        res.writeHead(200, { 'content-type': 'text/plain' }).write(Buffer.alloc(1024 * 1024, 'a'));
        return;
      }
      const status = Number(new URL(req.url ?? '/', 'https://x').searchParams.get('status') ?? '204');
      res.writeHead(status).end();
    });
  });
  instance.on('connection', () => connections++);
  await new Promise<void>((resolve) => instance.listen(0, host, resolve));
  return { server: instance, port: (instance.address() as AddressInfo).port };
}

async function stopServer(instance: Server): Promise<void> {
  instance.closeAllConnections();
  await new Promise<void>((resolve) => instance.close(() => resolve()));
}

beforeAll(async () => {
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    notAfterDate: new Date(Date.now() + 86_400_000),
    algorithm: 'sha256',
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2 as const, value: 'localhost' },
          { type: 7 as const, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  tls = { cert: pems.cert, key: pems.private };
  ({ server, port } = await startServer('127.0.0.1'));
});

afterAll(async () => {
  await stopServer(server);
});

beforeEach(() => {
  received = [];
  connections = 0;
});

const body = JSON.stringify({ id: '1', type: 3, token: 'corr', version: 1, data: { custom_id: 'é ok', component_type: 2 } });
const headers = {
  'Content-Type': 'application/json',
  'User-Agent': 'Service-Interactions/1.0',
  'X-Service-Timestamp': '1700000000',
  'X-Service-Signature': `v1=${'ab'.repeat(32)}`,
};
const dev = { allowPrivate: true, timeoutMs: 5_000 };
const prod = { allowPrivate: false, timeoutMs: 5_000 };

async function refusal(promise: Promise<unknown>): Promise<OutboundRefusal> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OutboundUrlError);
  return (error as OutboundUrlError).reason;
}

describe('postJson with allowPrivate (development)', () => {
  it('delivers exactly the body and headers and returns the status', async () => {
    await expect(postJson(`https://127.0.0.1:${port}/hook?status=202`, body, headers, dev)).resolves.toEqual({ status: 202 });
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/hook?status=202');
    expect(request.body).toBe(body);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toBe('Service-Interactions/1.0');
    expect(request.headers['x-service-timestamp']).toBe('1700000000');
    expect(request.headers['x-service-signature']).toBe(headers['X-Service-Signature']);
    expect(request.headers['content-length']).toBe(String(Buffer.byteLength(body)));
  });

  it('returns error statuses rather than rejecting', async () => {
    await expect(postJson(`https://127.0.0.1:${port}/hook?status=503`, body, headers, dev)).resolves.toEqual({ status: 503 });
    await expect(postJson(`https://127.0.0.1:${port}/hook?status=429`, body, headers, dev)).resolves.toEqual({ status: 429 });
  });

  it('does not follow redirects', async () => {
    await expect(postJson(`https://127.0.0.1:${port}/redirect`, body, headers, dev)).resolves.toEqual({ status: 302 });
    expect(received.map((request) => request.url)).toEqual(['/redirect']);
  });

  it('resolves with the status after a bounded part of an endless answer', async () => {
    await expect(postJson(`https://127.0.0.1:${port}/endless`, body, headers, { allowPrivate: true, timeoutMs: 2_000 })).resolves.toEqual({ status: 200 });
  });

  it('refuses an answer whose declared length is past the limit without waiting for it', async () => {
    const answer = await postForAnswer(`https://127.0.0.1:${port}/declared-huge`, body, headers, { allowPrivate: true, timeoutMs: 60_000, maxBytes: 1024 });
    expect({ status: answer.status, tooLarge: answer.tooLarge, read: answer.data.length }).toEqual({ status: 200, tooLarge: true, read: 0 });
  });

  it('times out against a server that never answers', async () => {
    const started = Date.now();
    const outcome = postJson(`https://127.0.0.1:${port}/hang`, body, headers, { allowPrivate: true, timeoutMs: 300 });
    await expect(outcome).rejects.toThrow(/timeout/);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(2_000);
    await expect(outcome).rejects.not.toBeInstanceOf(OutboundUrlError);
  });

  it('rejects with a network error when nothing listens, without the body or headers in the message', async () => {
    const closed = await startServer('127.0.0.1');
    await stopServer(closed.server);
    const error = await postJson(`https://127.0.0.1:${closed.port}/hook`, body, headers, dev).then(
      () => null,
      (caught: unknown) => caught as Error,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(OutboundUrlError);
    expect(error?.message).not.toContain(headers['X-Service-Signature']);
    expect(error?.message).not.toContain('corr');
  });

  it('resolves host names through both forms of the lookup callback', async () => {
    // Net asks for every address when it races families (the default) and for a single one otherwise.
    const { address } = await lookup('localhost');
    const local = await startServer(address);
    const previous = getDefaultAutoSelectFamily();
    try {
      for (const autoSelect of [true, false]) {
        setDefaultAutoSelectFamily(autoSelect);
        await expect(postJson(`https://localhost:${local.port}/hook?status=200`, body, headers, dev)).resolves.toEqual({ status: 200 });
      }
    } finally {
      setDefaultAutoSelectFamily(previous);
      await stopServer(local.server);
    }
    expect(received).toHaveLength(2);
  });
});

describe('outbound URLs without allowPrivate (production)', () => {
  const privateUrls = () => [
    `https://127.0.0.1:${port}/hook`,
    `https://localhost:${port}/hook`,
    'https://[::1]/',
    'https://10.1.2.3/',
    'https://169.254.169.254/latest/meta-data/',
    'https://192.168.0.1/',
    'https://172.16.0.1/',
    'https://100.64.0.1/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:7f00:1]/',
    'https://[fd00::1]/',
    'https://[fe80::1]/',
    'https://0.0.0.0/',
    'https://2130706433/',
    'https://224.0.0.1/',
    // Other spellings a URL parser turns into the same addresses.
    'https://[::]/',
    'https://[::127.0.0.1]/',
    'https://[::a9fe:a9fe]/',
    'https://[::ffff:a9fe:a9fe]/',
    'https://[64:ff9b::a9fe:a9fe]/',
    'https://[fc00::1]/',
    'https://127.1/',
    'https://0x7f000001/',
    'https://017700000001/',
  ];

  it('refuses private, loopback, link-local and metadata addresses at check time', async () => {
    for (const url of privateUrls()) {
      expect(await refusal(checkOutboundUrl(url, { allowPrivate: false })), url).toBe('private_address');
    }
  });

  it('refuses them at delivery time without connecting', async () => {
    for (const url of privateUrls()) {
      expect(await refusal(postJson(url, body, headers, prod)), url).toBe('private_address');
    }
    for (const autoSelect of [true, false]) {
      const previous = getDefaultAutoSelectFamily();
      setDefaultAutoSelectFamily(autoSelect);
      try {
        expect(await refusal(postJson(`https://localhost:${port}/hook`, body, headers, prod))).toBe('private_address');
      } finally {
        setDefaultAutoSelectFamily(previous);
      }
    }
    expect(connections).toBe(0);
    expect(received).toEqual([]);
  });

  it('refuses other schemes, malformed URLs, credentials and unresolvable hosts', async () => {
    expect(await refusal(checkOutboundUrl(`http://127.0.0.1:${port}/hook`, { allowPrivate: true }))).toBe('not_https');
    expect(await refusal(checkOutboundUrl('http://example.com/', { allowPrivate: false }))).toBe('not_https');
    expect(await refusal(checkOutboundUrl('ftp://example.com/', { allowPrivate: false }))).toBe('not_https');
    expect(await refusal(checkOutboundUrl('not a url', { allowPrivate: false }))).toBe('invalid_url');
    expect(await refusal(checkOutboundUrl('https://user:pass@93.184.215.14/', { allowPrivate: false }))).toBe('invalid_url');
    expect(await refusal(checkOutboundUrl('https://parley-bot.invalid/hook', { allowPrivate: false }))).toBe('unresolvable');
    expect(await refusal(checkOutboundUrl('https://parley-bot.invalid/hook', { allowPrivate: true }))).toBe('unresolvable');
    expect(await refusal(postJson(`http://127.0.0.1:${port}/hook`, body, headers, dev))).toBe('not_https');
    expect(await refusal(postJson('not a url', body, headers, prod))).toBe('invalid_url');
    expect(received).toEqual([]);
  });

  it('refuses names whose DNS answer holds a non-public address in any form, at check and at delivery time', async () => {
    const publicAddress = '93.184.215.14';
    for (const address of ['::7f00:1', '::ffff:7f00:1', '::', '0.0.0.0', '::ffff:a9fe:a9fe', '169.254.169.254', 'fe80::1', 'fc00::1', '100.64.0.1']) {
      answers.set('bot.dns.test', [publicAddress, address]);
      expect(await refusal(checkOutboundUrl('https://bot.dns.test/hook', { allowPrivate: false })), address).toBe('private_address');
      // Rebinding: public when the URL was set, private when a delivery connects.
      answers.set('bot.dns.test', [publicAddress]);
      await expect(checkOutboundUrl('https://bot.dns.test/hook', { allowPrivate: false })).resolves.toBeUndefined();
      answers.set('bot.dns.test', [address]);
      for (const autoSelect of [true, false]) {
        const previous = getDefaultAutoSelectFamily();
        setDefaultAutoSelectFamily(autoSelect);
        try {
          expect(await refusal(postJson('https://bot.dns.test/hook', body, headers, prod)), address).toBe('private_address');
        } finally {
          setDefaultAutoSelectFamily(previous);
        }
      }
    }
  });

  it('accepts public IP literals without DNS', async () => {
    await expect(checkOutboundUrl('https://93.184.215.14/', { allowPrivate: false })).resolves.toBeUndefined();
    await expect(checkOutboundUrl('https://[2606:4700:4700::1111]:8443/hook', { allowPrivate: false })).resolves.toBeUndefined();
  });

  it('accepts private addresses when allowed', async () => {
    await expect(checkOutboundUrl(`https://127.0.0.1:${port}/hook`, { allowPrivate: true })).resolves.toBeUndefined();
    await expect(checkOutboundUrl(`https://localhost:${port}/hook`, { allowPrivate: true })).resolves.toBeUndefined();
    await expect(checkOutboundUrl('https://[::1]/', { allowPrivate: true })).resolves.toBeUndefined();
  });
});
