// HTTP's own refusals, each in the spec's error format: a method the path does not take (405 with Allow), a body type
// the route does not take (415, where a `curl -d` without a JSON Content-Type used to lose its body), and what Node's
// parser refuses before the app sees a request (431 oversized headers, 408 too slow, 400 not HTTP).
import { connect } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { fileServer } from '../support/server.js';
import { createGuild, expectRefusedWithoutEvents } from './guildSupport.js';

const server = await fileServer({ HEADERS_TIMEOUT_MS: '1500', REQUEST_TIMEOUT_MS: '1500' });
const guild = await createGuild(server);

/** Writes `text` on a TLS connection and returns everything the server sent before it closed. */
function rawExchange(text: string | ((socket: ReturnType<typeof connect>) => void)): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(server.origin).port), ca: server.cert, servername: 'localhost' }, () =>
      typeof text === 'string' ? socket.write(text) : text(socket),
    );
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    socket.on('close', () => resolve(received));
    socket.on('error', () => {});
  });
}

const bodyOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));

describe('methods', () => {
  it('a method the path does not take answers 405 with Allow; an unknown path is still 404', async () => {
    const wrong = await server.api('PUT', `/channels/${guild.channelId}/messages`, { token: guild.owner.token, body: { content: 'x' } });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('GET, HEAD, POST');
    expect(wrong.body).toEqual({ code: 'METHOD_NOT_ALLOWED', message: expect.stringContaining('PUT') });
    const me = await server.api('DELETE', '/users/@me', { token: guild.owner.token });
    expect([me.status, me.headers.allow]).toEqual([405, 'GET, HEAD, PATCH']);
    expect((await server.api('GET', '/no/such/route')).status).toBe(404);
    // Routes are matched within their group (first segment and length), as the router matches paths: case-insensitively,
    // a trailing slash allowed.
    const page = await server.api('GET', `/Channels/${guild.channelId}/Messages/`, { token: guild.owner.token });
    expect([page.status, Array.isArray(page.body)]).toEqual([200, true]);
    expect((await server.api('GET', `/channelz/${guild.channelId}/messages`, { token: guild.owner.token })).status).toBe(404);
    expect((await server.api('GET', `/channels/${guild.channelId}/messages/x/y/z`, { token: guild.owner.token })).status).toBe(404);
    const slashed = await server.api('PUT', `/channels/${guild.channelId}/messages/`, { token: guild.owner.token, body: { content: 'x' } });
    expect([slashed.status, slashed.headers.allow]).toEqual([405, 'GET, HEAD, POST']);
    // The CDN at the origin's root answers the same way.
    const cdn = await server.call('POST', `/avatars/${guild.owner.id}/abc.png`);
    expect([cdn.status, cdn.headers.allow]).toEqual([405, 'GET, HEAD']);
  });
});

describe('body types', () => {
  it('a form body on a JSON route answers 415 and sends nothing (curl -d without -H content-type)', async () => {
    await expectRefusedWithoutEvents(
      server,
      () =>
        server.api('POST', `/channels/${guild.channelId}/messages`, {
          token: guild.owner.token,
          rawBody: '{"content":"hello"}',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });

  it('multipart on a route that takes no files answers 415; other types too', async () => {
    const form = new FormData();
    form.append('payload_json', JSON.stringify({ name: 'x' }));
    const multipart = new Response(form);
    const rawBody = Buffer.from(await multipart.arrayBuffer());
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', '/guilds', { token: guild.owner.token, rawBody, headers: { 'content-type': multipart.headers.get('content-type')! } }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    await expectRefusedWithoutEvents(
      server,
      () => server.api('POST', '/guilds', { token: guild.owner.token, rawBody: '<guild/>', headers: { 'content-type': 'application/xml' } }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    // The routes that take multipart still do.
    const sendForm = new FormData();
    sendForm.append('payload_json', JSON.stringify({ content: 'multipart still works' }));
    const send = new Response(sendForm);
    const sent = await server.api('POST', `/channels/${guild.channelId}/messages`, {
      token: guild.owner.token,
      rawBody: Buffer.from(await send.arrayBuffer()),
      headers: { 'content-type': send.headers.get('content-type')! },
    });
    expect([sent.status, sent.body.content]).toEqual([200, 'multipart still works']);
  });
});

describe("the parser's refusals", () => {
  it('headers over 16 KiB answer 431 with a JSON body', async () => {
    const raw = await rawExchange(`GET /api/v1/gateway HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(raw).toMatch(/^HTTP\/1\.1 431 /);
    expect(raw).toMatch(/content-type: application\/json/i);
    expect(bodyOf(raw)).toEqual({ code: 'REQUEST_HEADER_FIELDS_TOO_LARGE', message: expect.any(String) });
  });

  it('bytes that are not HTTP answer 400 with a JSON body', async () => {
    const raw = await rawExchange('HELLO THERE\r\n\r\n');
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(raw)).toEqual({ code: 'BAD_REQUEST', message: expect.any(String) });
  });

  it('a request that does not arrive in time answers 408 with a JSON body', async () => {
    const raw = await rawExchange((socket) => {
      // The headers arrive, the announced body never does: REQUEST_TIMEOUT_MS is 1.5 s here, checked every 2 s.
      socket.write(`POST /api/v1/guilds HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(raw)).toEqual({ code: 'REQUEST_TIMEOUT', message: expect.any(String) });
  });

  it('the server keeps serving after each', async () => {
    expect((await server.api('GET', '/gateway')).status).toBe(200);
  });
});
