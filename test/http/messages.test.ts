// HTTP tests of the message routes: sends (JSON and multipart), reads and pages, edits, deletes, bulk deletes,
// typing, pins and reactions, each permission denial, and concurrent sends in one channel.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { snowflakeAt } from '../../domain/snowflake.js';
import { type TestServer, type TestUser, createBot, registerUser, startTestServer, expectNothingAppendedSince } from '../support/server.js';
import { type TestGuild, createGuild, expectError, expectRefusedWithoutEvents, grantRole, join, newMember } from './guildSupport.js';

let server: TestServer;
let guild: TestGuild;
let owner: TestUser;
let member: TestUser;
let bot: TestUser;

beforeAll(async () => {
  server = await startTestServer();
  guild = await createGuild(server);
  owner = guild.owner;
  member = await newMember(server, guild);
  bot = await join(server, guild, await createBot(server), 'Bot');
});
afterAll(async () => {
  await server.close();
});

const scheme = (user: TestUser) => (user === bot ? 'Bot' : 'Bearer');
const call = (user: TestUser, method: string, path: string, body?: unknown) => server.api(method, path, { token: user.token, scheme: scheme(user), body });
const send = (user: TestUser, body: unknown, channelId = guild.channelId) => call(user, 'POST', `/channels/${channelId}/messages`, body);

async function sent(user: TestUser, body: unknown, channelId = guild.channelId) {
  const response = await send(user, body, channelId);
  if (response.status !== 200) throw new Error(`send failed: ${response.status} ${response.text}`);
  return response.body;
}

/** A new text channel where `user` is denied `deny` by a member overwrite. */
async function channelDenying(user: TestUser, deny: bigint) {
  const channel = await call(owner, 'POST', `/guilds/${guild.id}/channels`, {
    name: 'restricted',
    permission_overwrites: [{ id: user.id, type: 1, deny: deny.toString() }],
  });
  expect(channel.status).toBe(201);
  return channel.body.id as string;
}

/** A multipart body as clients of the widely used API build it: payload_json and files[n]. */
async function multipart(payload: unknown, files: { name: string; data: Buffer; type?: string }[]) {
  const form = new FormData();
  form.append('payload_json', JSON.stringify(payload));
  files.forEach((file, i) => form.append(`files[${i}]`, new Blob([file.data], { type: file.type ?? 'application/octet-stream' }), file.name));
  const encoded = new Response(form);
  return { rawBody: Buffer.from(await encoded.arrayBuffer()), headers: { 'content-type': encoded.headers.get('content-type')! } };
}

const sendFiles = async (user: TestUser, payload: unknown, files: { name: string; data: Buffer; type?: string }[], channelId = guild.channelId) =>
  server.api('POST', `/channels/${channelId}/messages`, { token: user.token, scheme: scheme(user), ...(await multipart(payload, files)) });

const png = (width = 8, height = 6) =>
  sharp({ create: { width, height, channels: 3, background: '#3366ff' } })
    .png()
    .toBuffer();

