// The API under the widely used API's version prefixes (http/apiVersions.ts): /api/v9 and /api/v10 serve the routes of
// /api/v1, so a client that pins them (discord.js's REST by default, discord.py) needs only its base address. There a
// refused form nests its field errors as that API does, which discord.js and discord.py read, and a guild's sticker
// list is a plain array, which discord.js reads; /api/v1 keeps the spec's shapes.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DiscordAPIError, REST } from '@discordjs/rest';
import { Client, Routes } from 'discord.js';
import { afterAll, describe, expect, it } from 'vitest';
import { restAgent } from '../support/discordjs.js';
import { type TestBot, type TestServer, createBot, fileServer, expectNothingAppendedSince } from '../support/server.js';
import { dataUri, stillImage } from './expressionSupport.js';
import { type TestGuild, createGuild, expectError, join as joinGuild } from './guildSupport.js';

const server: TestServer = await fileServer();
const guild: TestGuild = await createGuild(server);
const bot = (await joinGuild(server, guild, await createBot(server, guild.owner), 'Bot')) as TestBot;

const agent = restAgent(server);
afterAll(() => agent.close());

/** discord.js's REST as a deployment script builds it, with only the base address changed (the version is its default). */
const rest = new REST({ api: `${server.origin}/api`, retries: 0 }).setToken(bot.token).setAgent(agent);

const tooLongTitle = { embeds: [{ title: 'x'.repeat(257) }] };
const send = (prefix: string, body: unknown) =>
  server.call('POST', `${prefix}/channels/${guild.channelId}/messages`, { token: bot.token, scheme: 'Bot', body });

describe('the version prefixes', () => {
  it('serves the routes of /api/v1 under /api/v9 and /api/v10 (and /api), and none under another version', async () => {
    const me = await server.call('GET', '/api/v1/users/@me', { token: bot.token, scheme: 'Bot' });
    expect(me.status).toBe(200);
    for (const prefix of ['/api/v9', '/api/v10', '/api']) {
      expect(await server.call('GET', `${prefix}/users/@me`, { token: bot.token, scheme: 'Bot' })).toMatchObject({ status: 200, body: me.body });
    }
    expectError(await server.call('GET', '/api/v11/users/@me', { token: bot.token, scheme: 'Bot' }), 404, 'NOT_FOUND');
  });
});

