// The CDN and image uploads against hostile files, through the real HTTPS API: files that are not images (SVG, HTML,
// XML, text claiming to be a PNG, a truncated PNG) are never run as documents nor answered 5xx; decompression bombs
// (small files of huge pixels) are refused at upload or when asked to be resized; renders fit a bounded box; and image
// work is queued within bounds, refused past them, without holding up the rest of the server.
import { availableParallelism } from 'node:os';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, type TestServer, registerUser, startTestServer } from '../support/server.js';
import { type TestGuild, createGuild, expectError, expectRefusedWithoutEvents } from './guildSupport.js';

let server: TestServer;
let guild: TestGuild;
beforeAll(async () => {
  server = await startTestServer();
  guild = await createGuild(server);
});
afterAll(async () => {
  await server.close();
});

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A valid black-and-white PNG of any size, all zeros: 16000×16000 deflates to about 31 KB (sharp takes seconds to make one). */
function blackPng(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 1; // bit depth 1, colour type 0 (grey), default compression, filter and interlace
  const rows = Buffer.alloc((1 + Math.ceil(width / 8)) * height);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, pngChunk('IHDR', header), pngChunk('IDAT', deflateSync(rows, { level: 9 })), pngChunk('IEND', Buffer.alloc(0))]);
}

const dataUri = (png: Buffer) => `data:image/png;base64,${png.toString('base64')}`;
const smallPng = () =>
  sharp({ create: { width: 8, height: 8, channels: 3, background: '#ff0000' } })
    .png()
    .toBuffer();

const BOMB = blackPng(16000, 16000);
const SLIVER = blackPng(1, 16000);

/** Sends the file as a message attachment; answers the attachment and its CDN path. */
async function attached(file: { name: string; data: Buffer; type: string }): Promise<{ path: string; content_type: string; width?: number; height?: number }> {
  const form = new FormData();
  form.append('payload_json', JSON.stringify({ content: 'files' }));
  form.append('files[0]', new Blob([file.data], { type: file.type }), file.name);
  const encoded = new Response(form);
  const response = await server.api('POST', `/channels/${guild.channelId}/messages`, {
    token: guild.owner.token,
    rawBody: Buffer.from(await encoded.arrayBuffer()),
    headers: { 'content-type': encoded.headers.get('content-type')! },
  });
  expect(response.status).toBe(200);
  const [attachment] = response.body.attachments;
  return { ...attachment, path: new URL(attachment.url).pathname };
}

/** Runs a request that must be refused with 400 INVALID_FORM_BODY and append nothing; answers its response. */
async function refusedForm(request: () => Promise<ApiResponse>): Promise<ApiResponse> {
  let response: ApiResponse | undefined;
  await expectRefusedWithoutEvents(server, async () => (response = await request()), 400, 'INVALID_FORM_BODY');
  return response!;
}

