// The application routes clients call at login and after: GET /oauth2/applications/@me and GET/PATCH
// /applications/@me with the bot's token, the owner's list with a session, and READY's application flags.
import sharp from 'sharp';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { connectGateway } from '../support/gateway.js';
import { createBot, fileServer, registerUser, expectNothingAppendedSince } from '../support/server.js';
import { createGuild, expectError, expectRefusedWithoutEvents, join } from './guildSupport.js';

const server = await fileServer();

const GATEWAY_MESSAGE_CONTENT_LIMITED = 1 << 19;
const GATEWAY_GUILD_MEMBERS_LIMITED = 1 << 15;

describe('the bot’s own application', () => {
  it('answers GET /oauth2/applications/@me and /applications/@me with the application object', async () => {
    const bot = await createBot(server);
    await join(server, await createGuild(server), bot, 'Bot');
    const oauth2 = await server.api('GET', '/oauth2/applications/@me', { token: bot.token, scheme: 'Bot' });
    expect(oauth2.status).toBe(200);
    expect(oauth2.headers['content-type']).toBe('application/json');
    expect(oauth2.body).toMatchObject({
      id: bot.applicationId,
      name: bot.username,
      icon: null,
      description: '',
      summary: '',
      rpc_origins: [],
      bot_public: true,
      bot_require_code_grant: false,
      bot: { id: bot.id, username: bot.username, bot: true },
      owner: { id: bot.owner.id, username: bot.owner.username, bot: false },
      verify_key: expect.stringMatching(/^[0-9a-f]{64}$/),
      team: null,
      flags: 0,
      approximate_guild_count: 1,
    });
    expect((await server.api('GET', '/applications/@me', { token: bot.token, scheme: 'Bot' })).body).toEqual(oauth2.body);
  });

  it('changes description, flags and icon with PATCH /applications/@me, seen by the owner and in READY', async () => {
    const bot = await createBot(server);
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#3366ff' } })
      .png()
      .toBuffer();
    const flags = GATEWAY_MESSAGE_CONTENT_LIMITED | GATEWAY_GUILD_MEMBERS_LIMITED;
    const patched = await server.api('PATCH', '/applications/@me', {
      token: bot.token,
      scheme: 'Bot',
      body: { description: 'Answers questions', flags, icon: `data:image/png;base64,${png.toString('base64')}` },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: bot.applicationId, description: 'Answers questions', flags, icon: expect.stringMatching(/^[0-9a-f]{32}$/) });
    const icon = await request(`${server.origin}/app-icons/${bot.applicationId}/${patched.body.icon}.png?size=16`, { dispatcher: server.dispatcher });
    expect(icon.statusCode).toBe(200);
    expect(await sharp(Buffer.from(await icon.body.arrayBuffer())).metadata()).toMatchObject({ format: 'png', width: 16 });
    const owned = await server.api('GET', `/applications/${bot.applicationId}`, { token: bot.owner.token });
    expect(owned.body).toMatchObject({ description: 'Answers questions', flags, icon: patched.body.icon });

    const gateway = await connectGateway(server);
    const ready = await gateway.identify(bot.token, 1);
    expect(ready.d.application).toEqual({ id: bot.applicationId, flags });
    gateway.close();

    const cleared = await server.api('PATCH', '/applications/@me', { token: bot.token, scheme: 'Bot', body: { icon: null, flags: 0 } });
    expect(cleared.body).toMatchObject({ icon: null, flags: 0, description: 'Answers questions' });
  });

  it('appends nothing for an unchanged or refused PATCH', async () => {
    const bot = await createBot(server);
    const asBot = { token: bot.token, scheme: 'Bot' as const };
    await server.api('PATCH', '/applications/@me', { ...asBot, body: { description: 'same' } });
    const before = await server.runtime.store.headPosition();
    expect((await server.api('PATCH', '/applications/@me', { ...asBot, body: { description: 'same' } })).status).toBe(200);
    expect((await server.api('PATCH', '/applications/@me', { ...asBot, body: {} })).status).toBe(200);
    await expectNothingAppendedSince(server, before);

    const patch = (body: unknown) => () => server.api('PATCH', '/applications/@me', { ...asBot, body });
    // Only the limited intent flags are the application's to set; the others are granted.
    await expectRefusedWithoutEvents(server, patch({ flags: 1 << 12 }), 400, 'INVALID_FORM_BODY');
    await expectRefusedWithoutEvents(server, patch({ name: 'renamed' }), 400, 'INVALID_FORM_BODY');
    await expectRefusedWithoutEvents(server, patch({ description: 'x'.repeat(401) }), 400, 'INVALID_FORM_BODY');
    await expectRefusedWithoutEvents(server, patch({ icon: 'data:image/png;base64,bm90IGFuIGltYWdl' }), 400, 'INVALID_FORM_BODY');
  });
});

describe('applications seen from a session', () => {
  it('refuses @me, which names the application of a bot token, and lists the owner’s applications instead', async () => {
    const owner = await registerUser(server);
    const first = await createBot(server, owner);
    const second = await server.api('POST', '/applications', { token: owner.token, body: { name: 'Second' } });
    for (const [method, path] of [
      ['GET', '/applications/@me'],
      ['GET', '/oauth2/applications/@me'],
      ['PATCH', '/applications/@me'],
    ]) {
      await expectRefusedWithoutEvents(
        server,
        () => server.api(method, path, { token: owner.token, body: method === 'PATCH' ? { description: 'x' } : undefined }),
        403,
        'BOTS_ONLY',
      );
    }
    expectError(await server.api('GET', '/applications/@me'), 401, 'UNAUTHORIZED');

    const listed = await server.api('GET', '/applications', { token: owner.token });
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject([
      { id: first.applicationId, bot: { id: first.id }, owner: { id: owner.id } },
      { id: second.body.id, owner: { id: owner.id } },
    ]);
    expect(listed.body[1]).not.toHaveProperty('bot');
    expect((await server.api('GET', '/applications', { token: (await registerUser(server)).token })).body).toEqual([]);
    expectError(await server.api('GET', '/applications', { token: first.token, scheme: 'Bot' }), 403, 'BOTS_NOT_ALLOWED');
  });
});