describe('send', () => {
  it('answers the full message object', async () => {
    const message = await sent(member, { content: 'Hello **world** ||spoiler|| <t:1700000000:R>', tts: false });
    expect(message).toMatchObject({
      channel_id: guild.channelId,
      guild_id: guild.id,
      author: { id: member.id, username: member.username, bot: false },
      content: 'Hello **world** ||spoiler|| <t:1700000000:R>',
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      attachments: [],
      embeds: [],
      reactions: [],
      pinned: false,
      type: 0,
      flags: 0,
      components: [],
    });
    expect(message.id).toMatch(/^\d{17,20}$/);
    expect(Date.parse(message.timestamp)).toBeGreaterThan(Date.now() - 60_000);
    // The widely used API's form: microseconds and +00:00 (discord.py before Python 3.11 refuses a Z).
    expect(message.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}000\+00:00$/);
  });

  it('fills mentions, mention_roles and mention_everyone (only with MENTION_EVERYONE)', async () => {
    const roleId = await grantRole(server, guild, bot, 0n, 'pinged');
    const content = `hi <@${owner.id}> <@!${bot.id}> <@${'9'.repeat(18)}> <@&${roleId}> <#${guild.channelId}> @everyone \`<@${member.id}>\``;
    const byMember = await sent(member, { content });
    expect(byMember.mentions.map((u: { id: string }) => u.id)).toEqual([owner.id, bot.id]);
    expect(byMember.mention_roles).toEqual([roleId]);
    expect(byMember.mention_everyone).toBe(false);
    expect(byMember.mention_channels).toEqual([{ id: guild.channelId, guild_id: guild.id, type: 0, name: 'general' }]);
    expect(byMember.content).toBe(content);
    const byOwner = await sent(owner, { content: '@here look' });
    expect(byOwner.mention_everyone).toBe(true);
    const muted = await sent(owner, { content: `@everyone <@${member.id}>`, allowed_mentions: { parse: [] } });
    expect({ everyone: muted.mention_everyone, mentions: muted.mentions }).toEqual({ everyone: false, mentions: [] });
  });

  it('takes embeds as received ones come back from clients, extra fields included', async () => {
    const embed = {
      type: 'rich',
      title: 'T',
      color: 0xff0000,
      footer: { text: 'f', proxy_icon_url: 'https://x.test/i.png' },
      image: { url: 'https://x.test/a.png', proxy_url: 'https://x.test/p.png', width: 2 },
      content_scan_version: 0,
    };
    expect((await sent(bot, { embeds: [embed] })).embeds).toEqual([embed]);
  });

  it('keeps flags, unknown bits included', async () => {
    const flags = 4 | 64 | 4096 | (1 << 20);
    expect((await sent(member, { content: 'silent', flags })).flags).toBe(flags);
  });

  it('keeps components from bots, validated, and ignores them from a person', async () => {
    const components = [
      {
        type: 1,
        components: [
          { type: 2, style: 1, label: 'Click', custom_id: 'click' },
          { type: 2, style: 5, label: 'Docs', url: 'https://example.com' },
        ],
      },
    ];
    expect((await sent(bot, { content: 'buttons', components })).components).toEqual(components);
    expect((await sent(member, { content: 'buttons', components })).components).toEqual([]);
    const bad = await send(bot, {
      components: [
        {
          type: 1,
          components: [
            { type: 2, style: 1, label: 'x' },
            { type: 2, style: 5, url: 'http://insecure', custom_id: 'y' },
          ],
        },
      ],
    });
    expectError(bad, 400, 'INVALID_FORM_BODY');
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual([
      'components.0.components.0.custom_id',
      'components.0.components.1.custom_id',
      'components.0.components.1.url',
    ]);
    const onlyComponents = await sent(bot, { components });
    expect(onlyComponents.content).toBe('');
  });

  it('refuses empty messages, long content and bad bodies, appending nothing', async () => {
    const path = `/channels/${guild.channelId}/messages`;
    await expectRefusedWithoutEvents(server, () => send(member, {}), 400, 'CANNOT_SEND_EMPTY_MESSAGE');
    await expectRefusedWithoutEvents(server, () => send(member, { content: '', components: [{ type: 1, components: [] }] }), 400, 'CANNOT_SEND_EMPTY_MESSAGE');
    const long = await send(member, { content: 'x'.repeat(2001) });
    expect(long.body.errors).toEqual([{ path: 'content', message: 'Must be 2000 or fewer in length.' }]);
    expect((await send(member, { content: 'é'.repeat(2000) })).status).toBe(200);
    const types = await send(member, { content: 5, embeds: [{ title: 'x'.repeat(257) }], nonce: 'n'.repeat(26) });
    expectError(types, 400, 'INVALID_FORM_BODY');
    expect(types.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['content', 'embeds.0.title', 'nonce']);
    const json = await server.api('POST', path, { token: member.token, rawBody: '{"content":', headers: { 'content-type': 'application/json' } });
    expectError(json, 400, 'INVALID_JSON');
  });

  it('answers 404 for channels the sender cannot see or that do not exist, 403 without SEND_MESSAGES', async () => {
    const hidden = await channelDenying(member, Permission.VIEW_CHANNEL);
    await expectRefusedWithoutEvents(server, () => send(member, { content: 'x' }, hidden), 404, 'UNKNOWN_CHANNEL');
    await expectRefusedWithoutEvents(server, () => send(member, { content: 'x' }, '1234567890123456789'), 404, 'UNKNOWN_CHANNEL');
    const outsider = await registerUser(server);
    await expectRefusedWithoutEvents(server, () => send(outsider, { content: 'x' }), 404, 'UNKNOWN_CHANNEL');
    const readOnly = await channelDenying(member, Permission.SEND_MESSAGES);
    await expectRefusedWithoutEvents(server, () => send(member, { content: 'x' }, readOnly), 403, 'MISSING_PERMISSIONS');
    expect((await send(owner, { content: 'x' }, readOnly)).status).toBe(200);
    expect((await server.api('POST', `/channels/${guild.channelId}/messages`, { body: { content: 'x' } })).status).toBe(401);
  });

  it('returns the first message for the same nonce, author and channel', async () => {
    const first = await sent(member, { content: 'once', nonce: 'abc-123' });
    const again = await sent(member, { content: 'twice', nonce: 'abc-123' });
    expect(again.id).toBe(first.id);
    expect(again.content).toBe('once');
    const other = await sent(owner, { content: 'owner', nonce: 'abc-123' });
    expect(other.id).not.toBe(first.id);
    const concurrent = await Promise.all(Array.from({ length: 8 }, () => sent(member, { content: 'race', nonce: 42 })));
    expect(new Set(concurrent.map((m) => m.id)).size).toBe(1);
    expect(concurrent[0].nonce).toBe(42);
  });

  it('replies: type 19 with message_reference and the referenced message, mentioning its author', async () => {
    const original = await sent(owner, { content: 'question' });
    const reply = await sent(member, { content: 'answer', message_reference: { message_id: original.id } });
    expect(reply.type).toBe(19);
    expect(reply.message_reference).toMatchObject({ message_id: original.id, channel_id: guild.channelId, guild_id: guild.id });
    expect(reply.referenced_message.id).toBe(original.id);
    expect(reply.mentions.map((u: { id: string }) => u.id)).toEqual([owner.id]);
    const quiet = await sent(member, { content: 'answer', message_reference: { message_id: original.id }, allowed_mentions: { replied_user: false } });
    expect(quiet.mentions).toEqual([]);
    const missing = await send(member, { content: 'x', message_reference: { message_id: '1234567890123456789' } });
    expect(missing.body.errors).toEqual([{ path: 'message_reference.message_id', message: 'Unknown message' }]);
    const lenient = await sent(member, { content: 'x', message_reference: { message_id: '1234567890123456789', fail_if_not_exists: false } });
    expect(lenient.type).toBe(0);
  });

  it('honours a change of permissions, membership or channel on the very next send (the guild and the channel’s guild are kept in memory)', async () => {
    const sender = await newMember(server, guild);
    const channel = (await call(owner, 'POST', `/guilds/${guild.id}/channels`, { name: 'changing' })).body.id as string;
    const overwrite = `/channels/${channel}/permissions/${sender.id}`;
    expect((await send(sender, { content: 'allowed' }, channel)).status).toBe(200);
    expect((await call(owner, 'PUT', overwrite, { type: 1, deny: Permission.SEND_MESSAGES.toString() })).status).toBe(204);
    expectError(await send(sender, { content: 'denied' }, channel), 403, 'MISSING_PERMISSIONS');
    expect((await call(owner, 'DELETE', overwrite)).status).toBe(204);
    expect((await send(sender, { content: 'allowed again' }, channel)).status).toBe(200);
    expect((await call(owner, 'DELETE', `/guilds/${guild.id}/members/${sender.id}`)).status).toBe(204);
    expectError(await send(sender, { content: 'kicked' }, channel), 404, 'UNKNOWN_CHANNEL');
    expect((await send(owner, { content: 'still here' }, channel)).status).toBe(200);
    expect((await call(owner, 'DELETE', `/channels/${channel}`)).status).toBe(200);
    expectError(await send(owner, { content: 'gone' }, channel), 404, 'UNKNOWN_CHANNEL');
    expectError(await call(owner, 'GET', `/channels/${channel}/messages`), 404, 'UNKNOWN_CHANNEL');
  });

  it('answers a send with the very bytes a read of the message answers (the answer is built from the event, not read back)', async () => {
    const original = await sent(owner, { content: 'first' });
    const bodies: { user: TestUser; body: unknown; files?: { name: string; data: Buffer; type?: string }[] }[] = [
      { user: member, body: { content: `plain <@${owner.id}> @everyone <#${guild.channelId}>`, nonce: 'bytes-1', tts: true } },
      {
        user: bot,
        body: {
          content: 'rich',
          flags: 4,
          embeds: [{ title: 'T', timestamp: '2024-05-01T10:00:00+02:00', image: { url: 'attachment://a.png' } }],
          components: [{ type: 1, components: [{ type: 2, style: 1, label: 'B', custom_id: 'b' }] }],
        },
        files: [{ name: 'a.png', data: await png(), type: 'image/png' }],
      },
      { user: member, body: { content: 'reply', message_reference: { message_id: original.id } } },
    ];
    for (const { user, body, files } of bodies) {
      const answer = files ? await sendFiles(user, body, files) : await send(user, body);
      expect(answer.status, answer.text).toBe(200);
      const read = await call(user, 'GET', `/channels/${guild.channelId}/messages/${answer.body.id}`);
      expect(answer.text).toBe(read.text);
    }
  });

  it('shows the author as they are now: a new username is on the very next message', async () => {
    const author = await newMember(server, guild);
    expect((await sent(author, { content: 'before' })).author.username).toBe(author.username);
    const renamed = `${author.username}r`;
    expect((await call(author, 'PATCH', '/users/@me', { username: renamed })).status).toBe(200);
    expect((await sent(author, { content: 'after' })).author.username).toBe(renamed);
  });
});