function expectSandboxed(response: ApiResponse) {
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(response.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
}

/** The size of the image the CDN answers at `path` (fetched as bytes: the test client reads bodies as text). */
async function servedSize(path: string) {
  const response = await request(`${server.origin}${path}`, { dispatcher: server.dispatcher });
  expect(response.statusCode).toBe(200);
  const { width, height } = await sharp(Buffer.from(await response.body.arrayBuffer())).metadata();
  return { width, height };
}

describe('files that are not images', () => {
  it('serves SVG, HTML and XML as sandboxed downloads, never inline, and refuses to resize them', async () => {
    const files = [
      {
        name: 'drawing.svg',
        type: 'image/svg+xml',
        data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.domain)</script></svg>'),
      },
      { name: 'page.html', type: 'text/html', data: Buffer.from('<html><script>alert(document.cookie)</script></html>') },
      {
        name: 'feed.xml',
        type: 'application/xml',
        data: Buffer.from('<?xml version="1.0"?><x:script xmlns:x="http://www.w3.org/1999/xhtml">alert(1)</x:script>'),
      },
    ];
    for (const file of files) {
      const attachment = await attached(file);
      expect(attachment.content_type).toBe(file.type);
      const original = await server.call('GET', attachment.path);
      expect(original.status).toBe(200);
      expect(original.text).toBe(file.data.toString());
      expect(original.headers['content-disposition']).toBe('attachment');
      expectSandboxed(original);
      for (const query of ['width=64', 'format=png', 'quality=high']) {
        const resized = await server.call('GET', `${attachment.path}?${query}`);
        expectError(resized, 400, 'NOT_AN_IMAGE');
        expectSandboxed(resized);
      }
    }
  });

  it('answers 400 NOT_AN_IMAGE, not 500, for a resize of text uploaded as image/png or of a truncated PNG, and still serves their bytes', async () => {
    const text = await attached({ name: 'fake.png', type: 'image/png', data: Buffer.from('this is not a picture') });
    expect(text.width).toBeUndefined();
    const png = await smallPng();
    const truncated = await attached({ name: 'cut.png', type: 'image/png', data: png.subarray(0, png.length - 20) });
    expect(truncated).toMatchObject({ content_type: 'image/png', width: 8, height: 8 });
    for (const attachment of [text, truncated]) {
      for (const query of ['width=64', 'format=webp', 'quality=low']) expectError(await server.call('GET', `${attachment.path}?${query}`), 400, 'NOT_AN_IMAGE');
      const original = await server.call('GET', attachment.path);
      expect(original.status).toBe(200);
      expectSandboxed(original);
    }
  });

  it('serves a file whose declared type cannot be a header as application/octet-stream, not 500', async () => {
    // Written by hand: FormData would drop such a type.
    const boundary = 'hardening';
    const body = Buffer.from(
      [
        `--${boundary}`,
        'Content-Disposition: form-data; name="payload_json"',
        '',
        '{"content":"files"}',
        `--${boundary}`,
        'Content-Disposition: form-data; name="files[0]"; filename="odd.html"',
        'Content-Type: text/html\x01x',
        '',
        '<script>alert(1)</script>',
        `--${boundary}--`,
        '',
      ].join('\r\n'),
      'latin1',
    );
    const sent = await server.api('POST', `/channels/${guild.channelId}/messages`, {
      token: guild.owner.token,
      rawBody: body,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(sent.status).toBe(200);
    const served = await server.call('GET', new URL(sent.body.attachments[0].url).pathname);
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('application/octet-stream');
    expect(served.headers['content-disposition']).toBe('attachment');
    expectSandboxed(served);
  });

  it('sends nosniff and the sandbox policy on every CDN answer: images inline, avatars, icons and their 404s', async () => {
    const image = await attached({ name: 'box.png', type: 'image/png', data: await smallPng() });
    const inline = await server.call('GET', image.path);
    expect(inline.headers['content-type']).toBe('image/png');
    expect(inline.headers['content-disposition']).toBeUndefined();
    expectSandboxed(inline);
    expectSandboxed(await server.call('GET', `${image.path}?width=4&format=webp`));

    const user = await registerUser(server);
    const patched = await server.api('PATCH', '/users/@me', { token: user.token, body: { avatar: dataUri(await smallPng()) } });
    expect(patched.status).toBe(200);
    const iconic = await server.api('POST', '/guilds', { token: user.token, body: { name: 'Iconic', icon: dataUri(await smallPng()) } });
    expect(iconic.status).toBe(201);
    for (const path of [`/avatars/${user.id}/${patched.body.avatar}.png`, `/icons/${iconic.body.id}/${iconic.body.icon}.webp?size=16`]) {
      const served = await server.call('GET', path);
      expect(served.status).toBe(200);
      expectSandboxed(served);
    }
    const missing = [
      `/avatars/${user.id}/${'0'.repeat(32)}.png`,
      `/icons/${iconic.body.id}/${'0'.repeat(32)}.png`,
      `/attachments/${guild.channelId}/1234567890123456789/none.svg`,
    ];
    for (const path of missing) {
      const response = await server.call('GET', path);
      expect(response.status).toBe(404);
      expectSandboxed(response);
    }
  });
});

describe('decompression bombs', () => {
  it('are small files', () => {
    expect(BOMB.length).toBeLessThan(64 * 1024);
    expect(SLIVER.length).toBeLessThan(1024);
  });

  it('are refused as avatars, guild icons and webhook avatars with 400 naming the field, appending nothing', async () => {
    const user = await registerUser(server);
    const refusals = [
      { field: 'avatar', request: () => server.api('PATCH', '/users/@me', { token: user.token, body: { avatar: dataUri(BOMB) } }) },
      { field: 'icon', request: () => server.api('POST', '/guilds', { token: user.token, body: { name: 'Bomb', icon: dataUri(BOMB) } }) },
      { field: 'icon', request: () => server.api('PATCH', `/guilds/${guild.id}`, { token: guild.owner.token, body: { icon: dataUri(BOMB) } }) },
      {
        field: 'avatar',
        request: () => server.api('POST', `/channels/${guild.channelId}/webhooks`, { token: guild.owner.token, body: { name: 'Hook', avatar: dataUri(BOMB) } }),
      },
    ];
    for (const { field, request } of refusals) {
      const response = await refusedForm(request);
      expect(response.body.errors).toEqual([{ path: field, message: expect.stringMatching(/^Image is too large \(16000×16000\)/) }]);
    }
  });

  it('are kept as attachments, served as stored, and refused a resize with 400 IMAGE_TOO_LARGE', async () => {
    const bomb = await attached({ name: 'bomb.png', type: 'image/png', data: BOMB });
    expect(bomb).toMatchObject({ content_type: 'image/png', width: 16000, height: 16000 });
    const original = await request(`${server.origin}${bomb.path}`, { dispatcher: server.dispatcher });
    expect(original.statusCode).toBe(200);
    expect(Buffer.from(await original.body.arrayBuffer()).equals(BOMB)).toBe(true);
    for (const query of ['width=100', 'format=webp', 'width=4096&height=4096']) {
      const refused = await server.call('GET', `${bomb.path}?${query}`);
      expectError(refused, 400, 'IMAGE_TOO_LARGE');
      expect(refused.body.message).toMatch(/16000×16000/);
    }
  });

  it('a 1×16000 sliver is served resized within a 4096 box, as an attachment and as an avatar', async () => {
    const sliver = await attached({ name: 'sliver.png', type: 'image/png', data: SLIVER });
    expect(sliver).toMatchObject({ width: 1, height: 16000 });
    expect(await servedSize(`${sliver.path}?width=4096&format=png`)).toEqual({ width: 1, height: 4096 });

    const user = await registerUser(server);
    const patched = await server.api('PATCH', '/users/@me', { token: user.token, body: { avatar: dataUri(SLIVER) } });
    expect(patched.status).toBe(200);
    for (const size of [128, 4096]) expect(await servedSize(`/avatars/${user.id}/${patched.body.avatar}.png?size=${size}`)).toEqual({ width: 1, height: size });
  });

  it('six at once leave the rest of the server answering', async () => {
    const [bomb, users] = await Promise.all([
      attached({ name: 'bomb.png', type: 'image/png', data: BOMB }),
      Promise.all([registerUser(server), registerUser(server)]),
    ]);
    const [bystander, uploader] = users;
    const [me, ...bombs] = await Promise.all([
      server.api('GET', '/users/@me', { token: bystander.token }),
      server.api('PATCH', '/users/@me', { token: uploader.token, body: { avatar: dataUri(BOMB) } }),
      server.api('POST', '/guilds', { token: bystander.token, body: { name: 'Bomb', icon: dataUri(BOMB) } }),
      server.api('POST', `/channels/${guild.channelId}/webhooks`, { token: guild.owner.token, body: { name: 'Hook', avatar: dataUri(BOMB) } }),
      server.call('GET', `${bomb.path}?width=4096&format=webp`),
      server.call('GET', `${bomb.path}?width=1024&format=png`),
      server.call('GET', `${bomb.path}?format=jpeg`),
    ]);
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(bystander.id);
    expect(bombs.map((response) => [response.status, response.body.code])).toEqual([
      ...Array(3).fill([400, 'INVALID_FORM_BODY']),
      ...Array(3).fill([400, 'IMAGE_TOO_LARGE']),
    ]);
  });
});

describe('bounded image work', () => {
  it('renders a large image within the limits, and refuses renders past the queue with 429 IMAGE_QUEUE_FULL while the API answers', async () => {
    // 7000×7000 is 49 MP, just within the pixel limit: a PNG has no shrink-on-load, so every render decodes it all.
    const large = await attached({
      name: 'large.png',
      type: 'image/png',
      data: await sharp({ create: { width: 7000, height: 7000, channels: 3, background: '#123456' } })
        .png()
        .toBuffer(),
    });
    const started = Date.now();
    const one = await server.call('GET', `${large.path}?width=16`);
    expect(one.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5000);

    // More renders at once than the slots (one per core but one) and the queue (16) can hold; each a different one,
    // since a render already made (or under way) is answered from the cache instead.
    const renders = Array.from({ length: availableParallelism() + 24 }, (_, i) => server.call('GET', `${large.path}?width=${17 + i}`));
    const me = await server.api('GET', '/users/@me', { token: guild.owner.token });
    expect(me.status).toBe(200);
    const answers = await Promise.all(renders);
    const refused = answers.filter((response) => response.status === 429);
    expect(answers.filter((response) => response.status === 200).length + refused.length).toBe(answers.length);
    expect(refused.length).toBeGreaterThan(0);
    for (const response of refused) {
      expect(response.body).toEqual({ code: 'IMAGE_QUEUE_FULL', message: expect.any(String), retry_after: 1, global: false });
      expect(response.headers['retry-after']).toBe('1');
      // Not the caller's bucket but the service's own queue, shared by all: discord.py also needs the Via to wait.
      expect(response.headers).toMatchObject({ 'x-ratelimit-scope': 'shared', via: expect.any(String) });
      expectSandboxed(response);
    }
    // Once the queue has drained, renders are served again.
    expect((await server.call('GET', `${large.path}?width=32`)).status).toBe(200);
  });

  it('makes one render for many identical requests at once: all answered with the same entity, none refused', async () => {
    const large = await attached({
      name: 'same.png',
      type: 'image/png',
      data: await sharp({ create: { width: 7000, height: 7000, channels: 3, background: '#654321' } })
        .png()
        .toBuffer(),
    });
    const answers = await Promise.all(Array.from({ length: availableParallelism() + 24 }, () => server.call('GET', `${large.path}?width=20`)));
    expect(answers.map((response) => response.status)).toEqual(answers.map(() => 200));
    expect(new Set(answers.map((response) => response.headers.etag)).size).toBe(1);
  });
});