describe('a refused form', () => {
  /** A refusal that appended nothing, with its `errors`. */
  async function refusedErrors(prefix: string, body: unknown) {
    const before = await server.runtime.store.headPosition();
    const response = await send(prefix, body);
    expectError(response, 400, prefix === '/api/v9' || prefix === '/api/v10' ? 50035 : 'INVALID_FORM_BODY');
    expect(response.body.message).toBe('Invalid Form Body');
    await expectNothingAppendedSince(server, before);
    return response.body.errors;
  }

  it('lists the spec’s {path, message} on /api/v1 and /api', async () => {
    const listed = [
      { path: 'tts', message: 'must be boolean' },
      { path: 'embeds.0.title', message: 'Must be 256 or fewer in length.' },
    ];
    expect(await refusedErrors('/api/v1', { ...tooLongTitle, tts: 'yes' })).toEqual(listed);
    expect(await refusedErrors('/api', { ...tooLongTitle, tts: 'yes' })).toEqual(listed);
  });

  it('nests them by path under _errors on /api/v9 and /api/v10, with the widely used API’s codes (its 50035 for the whole)', async () => {
    for (const prefix of ['/api/v9', '/api/v10']) {
      expect(await refusedErrors(prefix, { ...tooLongTitle, tts: 'yes' })).toEqual({
        embeds: { 0: { title: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 256 or fewer in length.' }] } } },
        tts: { _errors: [{ code: 'BASE_TYPE_INVALID', message: 'must be boolean' }] },
      });
      // The domain's own check of a field, after the schema's.
      expect(await refusedErrors(prefix, { content: 'x'.repeat(2001) })).toEqual({
        content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] },
      });
    }
  });

  it('nests a body refused before any route reads it (too deep) on /api/v10', async () => {
    let deep: object = {};
    for (let i = 0; i < 40; i++) deep = { a: deep };
    const errors = await refusedErrors('/api/v10', deep);
    expect(Array.isArray(errors)).toBe(false);
    expect(errors.a.a.a).toBeTypeOf('object');
  });

  it('keeps fields a client named __proto__ and _errors as data, not as the tree’s own structure', async () => {
    // Command definitions refuse fields they do not know, at paths named by the client.
    const response = await server.call('PUT', `/api/v10/applications/${bot.applicationId}/commands`, {
      token: bot.token,
      scheme: 'Bot',
      rawBody: '[{"name": "ping", "description": "d", "__proto__": 1, "_errors": 1}]',
      headers: { 'content-type': 'application/json' },
    });
    expectError(response, 400, 50035);
    const refused = [{ code: 'BASE_TYPE_INVALID', message: 'This field is not allowed here' }];
    const first = response.body.errors[0];
    expect(Object.keys(first).sort()).toEqual(['__proto__', '_errors']);
    expect(Object.getOwnPropertyDescriptor(first, '__proto__')!.value).toEqual({ _errors: refused });
    expect(first._errors).toEqual(refused);
    // The server runs in this process: nothing reached Object.prototype.
    expect(({} as Record<string, unknown>)._errors).toBeUndefined();
  });

  it('reaches discord.js as its DiscordAPIError with each field’s path, code and message', async () => {
    expect(((await rest.get(Routes.user())) as { id: string }).id).toBe(bot.id);
    const error = await rest.post(Routes.channelMessages(guild.channelId), { body: tooLongTitle }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect(error).toMatchObject({
      status: 400,
      code: 50035,
      message: 'Invalid Form Body\nembeds[0].title[BASE_TYPE_MAX_LENGTH]: Must be 256 or fewer in length.',
    });
  });
});

// Debian's package installs for the system interpreter; CI installs it (.ci/run), so there a missing one fails.
const PYTHON = '/usr/bin/python3';
const run = promisify(execFile);
const discordPy = await run(PYTHON, ['-c', 'import discord'], { timeout: 10_000 }).then(
  () => true,
  () => false,
);

describe.skipIf(!discordPy && !process.env.CI)('a refused form, read by discord.py', () => {
  /** What discord.py raised for a refused send at `prefix`. */
  async function raised(prefix: string) {
    const { stdout } = await run(PYTHON, [join(import.meta.dirname, '..', 'compat', 'discordpy', 'form_errors.py')], {
      timeout: 30_000,
      env: {
        ...process.env,
        PARLEY_API: `${server.origin}${prefix}`,
        BOT_TOKEN: bot.token,
        CHANNEL_ID: guild.channelId,
        SSL_CERT_FILE: join(server.dataDir, 'tls', 'self-signed.crt'),
      },
    });
    return JSON.parse(stdout.trim().split('\n').at(-1)!);
  }

  it('raises its HTTPException with each field’s path and message on /api/v10', async () => {
    expect(await raised('/api/v10')).toEqual({
      raised: 'HTTPException',
      status: 400,
      code: 50035,
      text: 'Invalid Form Body\nIn embeds.0.title: Must be 256 or fewer in length.',
    });
  });

  it('fails on the spec’s list instead (why /api/v1 is not what discord.py should be pointed at)', async () => {
    expect(await raised('/api/v1')).toMatchObject({ raised: 'AttributeError', message: "'list' object has no attribute 'items'" });
  });
});

describe('a guild’s sticker list', () => {
  it('is the spec’s page on /api/v1 and a plain array of every sticker on /api/v10, which discord.js’s guild.stickers.fetch() reads', async () => {
    const image = dataUri(await stillImage(320, 320, 'png'));
    const ids: string[] = [];
    for (const name of ['wave', 'nod']) {
      const created = await server.api('POST', `/guilds/${guild.id}/stickers`, {
        token: guild.owner.token,
        body: { name, description: '', tags: 'hi', image },
      });
      expect(created.status, created.text).toBe(201);
      ids.push(created.body.id);
    }
    const page = await server.call('GET', `/api/v1/guilds/${guild.id}/stickers?limit=1`, { token: bot.token, scheme: 'Bot' });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total: 2, limit: 1, offset: 0 });
    expect(page.body.stickers.map((s: { id: string }) => s.id)).toEqual([ids[0]]);

    const listed = await server.call('GET', `/api/v10/guilds/${guild.id}/stickers?limit=1`, { token: bot.token, scheme: 'Bot' });
    expect(listed.status).toBe(200);
    expect(listed.body.map((s: { id: string }) => s.id)).toEqual(ids);
    expect(listed.body[0]).toEqual(page.body.stickers[0]);

    const client = new Client({ intents: [], rest: { api: `${server.origin}/api`, cdn: server.origin, retries: 0 } });
    client.rest.setAgent(agent);
    client.rest.setToken(bot.token);
    try {
      const stickers = await (await client.guilds.fetch(guild.id)).stickers.fetch();
      expect([...stickers.keys()].sort()).toEqual([...ids].sort());
      expect(stickers.get(ids[0])!.name).toBe('wave');
    } finally {
      await client.destroy();
    }
  });
});