describe('attachments', () => {
  it('stores files and serves them from the CDN, originals or resized; embeds use them by attachment://', async () => {
    const image = await png(8, 6);
    const text = Buffer.from('plain notes');
    const response = await sendFiles(
      member,
      {
        content: 'files',
        attachments: [
          { id: 0, description: 'a blue box' },
          { id: 1, filename: 'notes v1.txt' },
        ],
        embeds: [{ title: 'pic', image: { url: 'attachment://box.png' } }],
      },
      [
        { name: 'box.png', data: image, type: 'image/png' },
        { name: 'notes.txt', data: text, type: 'text/plain' },
      ],
    );
    expect(response.status).toBe(200);
    const [box, notes] = response.body.attachments;
    expect(box).toMatchObject({ filename: 'box.png', description: 'a blue box', content_type: 'image/png', size: image.length, width: 8, height: 6 });
    expect(notes).toMatchObject({ filename: 'notes_v1.txt', content_type: 'text/plain', size: text.length });
    expect(box.url).toBe(`${server.origin}/attachments/${guild.channelId}/${box.id}/box.png`);
    expect(response.body.embeds[0].image).toMatchObject({ url: box.url, width: 8, height: 6 });

    const original = await server.call('GET', new URL(box.url).pathname);
    expect(original.status).toBe(200);
    expect(original.headers['content-type']).toBe('image/png');
    const resized = await server.call('GET', `${new URL(box.url).pathname}?width=4&format=webp`);
    expect(resized.headers['content-type']).toBe('image/webp');
    const served = await server.call('GET', new URL(notes.url).pathname);
    expect(served.text).toBe('plain notes');
    expect(served.headers['content-disposition']).toBe('attachment');
    expectError(await server.call('GET', `${new URL(notes.url).pathname}?width=10`), 400, 'NOT_AN_IMAGE');
    expectError(await server.call('GET', `/attachments/${guild.channelId}/1234567890123456789/none.png`), 404, 'UNKNOWN_ATTACHMENT');
  });

  it('refuses embeds naming files that are missing or not PNG, JPEG, WebP or GIF images', async () => {
    const response = await sendFiles(member, { embeds: [{ image: { url: 'attachment://notes.txt' }, thumbnail: { url: 'attachment://gone.png' } }] }, [
      { name: 'notes.txt', data: Buffer.from('x'), type: 'text/plain' },
    ]);
    expectError(response, 400, 'INVALID_FORM_BODY');
    expect(response.body.errors.map((e: { path: string }) => e.path)).toEqual(['embeds.0.image.url', 'embeds.0.thumbnail.url']);
  });

  it('needs ATTACH_FILES, at most 10 files, at most 25 MiB each', async () => {
    const noFiles = await channelDenying(member, Permission.ATTACH_FILES);
    const file = { name: 'a.txt', data: Buffer.from('a') };
    await expectRefusedWithoutEvents(server, () => sendFiles(member, { content: 'x' }, [file], noFiles), 403, 'MISSING_PERMISSIONS');
    expect((await sendFiles(member, { content: 'no files is fine' }, [], noFiles)).status).toBe(200);
    await expectRefusedWithoutEvents(
      server,
      () =>
        sendFiles(
          member,
          {},
          Array.from({ length: 11 }, () => file),
        ),
      400,
      'TOO_MANY_ATTACHMENTS',
    );
    const big = { name: 'big.bin', data: Buffer.alloc(25 * 1024 * 1024 + 1) };
    await expectRefusedWithoutEvents(server, () => sendFiles(member, {}, [big]), 413, 'FILE_TOO_LARGE');
    const unknown = await sendFiles(member, { attachments: [{ id: 3 }] }, [file]);
    expect(unknown.body.errors).toEqual([{ path: 'attachments.0.id', message: 'No file or attachment has this id' }]);
  });
});

describe('read', () => {
  it('pages newest first with limit, before, after and around', async () => {
    const channel = (await call(owner, 'POST', `/guilds/${guild.id}/channels`, { name: 'history' })).body.id;
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await sent(member, { content: `m${i}` }, channel)).id);
    const page = async (query: string) => {
      const response = await call(member, 'GET', `/channels/${channel}/messages${query}`);
      expect(response.status).toBe(200);
      return response.body.map((m: { content: string }) => m.content).join(',');
    };
    expect(await page('')).toBe('m6,m5,m4,m3,m2,m1,m0');
    expect(await page('?limit=2')).toBe('m6,m5');
    expect(await page(`?before=${ids[3]}&limit=2`)).toBe('m2,m1');
    expect(await page(`?after=${ids[3]}&limit=2`)).toBe('m5,m4');
    expect(await page(`?around=${ids[3]}&limit=3`)).toBe('m4,m3,m2');
    expect(await page(`?after=0&limit=1`)).toBe('m0');
    const both = await call(member, 'GET', `/channels/${channel}/messages?before=${ids[1]}&after=${ids[0]}`);
    expectError(both, 400, 'INVALID_FORM_BODY');
    expectError(await call(member, 'GET', `/channels/${channel}/messages?limit=101`), 400, 'INVALID_FORM_BODY');
  });

  it('answers a page with the bytes of its messages as each is fetched, read after read, and shows what changed since', async () => {
    const channel = (await call(owner, 'POST', `/guilds/${guild.id}/channels`, { name: 'bytes' })).body.id;
    const first = await sent(owner, { content: 'first', embeds: [{ title: 'T', timestamp: '2024-05-01T10:00:00+02:00' }] }, channel);
    await sent(member, { content: 'reply', message_reference: { message_id: first.id } }, channel);
    const reacted = await sent(member, { content: 'reacted' }, channel);
    await call(member, 'PUT', `/channels/${channel}/messages/${reacted.id}/reactions/${encodeURIComponent('👍')}/@me`);
    await sent(bot, { content: 'plain', components: [{ type: 1, components: [{ type: 2, style: 1, label: 'B', custom_id: 'b' }] }] }, channel);
    const expectPageAsFetched = async (viewer: TestUser) => {
      const page = await call(viewer, 'GET', `/channels/${channel}/messages`);
      expect(page.headers['content-type']).toBe('application/json');
      const fetched = await Promise.all(page.body.map((m: { id: string }) => call(viewer, 'GET', `/channels/${channel}/messages/${m.id}`)));
      expect(page.text).toBe(`[${fetched.map((m) => m.text).join(',')}]`);
      return page.text;
    };
    for (const viewer of [member, owner, member]) await expectPageAsFetched(viewer);
    const before = await expectPageAsFetched(member);
    expect((await call(member, 'PATCH', `/channels/${channel}/messages/${reacted.id}`, { content: 'edited' })).status).toBe(200);
    await call(member, 'DELETE', `/channels/${channel}/messages/${reacted.id}/reactions/${encodeURIComponent('👍')}/@me`);
    const after = await expectPageAsFetched(member);
    expect(after).not.toBe(before);
    expect(JSON.parse(after).find((m: { id: string }) => m.id === reacted.id)).toMatchObject({ content: 'edited', reactions: [] });
    const hidden = await channelDenying(member, Permission.READ_MESSAGE_HISTORY);
    const empty = await call(member, 'GET', `/channels/${hidden}/messages`);
    expect([empty.text, empty.headers['content-type']]).toEqual(['[]', 'application/json']);
  });

  it('fetches one message; unknown ids and other channels answer 404 UNKNOWN_MESSAGE', async () => {
    const message = await sent(member, { content: 'single' });
    const fetched = await call(owner, 'GET', `/channels/${guild.channelId}/messages/${message.id}`);
    expect(fetched.body).toEqual(message);
    expectError(await call(owner, 'GET', `/channels/${guild.channelId}/messages/1234567890123456789`), 404, 'UNKNOWN_MESSAGE');
    const other = (await call(owner, 'POST', `/guilds/${guild.id}/channels`, { name: 'other' })).body.id;
    expectError(await call(owner, 'GET', `/channels/${other}/messages/${message.id}`), 404, 'UNKNOWN_MESSAGE');
  });

  it('shows no history without READ_MESSAGE_HISTORY, and nothing of hidden channels', async () => {
    const noHistory = await channelDenying(member, Permission.READ_MESSAGE_HISTORY);
    const message = await sent(owner, { content: 'secret history' }, noHistory);
    expect((await call(member, 'GET', `/channels/${noHistory}/messages`)).body).toEqual([]);
    expectError(await call(member, 'GET', `/channels/${noHistory}/messages/${message.id}`), 403, 'MISSING_PERMISSIONS');
    const hidden = await channelDenying(member, Permission.VIEW_CHANNEL);
    expectError(await call(member, 'GET', `/channels/${hidden}/messages`), 404, 'UNKNOWN_CHANNEL');
  });
});

describe('edit', () => {
  it('lets the author edit content (new mentions, edited_timestamp), and no one else', async () => {
    const message = await sent(member, { content: 'draft' });
    const edited = await call(member, 'PATCH', `/channels/${guild.channelId}/messages/${message.id}`, { content: `final <@${owner.id}>` });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ id: message.id, content: `final <@${owner.id}>`, mentions: [{ id: owner.id }] });
    expect(Date.parse(edited.body.edited_timestamp)).toBeGreaterThan(0);
    await expectRefusedWithoutEvents(
      server,
      () => call(owner, 'PATCH', `/channels/${guild.channelId}/messages/${message.id}`, { content: 'hijack' }),
      403,
      'CANNOT_EDIT_MESSAGE_BY_OTHER',
    );
    await expectRefusedWithoutEvents(
      server,
      () => call(member, 'PATCH', `/channels/${guild.channelId}/messages/${message.id}`, { content: '' }),
      400,
      'CANNOT_SEND_EMPTY_MESSAGE',
    );
    expectError(await call(member, 'PATCH', `/channels/${guild.channelId}/messages/1234567890123456789`, { content: 'x' }), 404, 'UNKNOWN_MESSAGE');
  });

  it('lets MANAGE_MESSAGES suppress embeds on anyone’s message, without marking it edited', async () => {
    const message = await sent(member, { content: 'https://example.com', flags: 4096 });
    const suppressed = await call(owner, 'PATCH', `/channels/${guild.channelId}/messages/${message.id}`, { flags: 4 });
    expect(suppressed.status).toBe(200);
    expect(suppressed.body).toMatchObject({ flags: 4 | 4096, edited_timestamp: null });
    const other = await newMember(server, guild);
    expectError(await call(other, 'PATCH', `/channels/${guild.channelId}/messages/${message.id}`, { flags: 0 }), 403, 'CANNOT_EDIT_MESSAGE_BY_OTHER');
  });

  it('keeps exactly the listed attachments, all when the list is omitted, and adds new files', async () => {
    const files = ['a.txt', 'b.txt', 'c.txt'].map((name) => ({ name, data: Buffer.from(name), type: 'text/plain' }));
    const message = (await sendFiles(member, { content: 'three files' }, files)).body;
    const [a, b, c] = message.attachments;
    const path = `/channels/${guild.channelId}/messages/${message.id}`;
    expect((await call(member, 'PATCH', path, { content: 'still three' })).body.attachments).toHaveLength(3);
    const kept = await call(member, 'PATCH', path, { attachments: [{ id: c.id }, { id: a.id }] });
    expect(kept.body.attachments.map((x: { id: string }) => x.id)).toEqual([c.id, a.id]);
    expectError(await server.call('GET', new URL(b.url).pathname), 404, 'UNKNOWN_ATTACHMENT');
    const added = await server.api('PATCH', path, {
      token: member.token,
      ...(await multipart({ attachments: [{ id: a.id }, { id: 0 }] }, [{ name: 'd.txt', data: Buffer.from('d') }])),
    });
    expect(added.body.attachments.map((x: { filename: string }) => x.filename)).toEqual(['a.txt', 'd.txt']);
  });
});

describe('delete', () => {
  it('lets the author or MANAGE_MESSAGES delete; others get 403', async () => {
    const mine = await sent(member, { content: 'mine' });
    const other = await newMember(server, guild);
    await expectRefusedWithoutEvents(server, () => call(other, 'DELETE', `/channels/${guild.channelId}/messages/${mine.id}`), 403, 'MISSING_PERMISSIONS');
    const deleted = await call(member, 'DELETE', `/channels/${guild.channelId}/messages/${mine.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.headers['content-type']).toBeUndefined();
    expectError(await call(member, 'GET', `/channels/${guild.channelId}/messages/${mine.id}`), 404, 'UNKNOWN_MESSAGE');
    expectError(await call(member, 'DELETE', `/channels/${guild.channelId}/messages/${mine.id}`), 404, 'UNKNOWN_MESSAGE');
    const theirs = await sent(member, { content: 'moderated' });
    expect((await call(owner, 'DELETE', `/channels/${guild.channelId}/messages/${theirs.id}`)).status).toBe(204);
  });

  it('bulk deletes 2-100 recent messages with MANAGE_MESSAGES, by POST or DELETE', async () => {
    const ids = await Promise.all(['b1', 'b2', 'b3'].map(async (content) => (await sent(member, { content })).id));
    const path = `/channels/${guild.channelId}/messages/bulk-delete`;
    await expectRefusedWithoutEvents(server, () => call(member, 'POST', path, { messages: ids }), 403, 'MISSING_PERMISSIONS');
    await expectRefusedWithoutEvents(server, () => call(owner, 'POST', path, { messages: [ids[0]] }), 400, 'INVALID_FORM_BODY');
    const old = snowflakeAt(Date.now() - 15 * 24 * 3600 * 1000);
    const tooOld = await call(owner, 'POST', path, { messages: [ids[0], old] });
    expect(tooOld.body.errors).toEqual([{ path: 'messages.1', message: 'Messages older than 14 days cannot be bulk deleted' }]);
    const unknown = snowflakeAt(Date.now());
    expect((await call(owner, 'POST', path, { messages: [ids[0], ids[1], unknown] })).status).toBe(204);
    expect((await call(owner, 'DELETE', path, { messages: [ids[2], ids[0]] })).status).toBe(204);
    for (const id of ids) expectError(await call(owner, 'GET', `/channels/${guild.channelId}/messages/${id}`), 404, 'UNKNOWN_MESSAGE');
    const events = await server.runtime.store.readStream(`channel-bulk-deletes-${guild.channelId}`);
    expect(events.map((e) => (e.data as { messageIds: string[] }).messageIds)).toEqual([[ids[0], ids[1]], [ids[2]]]);
  });
});

describe('typing', () => {
  it('answers 204 and relays a hint without writing to the log; needs SEND_MESSAGES', async () => {
    const hints: unknown[] = [];
    const unsubscribe = server.runtime.hints.subscribe((hint) => hints.push(hint));
    const before = await server.runtime.store.headPosition();
    const response = await call(member, 'POST', `/channels/${guild.channelId}/typing`);
    unsubscribe();
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    await expectNothingAppendedSince(server, before);
    expect(hints).toEqual([{ type: 'TYPING_START', channelId: guild.channelId, guildId: guild.id, userId: member.id, timestamp: expect.any(Number) }]);
    const readOnly = await channelDenying(member, Permission.SEND_MESSAGES);
    expectError(await call(member, 'POST', `/channels/${readOnly}/typing`), 403, 'MISSING_PERMISSIONS');
  });
});

describe('pins', () => {
  it('pins and unpins with MANAGE_MESSAGES, listed newest pin first in both list forms', async () => {
    const channel = (await call(owner, 'POST', `/guilds/${guild.id}/channels`, { name: 'pins' })).body.id;
    const first = await sent(member, { content: 'first' }, channel);
    const second = await sent(member, { content: 'second' }, channel);
    await expectRefusedWithoutEvents(server, () => call(member, 'PUT', `/channels/${channel}/pins/${first.id}`), 403, 'MISSING_PERMISSIONS');
    expect((await call(owner, 'PUT', `/channels/${channel}/pins/${first.id}`)).status).toBe(204);
    expect((await call(owner, 'PUT', `/channels/${channel}/messages/pins/${second.id}`)).status).toBe(204);
    expect((await call(owner, 'PUT', `/channels/${channel}/pins/${second.id}`)).status).toBe(204);
    const legacy = await call(member, 'GET', `/channels/${channel}/pins`);
    expect(legacy.body.map((m: { content: string; pinned: boolean }) => [m.content, m.pinned])).toEqual([
      ['second', true],
      ['first', true],
    ]);
    const paged = await call(member, 'GET', `/channels/${channel}/messages/pins?limit=1`);
    expect(paged.body).toMatchObject({ items: [{ message: { id: second.id }, pinned_at: expect.any(String) }], has_more: true });
    const rest = await call(member, 'GET', `/channels/${channel}/messages/pins?before=${encodeURIComponent(paged.body.items[0].pinned_at)}`);
    expect(rest.body).toMatchObject({ items: [{ message: { id: first.id } }], has_more: false });
    expect((await call(owner, 'DELETE', `/channels/${channel}/messages/pins/${second.id}`)).status).toBe(204);
    expect((await call(member, 'GET', `/channels/${channel}/messages/${second.id}`)).body.pinned).toBe(false);
    expectError(await call(owner, 'PUT', `/channels/${channel}/pins/1234567890123456789`), 404, 'UNKNOWN_MESSAGE');
  });

  it('holds at most 50 pins per channel; deleting a pinned message frees its place', async () => {
    const channel = (await call(owner, 'POST', `/guilds/${guild.id}/channels`, { name: 'many-pins' })).body.id;
    const messages = await Promise.all(Array.from({ length: 51 }, (_, i) => sent(owner, { content: `p${i}` }, channel)));
    await Promise.all(messages.slice(0, 50).map((m) => call(owner, 'PUT', `/channels/${channel}/pins/${m.id}`).then((r) => expect(r.status).toBe(204))));
    await expectRefusedWithoutEvents(server, () => call(owner, 'PUT', `/channels/${channel}/pins/${messages[50].id}`), 400, 'MAX_PINS');
    expect((await call(owner, 'DELETE', `/channels/${channel}/messages/${messages[0].id}`)).status).toBe(204);
    expect((await call(owner, 'PUT', `/channels/${channel}/pins/${messages[50].id}`)).status).toBe(204);
    expect((await call(owner, 'GET', `/channels/${channel}/pins`)).body).toHaveLength(50);
  });
});

describe('reactions', () => {
  const thumbs = encodeURIComponent('👍');
  const reactions = (messageId: string) => `/channels/${guild.channelId}/messages/${messageId}/reactions`;

  it('adds, counts (with me), lists and removes reactions', async () => {
    const message = await sent(owner, { content: 'react here' });
    expect((await call(member, 'PUT', `${reactions(message.id)}/${thumbs}/@me`)).status).toBe(204);
    expect((await call(bot, 'PUT', `${reactions(message.id)}/${thumbs}/@me`)).status).toBe(204);
    expect((await call(bot, 'PUT', `${reactions(message.id)}/${thumbs}/@me`)).status).toBe(204);
    expect((await call(bot, 'PUT', `${reactions(message.id)}/party:1234567890/@me`)).status).toBe(204);
    const seen = (await call(member, 'GET', `/channels/${guild.channelId}/messages/${message.id}`)).body.reactions;
    expect(seen).toEqual([
      { emoji: { id: null, name: '👍', animated: false }, count: 2, count_details: { burst: 0, normal: 2 }, me: true, me_burst: false, burst_colors: [] },
      {
        emoji: { id: '1234567890', name: 'party', animated: false },
        count: 1,
        count_details: { burst: 0, normal: 1 },
        me: false,
        me_burst: false,
        burst_colors: [],
      },
    ]);
    const reactors = await call(owner, 'GET', `${reactions(message.id)}/${thumbs}`);
    expect(reactors.body.map((u: { id: string }) => u.id).sort()).toEqual([member.id, bot.id].sort());
    const [low, high] = [member.id, bot.id].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    expect((await call(owner, 'GET', `${reactions(message.id)}/${thumbs}?limit=1`)).body.map((u: { id: string }) => u.id)).toEqual([low]);
    expect((await call(owner, 'GET', `${reactions(message.id)}/${thumbs}?after=${low}`)).body.map((u: { id: string }) => u.id)).toEqual([high]);
    expect((await call(member, 'DELETE', `${reactions(message.id)}/${thumbs}/@me`)).status).toBe(204);
    const after = (await call(member, 'GET', `/channels/${guild.channelId}/messages/${message.id}`)).body.reactions[0];
    expect({ count: after.count, me: after.me }).toEqual({ count: 1, me: false });
    expectError(await call(member, 'PUT', `${reactions(message.id)}/notanemoji/@me`), 404, 'UNKNOWN_EMOJI');
    expectError(await call(member, 'PUT', `${reactions('1234567890123456789')}/${thumbs}/@me`), 404, 'UNKNOWN_MESSAGE');
  });

  it("removes someone else's reaction, one emoji's or all, only with MANAGE_MESSAGES", async () => {
    const message = await sent(owner, { content: 'moderate reactions' });
    const heart = encodeURIComponent('❤️');
    for (const emoji of [thumbs, heart]) expect((await call(member, 'PUT', `${reactions(message.id)}/${emoji}/@me`)).status).toBe(204);
    const other = await newMember(server, guild);
    await expectRefusedWithoutEvents(server, () => call(other, 'DELETE', `${reactions(message.id)}/${thumbs}/${member.id}`), 403, 'MISSING_PERMISSIONS');
    await expectRefusedWithoutEvents(server, () => call(other, 'DELETE', `${reactions(message.id)}/${thumbs}`), 403, 'MISSING_PERMISSIONS');
    await expectRefusedWithoutEvents(server, () => call(other, 'DELETE', reactions(message.id)), 403, 'MISSING_PERMISSIONS');
    expect((await call(owner, 'DELETE', `${reactions(message.id)}/${thumbs}/${member.id}`)).status).toBe(204);
    expect((await call(member, 'PUT', `${reactions(message.id)}/${thumbs}/@me`)).status).toBe(204);
    expect((await call(owner, 'DELETE', `${reactions(message.id)}/${heart}`)).status).toBe(204);
    let current = (await call(owner, 'GET', `/channels/${guild.channelId}/messages/${message.id}`)).body.reactions;
    expect(current.map((r: { emoji: { name: string } }) => r.emoji.name)).toEqual(['👍']);
    expect((await call(owner, 'DELETE', reactions(message.id))).status).toBe(204);
    current = (await call(owner, 'GET', `/channels/${guild.channelId}/messages/${message.id}`)).body.reactions;
    expect(current).toEqual([]);
    expect((await call(owner, 'GET', `${reactions(message.id)}/${thumbs}`)).body).toEqual([]);
  });

  it('needs ADD_REACTIONS to add a new emoji but not to join one, and READ_MESSAGE_HISTORY for both', async () => {
    const channel = await channelDenying(member, Permission.ADD_REACTIONS);
    const message = await sent(owner, { content: 'limited' }, channel);
    const path = `/channels/${channel}/messages/${message.id}/reactions/${thumbs}/@me`;
    await expectRefusedWithoutEvents(server, () => call(member, 'PUT', path), 403, 'MISSING_PERMISSIONS');
    expect((await call(owner, 'PUT', path)).status).toBe(204);
    expect((await call(member, 'PUT', path)).status).toBe(204);
    const noHistory = await channelDenying(member, Permission.READ_MESSAGE_HISTORY);
    const hidden = await sent(owner, { content: 'x' }, noHistory);
    await expectRefusedWithoutEvents(
      server,
      () => call(member, 'PUT', `/channels/${noHistory}/messages/${hidden.id}/reactions/${thumbs}/@me`),
      403,
      'MISSING_PERMISSIONS',
    );
  });

  it('takes many concurrent reactions on one message, each counted once', async () => {
    const message = await sent(owner, { content: 'popular' });
    const reactors = await Promise.all(Array.from({ length: 12 }, () => newMember(server, guild)));
    const responses = await Promise.all(reactors.map((user) => call(user, 'PUT', `${reactions(message.id)}/${thumbs}/@me`)));
    expect(responses.map((r) => r.text)).toEqual(reactors.map(() => ''));
    expect((await call(owner, 'GET', `/channels/${guild.channelId}/messages/${message.id}`)).body.reactions[0].count).toBe(12);
  });
});

describe('a busy channel', () => {
  it('takes many concurrent sends, each appended once, ordered by id', async () => {
    const channel = (await call(owner, 'POST', `/guilds/${guild.id}/channels`, { name: 'busy' })).body.id;
    const senders = [owner, member, bot];
    const responses = await Promise.all(Array.from({ length: 60 }, (_, i) => send(senders[i % 3], { content: `c${i}` }, channel)));
    expect(responses.filter((r) => r.status !== 200).map((r) => r.text)).toEqual([]);
    const ids = responses.map((r) => r.body.id as string);
    expect(new Set(ids).size).toBe(60);
    const listed = (await call(owner, 'GET', `/channels/${channel}/messages?limit=100`)).body.map((m: { id: string }) => m.id);
    expect(listed).toEqual([...ids].sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1)));
  });
});

describe('read models', () => {
  it('rebuild from the log into identical messages, reactions and channel documents', async () => {
    const snapshot = () =>
      Promise.all(['messages', 'reactions', 'channels'].map((collection) => server.runtime.readStore.find(collection, {}, { sort: { _id: 1 } })));
    const before = await snapshot();
    expect(before[0].length).toBeGreaterThan(100);
    expect(before[1].length).toBeGreaterThan(10);
    await server.runtime.projections.rebuild();
    expect(await snapshot()).toEqual(before);
  });
});
